"""Waiting for a slow server before the first frame: a line says what animplay is waiting for
(the host, then bytes and rate) from the first 100 ms, typed keys are not echoed, and q or
Ctrl-C quit at once with the terminal restored. Loopback servers only."""
import os, socket, tempfile, threading
import pytest
import ptyharness as h
from gifwriter import write_gif
from httpserver import Server

RED, BLUE = (250, 0, 0), (0, 0, 250)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))


@pytest.fixture()
def silent_port():
    """A server that accepts the connection and never answers (headers never come)."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    s.listen(4)
    held = []
    stop = threading.Event()

    def accept():
        s.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(s.accept()[0])
            except OSError:
                pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield s.getsockname()[1]
    stop.set(); t.join()
    for c in held:
        c.close()
    s.close()


def screen_text(output):
    screen = h.AltScreen(80, 24)
    h.pyte.ByteStream(screen).feed(h.without_apc(output))
    return '\n'.join(l.rstrip() for l in screen.display)


@pytest.mark.parametrize('key, status', [(b'q', 0), (b'\x03', 1)])
def test_connecting_line_and_quit_before_the_headers(silent_port, key, status):
    url = f'http://127.0.0.1:{silent_port}/x.gif'
    steps = [(b'connecting to 127.0.0.1:%d' % silent_port, b'xyz'),   # typed: never echoed
             (lambda new, _all: True, key)]
    r = h.run([url], steps=steps, timeout=20)
    assert r.status == status and r.stty_before == r.stty_after
    assert r.wall < 10                        # at once, not after the connect timeout (15 s)
    assert 'xyz' not in screen_text(r.output)
    if status:
        assert 'animplay: interrupted by SIGINT' in screen_text(r.output)
    # The line is erased on the way out.
    assert 'connecting' not in screen_text(r.output)


def test_bytes_and_rate_while_the_first_frame_arrives(tmp_path):
    # 256 KB of frame data at 20 KB/s: the first frame takes seconds.
    big = tmp_path / 'big.gif'
    import random
    rnd = random.Random(7)
    palette = [(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(200)]
    pixels = [palette[rnd.randrange(200)] for _ in range(256 * 256)]
    write_gif(str(big), 256, 256, [pixels, [BLUE] * (256 * 256)], delay_cs=5, loops=1)
    server = Server(str(tmp_path))
    try:
        url = server.url('/f/big.gif?rate=20000')
        seen = []

        def line_with_rate(_new, everything):
            text = screen_text(everything)
            if 'KB at' in text and 'waiting for the first frame' in text:
                seen.append(text)
                return True
            return False
        r = h.run([url], steps=[(line_with_rate, b'q')], timeout=30)
        assert seen and '127.0.0.1:%d: ' % server.port in seen[0]
        assert r.status == 0 and r.stty_before == r.stty_after and r.wall < 20
    finally:
        server.close()


def test_keys_typed_while_waiting_reach_the_player(tmp_path):
    """A space typed before the headers came pauses the animation once it starts."""
    gif = tmp_path / 'two.gif'
    write_gif(str(gif), 16, 8, [[RED] * 128, [BLUE] * 128], delay_cs=5, loops=0)
    s, release = held_server(gif.read_bytes())
    try:
        url = f'http://127.0.0.1:{s.getsockname()[1]}/two.gif'
        r = h.run([url, '--status'], timeout=20,
                  steps=[(b'connecting to', b' '),
                         (lambda new, _all: True, lambda p, m, sl: release.set()),
                         # (ncurses rewrites only what changed: read the screen, not the bytes)
                         (lambda new, everything: ' paused  frame 1/2' in screen_text(everything), b'q')])
        assert r.status == 0 and r.stty_before == r.stty_after, screen_text(r.output)
        assert b'connecting' in r.output
    finally:
        release.set()
        s.close()


def held_server(body):
    """A server that takes one request and answers it (`body`, a GIF) when `release` is set."""
    release = threading.Event()
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    s.listen(1)

    def serve():
        c, _ = s.accept()
        c.recv(65536)
        release.wait(20)
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: image/gif\r\nContent-Length: %d\r\nCache-Control: no-store\r\n\r\n'
                  % len(body) + body)
        c.close()
    threading.Thread(target=serve, daemon=True).start()
    return s, release


def bottom_row(output):
    screen = h.AltScreen(80, 24)
    h.pyte.ByteStream(screen).feed(h.without_apc(output))
    return screen.display[-1].rstrip()


@pytest.mark.parametrize('key, status', [(b'q', 0), (b'\x03', 1)])
def test_every_url_of_a_playlist_says_it_is_connecting(tmp_path, silent_port, key, status):
    """The first URL's line at the cursor before the screen; the second's, while the first file's
    picture is up, on the screen's bottom row; q or Ctrl-C there quit at once, terminal restored."""
    gif = tmp_path / 'one.gif'
    write_gif(str(gif), 16, 8, [[RED] * 128, [BLUE] * 128], delay_cs=5, loops=1)
    s, release = held_server(gif.read_bytes())
    try:
        first = f'http://127.0.0.1:{s.getsockname()[1]}/one.gif'
        second = f'http://127.0.0.1:{silent_port}/two.gif'
        rows_seen = []

        def second_line(_new, everything):
            row = bottom_row(everything)
            if f'connecting to 127.0.0.1:{silent_port}' in row:
                rows_seen.append(row)
                return True
            return False
        r = h.run([first, second], timeout=20,
                  steps=[(b'connecting to 127.0.0.1:%d' % s.getsockname()[1], lambda p, m, sl: release.set()),
                         (second_line, key)])
        assert rows_seen and rows_seen[0].startswith('animplay: connecting to 127.0.0.1')
        assert r.status == status and r.stty_before == r.stty_after, screen_text(r.output)
        assert r.wall < 10
        # Curses' screen was left (the alternate screen, the cursor shown again) before the exit.
        tail = r.output[r.output.rindex(b'connecting to 127.0.0.1:%d' % silent_port):]
        assert b'\x1b[?1049l' in tail and b'\x1b[?25h' in tail
        assert 'connecting' not in screen_text(r.output)
        if status:
            assert 'animplay: interrupted by SIGINT' in screen_text(r.output)
    finally:
        release.set()
        s.close()


def test_every_url_of_a_grid_says_it_is_connecting(tmp_path, silent_port):
    gif = tmp_path / 'one.gif'
    write_gif(str(gif), 16, 8, [[RED] * 128, [BLUE] * 128], delay_cs=5, loops=0)
    s, release = held_server(gif.read_bytes())
    try:
        r = h.run([f'http://127.0.0.1:{s.getsockname()[1]}/one.gif', f'http://127.0.0.1:{silent_port}/two.gif',
                   '--grid', '2x1'], timeout=20,
                  steps=[(b'connecting to 127.0.0.1:%d' % s.getsockname()[1], lambda p, m, sl: release.set()),
                         (b'connecting to 127.0.0.1:%d' % silent_port, b'q')])
        assert r.status == 0 and r.stty_before == r.stty_after and r.wall < 10
        assert 'connecting' not in screen_text(r.output)
    finally:
        release.set()
        s.close()
