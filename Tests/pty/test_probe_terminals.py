"""The terminal probe against real terminals, headless: Debian's kitty (graphics protocol) and
xterm as a VT340 with sixel and 256 colour registers, under Xvfb. `script` gives animplay a
pty whose input and output are the terminal's, and logs what animplay printed.
"""
import os, shutil, subprocess, tempfile, time
import pytest
import ptyharness as h

TMP = tempfile.mkdtemp(prefix='animplay-probe-x-')
needed = ['Xvfb', 'kitty', 'xterm', 'script']
pytestmark = pytest.mark.skipif(any(shutil.which(n) is None for n in needed),
                                reason='needs ' + ', '.join(needed) + ' (scripts/install-deps)')


@pytest.fixture(scope='module')
def display():
    r, w = os.pipe()
    xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(w), '-screen', '0', '1024x768x24'],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    number = b''
    while not number.endswith(b'\n'):
        chunk = os.read(r, 16)
        if not chunk:
            break
        number += chunk
    os.close(r)
    yield ':' + number.decode().strip()
    xvfb.terminate()
    xvfb.wait()


def probe_in(terminal_cmd, display, name):
    log = os.path.join(TMP, name + '.typescript')
    inner = f'script -q -c "{h.binary()} probe" {log}'
    env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE='1')
    subprocess.run(terminal_cmd + ['sh', '-c', inner], env=env, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = open(log, 'rb').read().decode('utf-8', 'replace')
    facts = {}
    for line in text.splitlines():
        k, sep, v = line.rstrip('\r').partition(': ')
        if sep:
            facts[k.split('\x1b[c')[-1]] = v
    return facts


def test_real_kitty(display):
    f = probe_in(['kitty', '--config', 'NONE', '-o', 'allow_remote_control=no'], display, 'kitty')
    assert f['answered DA1'].startswith('true')
    assert f['kitty graphics'].startswith('true')
    assert f['version'].startswith('kitty(')
    assert f['background'] == '#000000'
    assert '-' not in f['palette 0-15'].split()
    assert f['cell pixels'] != '-'


def test_real_xterm_with_sixel(display):
    f = probe_in(['xterm', '-ti', 'vt340', '-xrm', 'XTerm*decTerminalID: vt340',
                  '-xrm', 'XTerm*numColorRegisters: 256', '-e'], display, 'xterm')
    assert f['answered DA1'].startswith('true')
    assert f['sixel'] == 'true' and f['colour registers'] == '256'
    assert f['kitty graphics'] == 'false'
    assert f['version'].startswith('XTerm(')
    assert f['background'] == '#ffffff'
    assert f['palette 0-15'].split()[1] == '#cd0000'
