"""The terminal probe against real terminals, headless: Debian's kitty (graphics protocol) and
xterm as a VT340 with sixel and 256 colour registers, under Xvfb. `script` gives animplay a
pty whose input and output are the terminal's, and logs what animplay printed.
"""
import os, subprocess, tempfile
import ptyharness as h
from requires import requires

TMP = tempfile.mkdtemp(prefix='animplay-probe-x-')
pytestmark = requires('Xvfb', 'kitty', 'xterm', 'script', 'tmux')


def probe_in(terminal_cmd, display, name, tmux_conf=None, budget_ms=3000):
    """budget_ms: the round ends at the terminal's DA1 reply; a long budget keeps a loaded
    machine from racing the 100 ms default where the test is about the answers."""
    log = os.path.join(TMP, name + '.typescript')
    inner = f'script -q -c "{h.binary()} probe --budget-ms {budget_ms}" {log}'
    env = dict(os.environ, DISPLAY=display.name, LIBGL_ALWAYS_SOFTWARE='1')
    env.pop('TMUX', None)
    if tmux_conf is not None:
        conf = os.path.join(TMP, name + '.tmux.conf')
        with open(conf, 'w') as f:
            f.write(tmux_conf)
        socket = os.path.join(TMP, name + '.sock')
        inner_cmd = ['tmux', '-S', socket, '-f', conf, 'new-session', inner]
    else:
        inner_cmd = ['sh', '-c', inner]
    try:
        subprocess.run(terminal_cmd + inner_cmd, env=env, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        if tmux_conf is not None:
            subprocess.run(['tmux', '-S', socket, 'kill-server'], stderr=subprocess.DEVNULL)
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
    assert f['sixel max size'] == '1000x1000'            # maxGraphicSize, its default
    assert f['kitty graphics'] == 'false'
    assert f['version'].startswith('XTerm(')
    assert f['background'] == '#ffffff'
    assert f['palette 0-15'].split()[1] == '#cd0000'


KITTY = ['kitty', '--config', 'NONE', '-o', 'allow_remote_control=no']


def test_kitty_through_tmux_passthrough(display):
    f = probe_in(KITTY, display, 'tmux-on', tmux_conf='set -g allow-passthrough on\n')
    assert f['inside tmux'] == 'true'
    assert '2 replies' in f['answered DA1']                 # tmux's own, then kitty's
    assert f['kitty graphics'].startswith('true')
    assert f['version'].startswith('kitty(')                # the outer terminal's
    assert f['background'] == '#000000'


def test_tmux_without_passthrough_costs_the_budget(display):
    f = probe_in(KITTY, display, 'tmux-off', tmux_conf='set -g allow-passthrough off\n', budget_ms=100)
    assert f['inside tmux'] == 'true'
    assert f['answered DA1'].startswith('true') and 'replies' not in f['answered DA1']
    assert f['kitty graphics'] == 'false'
    assert f['version'].startswith('tmux')
    assert 100 <= int(f['elapsed ms']) < 1000
