"""Process behaviour on hostile input and hostile terminals, in a pseudo-terminal.

    python3 -m pytest Tests/hostile -q        (scripts/test runs it; needs pyte, like Tests/pty)

The terminal is restored (same `stty -g`, cursor visible, alternate screen left) after a corrupt
frame in the middle of playback and after the file is truncated under the player; files that fail
to open leave the terminal untouched; a closed pty (SIGHUP, then EIO on every write) ends the
process promptly; a terminal that stops reading does not make the player queue output or memory.
The quit keys, Ctrl-C, SIGTERM and SIGHUP on a healthy terminal are covered in Tests/pty.
"""
import os, select, shutil, signal, struct, sys, tempfile, time, fcntl, pty, termios, subprocess
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'pty'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'Fixtures', 'hostile'))
import ptyharness as h      # noqa: E402
import make                 # noqa: E402  (the fixture builders)
from requires import skip_unless  # noqa: E402

FILES = os.path.join(ROOT, 'Tests', 'Fixtures', 'hostile', 'files')
TMP = tempfile.mkdtemp(prefix='animplay-hostile-pty-')
CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGABRT, signal.SIGILL, signal.SIGTRAP, signal.SIGBUS, signal.SIGFPE}


def restored(r):
    """Terminal modes identical, cursor shown again, alternate screen left."""
    assert r.stty_before == r.stty_after
    assert r.screen.alt_entries == 1 and r.screen.saved is None
    assert not r.screen.cursor.hidden
    return True


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def gif_with_corrupt_middle():
    """Three 32x16 frames; the second one's LZW data uses a code past the table."""
    frames = [make.gif_image(0, 0, 32, 16, [1] * 512, 2),
              make.gif_image(0, 0, 32, 16, lzw=make.lzw_literal(None, 2, [(4, 3), (2, 3), (7, 3), (7, 3), (5, 3)]),
                             min_code_size=2),
              make.gif_image(0, 0, 32, 16, [3] * 512, 2)]
    return make.gif_header(32, 16, 2) + make.gif_loop(0) + b''.join(make.gif_gce(5) + f for f in frames) + b'\x3B'


def apng_with_corrupt_middle():
    rows = make.rgba_rows(32, 16, 1)
    return (make.PNG_SIG + make.ihdr(32, 16) + make.actl(3) + make.fctl(0, 32, 16, num=5, den=100) + make.idat(32, 16) +
            make.fctl(1, 32, 16, num=5, den=100) + make.chunk(b'fdAT', struct.pack('>I', 2) + rows, crc=1) +
            make.fctl(3, 32, 16, num=5, den=100) + make.fdat(4, 32, 16, 2) + make.IEND)


def webp_with_corrupt_middle():
    bad = make.vp8l_solid(32, 16)[:5] + bytes(range(256)) * 2
    return make.webp([make.vp8x(32, 16), make.anim(),
                      make.anmf(0, 0, 32, 16, 50),
                      make.anmf(0, 0, 32, 16, 50, payload=make.riff_chunk(b'VP8L', bad)),
                      make.anmf(0, 0, 32, 16, 50, color=0xFF00FF00)])


@pytest.mark.parametrize('name,build', [('corrupt-middle.gif', gif_with_corrupt_middle),
                                        ('corrupt-middle.png', apng_with_corrupt_middle),
                                        ('corrupt-middle.webp', webp_with_corrupt_middle)])
def test_corrupt_frame_mid_playback_keeps_playing_and_restores(name, build):
    path = write(name, build())
    r = h.run([path, '--loop', '0'], actions=[(1.0, b'q')])
    assert r.status == 0, r.output[-300:]
    assert restored(r)


@pytest.mark.parametrize('name,build', [('shrinking.gif', lambda: make.gif_base()[0]),
                                        ('shrinking.png', lambda: make.apng_base()[0])])
