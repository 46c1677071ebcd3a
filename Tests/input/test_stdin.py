"""Images from standard input, /dev/stdin, FIFOs and process substitution: play (keys from
/dev/tty), info and dump; no terminal for play is a clear error."""
import os, subprocess, tempfile, threading
import pytest
import ptyharness as h
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-stdin-')
RED, BLUE = (250, 0, 0), (0, 0, 250)


@pytest.fixture(scope='module')
def gif():
    p = os.path.join(TMP, 'two.gif')
    write_gif(p, 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=2)
    return p


def run(args, **kw):
    return subprocess.run([h.binary()] + args, capture_output=True, timeout=30, **kw)


def test_info_from_pipe_dash_devstdin_and_no_argument(gif):
    data = open(gif, 'rb').read()
    for args in (['info', '-'], ['info', '/dev/stdin'], ['info']):
        r = run(args, input=data)
        assert r.returncode == 0, (args, r.stderr)
        assert b'frames    2' in r.stdout and b'40x20' in r.stdout


def test_info_from_process_substitution(gif):
    r = subprocess.run(['bash', '-c', f'{h.binary()} info <(cat {gif})'], capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert b'/dev/fd/' in r.stdout and b'frames    2' in r.stdout


def test_sprite_sheets_and_atlases_come_from_streams_too():
    # `cat sheet.png | animplay - --sprite 8x4` said "-: No such file or directory", and
    # `--atlas <(jq ...)` "not a regular file": a sheet and its atlas are read from a pipe,
    # /dev/stdin or process substitution as images are.
    samples = os.path.join(h.ROOT, 'samples')
    sheet, walk, atlas = (os.path.join(samples, n) for n in ('sheet-8x4.png', 'walk-sheet.png', 'walk-sheet.json'))
    alone = run(['info', '--json', sheet, '--sprite', '8x4']).stdout
    for args in (['info', '--json', '-', '--sprite', '8x4'], ['info', '--json', '/dev/stdin', '--sprite', '8x4']):
        r = run(args, input=open(sheet, 'rb').read())
        assert r.returncode == 0, (args, r.stderr)
        assert r.stdout.replace(b'"file":"<stdin>"', b'').replace(b'"file":"/dev/stdin"', b'') == \
            alone.replace(f'"file":"{sheet}"'.encode(), b'')
    r = subprocess.run(['bash', '-c', f'{h.binary()} info <(cat {walk}) --atlas <(cat {atlas}) --tag walk'],
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert b'format    sprite-sheet' in r.stdout and b'frames    8' in r.stdout
    # The limit holds for a stream: one byte past 32 MiB is refused, not read on.
    r = subprocess.run(['bash', '-c', f'{h.binary()} info {walk} --atlas <(head -c 40000000 /dev/zero)'],
                       capture_output=True, timeout=60)
    assert r.returncode == 4 and b'too large: atlas of more than 33554432 bytes' in r.stderr


def test_dump_from_pipe(gif):
    out = os.path.join(TMP, 'dump')
    r = run(['dump', '-', '-o', out], input=open(gif, 'rb').read())
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ['frame-0000.ppm', 'frame-0001.ppm']


def test_large_pipe_spills_and_decodes():
    # Over 4 MB of frames (past the 4 MB memory cap): the spool moves to a temporary file.
    p = os.path.join(TMP, 'big.gif')
    pal = [(k, 255 - k, k // 2) for k in range(200)]
    frames = [[pal[(x + 3 * y + 7 * i) % 200] for y in range(120) for x in range(256)] for i in range(150)]
    write_gif(p, 256, 120, frames, delay_cs=4, loops=0)
    data = open(p, 'rb').read()
    r = run(['info', '-', '--json'], input=data)
    assert r.returncode == 0, r.stderr
    assert b'"frameCount":150' in r.stdout.replace(b' ', b'')


def test_empty_and_garbage_stdin_are_one_line_errors():
    r = run(['info', '-'], input=b'')
    assert r.returncode == 3 and r.stderr.strip().splitlines() == [b'animplay: -: invalid image: empty input']
    r = run(['info', '-'], input=b'<html>not an image</html>')
    assert r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1


def test_fifo_without_writer_does_not_hang():
    p = os.path.join(TMP, 'fifo')
    os.mkfifo(p)
    r = run(['info', p])
    assert r.returncode == 2
    assert b'nothing arrived' in r.stderr


def test_fifo_with_writer(gif):
    p = os.path.join(TMP, 'fifo2')
    os.mkfifo(p)
    def writer():
        with open(p, 'wb') as f:
            f.write(open(gif, 'rb').read())
    t = threading.Thread(target=writer); t.start()
    r = run(['info', p])
    t.join()
    assert r.returncode == 0 and b'frames    2' in r.stdout


def test_play_from_pipe_reads_keys_from_tty(gif):
    r_fd, w_fd = os.pipe()
    os.write(w_fd, open(gif, 'rb').read()); os.close(w_fd)
    # --loop 0 plays forever: only the q typed on the terminal ends it.
    res = h.run(['-', '--loop', '0'], stdin=r_fd, actions=[(0.5, b'q')], timeout=20)
    os.close(r_fd)
    assert res.status == 0
    assert res.screen.alt_entries == 1 and res.stty_after == res.stty_before
    cells = h.halves(res.screen.buffer, 80, 24)
    assert any(RED in (u, l) or BLUE in (u, l) for row in cells for (u, l) in row)


def test_play_from_pipe_without_tty_is_a_clear_error(gif):
    r = subprocess.run([h.binary(), '-'], stdin=open(gif, 'rb'), capture_output=True, timeout=30,
                       start_new_session=True)
    assert r.returncode == 1
    assert b'no terminal (/dev/tty)' in r.stderr


def test_pipe_plays_before_it_ends():
    """Half the GIF goes into the pipe; the rest only once the first frame is on screen."""
    import ptywatch
    p = os.path.join(TMP, 'three.gif')
    write_gif(p, 40, 20, [[RED] * 800, [BLUE] * 800, [(0, 200, 0)] * 800], delay_cs=5, loops=1)
    data = open(p, 'rb').read()
    r_fd, w_fd = os.pipe()
    os.write(w_fd, data[:len(data) * 2 // 3])
    released = []

    def watch(screen, master):
        if not released and RED in ptywatch.colours_on(screen):
            os.write(w_fd, data[len(data) * 2 // 3:]); os.close(w_fd)
            released.append(True)
    res = ptywatch.run(['-'], watch=watch, stdin=r_fd, timeout=30)
    os.close(r_fd)
    if not released:
        os.close(w_fd)
    assert released, 'nothing shown while the pipe was still open'
    assert res.status == 0
    assert (0, 200, 0) in ptywatch.colours_on(res.screen)      # the last frame stays
