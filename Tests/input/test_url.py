"""URLs against a throttling HTTP server of the tests' own on 127.0.0.1 (httpserver.py): every
error as one line with its exit code, redirects, compression, chunked bodies, dropped
connections, size caps, and playback that starts before the download ends."""
import os, re, shutil, subprocess, tempfile
import pytest
import ptyharness as h
import ptywatch
from gifwriter import write_gif

RED, BLUE, GREEN, WHITE = (250, 0, 0), (0, 0, 250), (0, 200, 0), (250, 250, 250)


@pytest.fixture(scope='module')
def root():
    d = tempfile.mkdtemp(prefix='animplay-url-')
    write_gif(os.path.join(d, 'two.gif'), 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=1)
    # Four frames, each a different colour; the server's gate holds the second half.
    write_gif(os.path.join(d, 'four.gif'), 40, 20, [[c] * 800 for c in (RED, BLUE, GREEN, WHITE)],
              delay_cs=5, loops=1)
    samples = os.path.join(os.path.dirname(__file__), '..', '..', 'samples')
    for name in ('orbit.webp', 'spinner.png'):
        shutil.copy(os.path.join(samples, name), d)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))


def run(args, timeout=60):
    return subprocess.run([h.binary()] + args, capture_output=True, timeout=timeout)


def one_line(r):
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize('query', ['', '?chunked=1', '?gzip=1', '?rate=20000'])
def test_info_and_dump_from_url(server, query, tmp_path):
    url = server.url('/f/two.gif' + query)
    r = run(['info', url])
    assert r.returncode == 0, r.stderr
    assert b'frames    2' in r.stdout and b'40x20' in r.stdout
    r = run(['dump', url, '-o', str(tmp_path / 'out')])
    assert r.returncode == 0, r.stderr
    assert len(os.listdir(tmp_path / 'out')) == 2
    req = server.requests[0]
    assert req['headers'].get('User-Agent', '').startswith('animplay/')
    if query == '?gzip=1':
        assert 'gzip' in req['headers'].get('Accept-Encoding', '')


def test_redirect_is_followed(server):
    r = run(['info', server.url('/redirect?to=/f/two.gif')])
    assert r.returncode == 0 and b'frames    2' in r.stdout


@pytest.mark.parametrize('path,args,code,words', [
    ('/status/404', [], 5, 'HTTP 404 Not Found'),
    ('/status/500', [], 5, 'HTTP 500'),
    ('/html', [], 3, 'not an image: the server sent text/html'),
    ('/loop', [], 5, 'too many redirects'),
    ('/redirect?to=ftp://127.0.0.1/x.gif', [], 5, 'only http and https'),
    ('/huge', [], 5, 'announces 1024 MB'),
    ('/f/four.gif', ['--max-download-mb', '1'], None, None),
    ('/endless', ['--max-download-mb', '2'], 5, 'more than 2 MB received'),
    ('/stall', ['--stall-timeout', '1'], 5, 'stalled'),
])
def test_errors_are_one_line_naming_the_url(server, path, args, code, words):
    url = server.url(path)
    r = run(['info', url] + args)
    if code is None:            # a small file under the cap is fine
        assert r.returncode == 0
        return
    line = one_line(r)
    assert r.returncode == code, line
    assert line.startswith(f'animplay: {url}: ') and words in line, line


def test_refused_dns_tls_and_other_schemes():
    import socket
    s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
    r = run(['info', f'http://127.0.0.1:{port}/x.gif'])
    assert r.returncode == 5 and 'connection refused' in one_line(r)
    # DNS in a network namespace of our own with no interfaces: the lookup fails here, and no
    # query leaves the machine.
    r = subprocess.run(['unshare', '-n', h.binary(), 'info', 'http://no-such-host.invalid/x.gif'],
                       capture_output=True, timeout=60)
    assert r.returncode == 5 and 'cannot resolve' in one_line(r)
    r = run(['info', 'file:///etc/hostname'])
    assert r.returncode == 3 and 'only http and https' in one_line(r)


def test_tls_is_verified(server):
    # A plain-HTTP server spoken to with https: the TLS handshake fails (no silent downgrade).
    r = run(['info', f'https://127.0.0.1:{server.port}/f/two.gif'])
    assert r.returncode == 5 and 'TLS' in one_line(r)


def test_dropped_connection_shows_what_arrived_with_a_warning(server, root):
    size = os.path.getsize(os.path.join(root, 'four.gif'))
    r = run(['info', server.url(f'/f/four.gif?drop={size * 3 // 4}')])
    assert r.returncode == 0, r.stderr
    assert b'warning: input ended early' in r.stderr and b'connection dropped' in r.stderr
    assert b'truncated' in r.stdout


def test_play_errors_leave_the_terminal_alone(server):
    res = ptywatch.run([server.url('/status/404')], timeout=30)
    assert res.status == 5
    assert res.screen.alt_entries == 0 and res.stty_after == res.stty_before
    assert 'HTTP 404' in '\n'.join(res.screen.display)