def test_file_truncated_under_the_player_restores(name, build):
    """GIF and APNG frames are read from the file as they are decoded: cut it while playing."""
    data = build()
    path = write(name, data)

    def truncate(proc, master, slave):
        with open(path, 'r+b') as f:
            f.truncate(len(data) // 3)
    r = h.run([path, '--loop', '0'], actions=[(0.3, truncate), (1.2, b'q')])
    assert r.status == 0, r.output[-300:]
    assert restored(r)


@pytest.mark.parametrize('fixture', ['empty.gif', 'text.gif', 'gif-screen-65535x65535.gif', 'gif-no-image-data.gif',
                                     'apng-ihdr-2147483647-wide.png', 'apng-no-idat.png',
                                     'webp-canvas-16384x16384-1000frames.webp', 'webp-anmf-no-bitstream.webp'])
def test_file_that_fails_to_open_leaves_the_terminal_alone(fixture):
    r = h.run([os.path.join(FILES, fixture)], timeout=10)
    assert r.status in (2, 3, 4)
    assert r.stty_before == r.stty_after
    assert r.screen.alt_entries == 0 and not r.screen.cursor.hidden
    lines = r.output.decode('utf-8', 'replace').replace('\r', '').strip().split('\n')
    assert len(lines) == 1 and lines[0].startswith('animplay: '), lines


@pytest.mark.parametrize('fixture', ['gif-trunc-50pct.gif', 'gif-lzw-code-past-table.gif', 'gif-frames-outside.gif',
                                     'gif-huge-delays.gif', 'apng-fdat-out-of-sequence.png', 'apng-fdat-garbage.png',
                                     'apng-trunc-70pct.png', 'webp-lossy-trunc-50pct.webp', 'webp-vp8l-random-0.webp',
                                     'gif-canvas-8192x4096-fullframes.gif', 'gif-100000-frames.gif'])
def test_hostile_file_plays_and_restores(fixture):
    path = os.path.join(FILES, fixture)
    skip_unless(os.path.exists(path), f'{fixture} not generated (python3 Tests/Fixtures/hostile/make.py)')
    r = h.run([path, '--loop', '0'], actions=[(0.8, b'q')], timeout=20)
    if r.status == 0:
        # An animation plays on the alternate screen; a single frame is printed once without it.
        assert restored(r) if r.screen.alt_entries else (r.stty_before == r.stty_after and not r.screen.cursor.hidden)
    else:       # a file that cannot be shown at all: one line, terminal untouched
        assert r.status in (3, 4) and r.stty_before == r.stty_after and r.screen.alt_entries == 0


def spawn_on_pty(args, cols=80, rows=24):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', LANG='C.UTF-8')
    proc = subprocess.Popen([h.binary()] + list(args), stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True, preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    return proc, master, slave


def read_for(master, seconds):
    got = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if select.select([master], [], [], 0.02)[0]:
            try:
                got += len(os.read(master, 65536))
            except OSError:
                break
    return got


def wait_reaped(proc, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = 0
            return status, ru
        time.sleep(0.01)
    return None, None


@pytest.fixture(scope='module')
def busy_gif():
    """A 200x100 animation of 20 frames at 20 ms: every frame changes every cell."""
    frames = []
    for k in range(20):
        idx = [(x // 4 + y // 4 + k) % 4 for y in range(100) for x in range(200)]
        frames.append(make.gif_gce(2) + make.gif_image(0, 0, 200, 100, idx, 2))
    return write('busy.gif', make.gif_header(200, 100, 2) + make.gif_loop(0) + b''.join(frames) + b'\x3B')


def test_closed_pty_ends_the_process(busy_gif):
    """The terminal window goes away: the master side closes, the kernel sends SIGHUP and every
    later write fails with EIO. The player must end at once, without a crash or a busy loop."""
    proc, master, slave = spawn_on_pty([busy_gif, '--loop', '0'])
    assert read_for(master, 0.8) > 0
    os.close(slave)
    os.close(master)
    status, ru = wait_reaped(proc, 5.0)
    if status is None:
        proc.kill()
        wait_reaped(proc, 5.0)
        pytest.fail('still running 5 s after the pty closed')
    assert not (os.WIFSIGNALED(status) and os.WTERMSIG(status) in CRASH_SIGNALS), f'crashed: {status}'
    assert ru.ru_utime + ru.ru_stime < 3.0


def queued(master):
    """Bytes written by the program and not yet read from the pty."""
    return struct.unpack('i', fcntl.ioctl(master, termios.FIONREAD, b'\0\0\0\0'))[0]


def test_blocked_terminal_does_not_queue_output(busy_gif):
    """A terminal that stops reading (scroll lock, a stalled ssh link) blocks the player's
    writes: it must drop frames, not queue them. Once the pty is full and frames keep falling
    due, what arrives next is at most the kernel's pty buffer plus about one frame, memory has
    not grown, and q still quits. Every step waits for an observable state, not a clock."""
    normal = h.run([busy_gif, '--loop', '0'], steps=[(h.frames(20), b'q')])
    assert normal.status == 0
    frame_bytes = len(normal.output) // max(1, normal.output.count(b'\x1b8'))
    burst = {}

    def stall(proc, master, slave):
        # Stop reading until the pty stays full (the player is blocked in write), then let
        # 20 more frame delays (20 ms each) fall due while it stays blocked.
        last, still, deadline = -1, 0, time.monotonic() + 10
        while still < 10 and time.monotonic() < deadline:
            n = queued(master)
            still = still + 1 if n == last else 0
            last = n
            time.sleep(0.02)
        assert still >= 10, 'the pty never filled up'
        time.sleep(0.4)
        # What was waiting: the kernel buffer, then whatever the blocked write still held.
        got = 0
        while select.select([master], [], [], 0.05)[0]:
            data = os.read(master, 65536)
            if not data:
                break
            got += len(data)
            if b'\x1b8' in data:          # the frame that was being written has ended
                break
        burst['bytes'] = got
    blocked = h.run([busy_gif, '--loop', '0'],
                    steps=[(h.frames(3), stall), (h.frames(5), b'q')], timeout=30)
    assert blocked.status == 0 and restored(blocked)
    assert burst['bytes'] < 64 * 1024 + 2 * frame_bytes, (burst, frame_bytes)
    assert blocked.maxrss_kb < normal.maxrss_kb + 16 * 1024
    # After the stall the player went on frame by frame: no backlog of frames was written out.
    assert len(blocked.output) < 20 * frame_bytes, (len(blocked.output), frame_bytes)


def teardown_module(module):
    shutil.rmtree(TMP, ignore_errors=True)