def test_first_frame_plays_before_the_download_ends(server):
    """The server sends the first half of the file, then waits until the test has seen the
    first frame on screen: only a player that starts on partial data lets it finish."""
    seen, status = [], []

    def watch(screen, master):
        if not seen and RED in ptywatch.colours_on(screen):
            seen.append(len(server.requests))
            status.append(screen.display[-1])
            server.release()
    res = ptywatch.run([server.url('/f/four.gif?gate=1'), '--status'], watch=watch, timeout=40)
    assert seen, 'first frame never shown while the download was held'
    assert seen == [0]                          # the only request had not completed yet
    # The status line shows the frames so far as provisional and the download's progress.
    assert re.search(r'frame 1/\d\+  ↓ [\d.]+/[\d.]+ MB \d+%', status[0]), status
    assert res.status == 0, res.output[-300:]
    assert server.requests[0]['sent'] == os.path.getsize(os.path.join(server.root, 'four.gif'))
    # All four frames played: the last one (white) stays on the normal screen.
    assert WHITE in ptywatch.colours_on(res.screen)


@pytest.mark.parametrize('name', ['orbit.webp', 'spinner.png'])
def test_webp_and_apng_play_before_the_download_ends(server, name):
    seen = []

    def watch(screen, master):
        if not seen and ptywatch.colours_on(screen):
            seen.append(len(server.requests))
            server.release()
    res = ptywatch.run([server.url(f'/f/{name}?gate=1&type=image/x'), '--loop', '1'], watch=watch, timeout=40)
    assert seen == [0], 'nothing shown while the download was held'
    assert res.status == 0, res.output[-300:]


def test_proxy_from_the_environment_is_used(server):
    # The test server doubles as an HTTP proxy: a proxied request names the absolute URL, and
    # the host is never looked up (the proxy fetches it).
    env = dict(os.environ, http_proxy=f'http://127.0.0.1:{server.port}', no_proxy='', NO_PROXY='')
    r = subprocess.run([h.binary(), 'info', 'http://images.example.test/f/two.gif'],
                       capture_output=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert b'frames    2' in r.stdout
    assert server.requests[0]['path'].startswith('http://images.example.test/')


def test_libcurl_is_not_linked():
    # libcurl and its ~30 dependencies are loaded on the first URL only (dlopen), not at every
    # start of the program.
    r = subprocess.run(['ldd', h.binary()], capture_output=True, text=True)
    assert r.returncode == 0 and 'libcurl' not in r.stdout, r.stdout


def test_quit_while_downloading_restores_the_terminal(server):
    # q as soon as the first frame shows, while the server holds the rest of the file: the
    # program ends at once (the transfer thread does not keep it alive) and cleanly.
    sent = []

    def watch(screen, master):
        if not sent and RED in ptywatch.colours_on(screen):
            sent.append(len(server.requests))
            os.write(master, b'q')
    res = ptywatch.run([server.url('/f/four.gif?gate=1'), '--loop', '0'], watch=watch, timeout=30)
    assert sent == [0]
    assert res.status == 0 and res.stty_after == res.stty_before
    assert res.screen.alt_entries == 1


def test_a_pasted_url_with_spaces_is_requested_as_a_browser_requests_it(server, root, tmp_path):
    # `https://host/my file.gif` (as an address bar shows it) was refused by libcurl as a
    # malformed URL. A space, controls, "<>` and non-ASCII bytes after the host are
    # percent-encoded, as Chromium sends them; the cache keys the encoded form, so the two
    # spellings are one entry.
    for name in ('my file.gif', 'café.gif'):
        shutil.copy(os.path.join(root, 'two.gif'), os.path.join(root, name))
    r = run(['info', server.url('/f/my file.gif')])
    assert r.returncode == 0, r.stderr
    assert server.requests[-1]['path'] == '/f/my%20file.gif'
    r = run(['info', server.url('/f/caf\u00e9.gif')])
    assert r.returncode == 0 and server.requests[-1]['path'] == '/f/caf%C3%A9.gif', r.stderr
    r = run(['info', server.url('/f/my%20file.gif')])
    assert r.returncode == 0
    listed = run(['cache', 'info']).stdout.decode()
    assert listed.count('/f/my%20file.gif') == 1 and '/f/my file.gif' not in listed   # one entry
    r = run(['cache', 'remove', server.url('/f/my file.gif')])
    assert r.returncode == 0 and b'removed' in r.stdout


def test_a_sprite_sheet_from_a_url(server, root):
    # A sheet was opened by path only: a URL's failed with "No such file or directory".
    shutil.copy(os.path.join(os.path.dirname(__file__), '..', '..', 'samples', 'sheet-8x4.png'), root)
    r = run(['info', server.url('/f/sheet-8x4.png'), '--sprite', '8x4'])
    assert r.returncode == 0, r.stderr
    assert b'format    sprite-sheet' in r.stdout and b'frames    32' in r.stdout
