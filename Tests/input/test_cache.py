"""The download cache against real servers on 127.0.0.1: our own (httpserver.py) and nginx
from Debian (real ETag / Last-Modified / gzip). Each test has its own XDG_CACHE_HOME."""
import fcntl, os, shutil, signal, socket, subprocess, tempfile, threading, time
import pytest
import ptyharness as h
import ptywatch
from gifwriter import write_gif
from httpserver import Server
from cacheruns import entries, run

RED, BLUE, GREEN = (250, 0, 0), (0, 0, 250), (0, 200, 0)


@pytest.fixture(scope='module')
def root():
    d = tempfile.mkdtemp(prefix='animplay-cache-')
    write_gif(os.path.join(d, 'two.gif'), 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=1)
    pal = [(k, 255 - k, k // 2) for k in range(200)]
    for i, name in enumerate(('a.gif', 'b.gif', 'c.gif')):
        frames = [[pal[(x + 3 * y + 7 * f + i) % 200] for y in range(120) for x in range(256)] for f in range(14)]
        write_gif(os.path.join(d, name), 256, 120, frames, delay_cs=4, loops=0)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_second_run_revalidates_without_a_body(server, env):
    url = server.url('/f/two.gif')
    assert run(['info', url], env).returncode == 0
    assert len(entries(env)) == 1
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    second = server.requests[1]
    assert second['headers'].get('If-None-Match', '').startswith('"')
    assert second['status'] == 304 and second['sent'] == 0


def test_fresh_entry_needs_no_request(server, env):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    assert len(server.requests) == 1


def test_no_store_no_cache_and_refresh(server, env):
    assert run(['info', server.url('/f/two.gif?nostore=1')], env).returncode == 0
    assert entries(env) == []
    assert run(['info', '--no-cache', server.url('/f/two.gif')], env).returncode == 0
    assert entries(env) == []
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    assert run(['info', '--refresh', url], env).returncode == 0
    assert [r['status'] for r in server.requests[-2:]] == [200, 200]
    assert 'If-None-Match' not in server.requests[-1]['headers']


def test_cache_info_and_clear(server, env):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    r = run(['cache', 'info'], env)
    assert r.returncode == 0 and b'entries    1' in r.stdout
    r = run(['cache', 'clear'], env)
    assert r.returncode == 0 and b'removed 1 entry' in r.stdout
    assert entries(env) == []


def test_cache_remove_never_prints_a_password(env):
    # A URL's password shows as *** in every message (CLIFailure.line masks it), here too.
    r = run(['cache', 'remove', 'http://user:s3cret@127.0.0.1:1/x.gif'], env)
    assert r.returncode == 1
    assert r.stderr == b'animplay: http://user:***@127.0.0.1:1/x.gif: not in the cache\n'


@pytest.mark.parametrize('damage', ['flip', 'truncate', 'garbage'])
def test_damaged_entry_is_fetched_again(server, env, damage):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    [entry] = entries(env)
    data = bytearray(open(entry, 'rb').read())
    if damage == 'flip':
        data[-10] ^= 0xFF
    elif damage == 'truncate':
        data = data[:-100]
    else:
        data = bytearray(b'not a cache entry\n\n' + bytes(50))
    open(entry, 'wb').write(bytes(data))
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    assert len(server.requests) == 2 and server.requests[1]['status'] == 200
    assert run(['info', url], env).returncode == 0
    assert len(server.requests) == 2          # repaired: fresh again


def test_unreachable_server_plays_the_cached_copy(root, env):
    s = Server(root)
    url = s.url('/f/two.gif')
    assert run(['info', url], env).returncode == 0
    s.close()
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    assert b'warning: server unreachable' in r.stderr and b'cached copy' in r.stderr


def test_download_killed_half_way_then_run_again(server, env, root):
    url = server.url('/f/a.gif?gate=1')
    p = subprocess.Popen([h.binary(), 'info', url], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    size = os.path.getsize(os.path.join(root, 'a.gif'))
    deadline = time.monotonic() + 30
    while server.sending < size // 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.sending >= size // 2          # held at the gate, half sent
    p.send_signal(signal.SIGKILL); p.wait()
    assert entries(env) == []                   # nothing that could be read as complete
    server.release()
    r = run(['info', server.url('/f/a.gif')], env)
    assert r.returncode == 0 and b'frames    14' in r.stdout
    assert len(entries(env)) == 1
    r = run(['info', server.url('/f/a.gif')], env)
    assert r.returncode == 0 and server.requests[-1]['status'] == 304


def test_concurrent_runs_share_the_cache(server, env):
    url = server.url('/f/b.gif?rate=400000')
    procs = [subprocess.Popen([h.binary(), 'info', url], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(4)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert all(b'frames    14' in o[0] for o in outs)
    assert len(entries(env)) == 1
    r = run(['info', url], env)
    assert r.returncode == 0 and server.requests[-1]['status'] == 304


def test_least_recently_used_entry_is_evicted(server, env, root):
    cap = ['--cache-max-mb', '1']
    sizes = {n: os.path.getsize(os.path.join(root, n)) for n in ('a.gif', 'b.gif', 'c.gif')}
    assert 2 * max(sizes.values()) < (1 << 20) < sum(sizes.values())
    for n in ('a.gif', 'b.gif'):
        assert run(['info', server.url('/f/' + n)] + cap, env).returncode == 0
    assert run(['info', server.url('/f/a.gif')] + cap, env).returncode == 0     # a is used again
    assert run(['info', server.url('/f/c.gif')] + cap, env).returncode == 0
    urls = set()
    for e in entries(env):
        head = open(e, 'rb').read(300).split(b'\n')
        urls.add(head[1].split(b' ', 1)[1].decode())
    assert urls == {server.url('/f/a.gif'), server.url('/f/c.gif')}


def test_a_lock_held_too_long_is_gone_around(server, env):
    # Another process holds the cache's lock and does not let go (stopped, hung): animplay
    # goes on without the cache after a bounded wait instead of hanging with it.
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    lock = os.open(os.path.join(env['XDG_CACHE_HOME'], 'animplay', 'lock'), os.O_RDWR)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = run(['info', url], env)
        assert r.returncode == 0 and b'frames    2' in r.stdout
        assert b'warning: the cache is locked by another process' in r.stderr
        assert [q['status'] for q in server.requests] == [200, 200]     # downloaded instead
    finally:
        os.close(lock)
    assert run(['info', url], env).returncode == 0
    assert len(server.requests) == 2            # the entry is still there and fresh
    assert len(entries(env)) == 1


# --- nginx from Debian: a real server's validators and compression --------------------------

@pytest.fixture()
def nginx(root, tmp_path):
    exe = shutil.which('nginx') or '/usr/sbin/nginx'
    if not os.path.exists(exe):
        pytest.fail('nginx is not installed (scripts/install-deps installs it)')
    prefix = tmp_path / 'nginx'
    (prefix / 'logs').mkdir(parents=True)
    for attempt in range(5):
        s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
        conf = prefix / 'nginx.conf'
        conf.write_text(f"""
daemon off; master_process off; worker_processes 1; pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 64; }}
http {{
  log_format t '$status $body_bytes_sent "$http_if_none_match" "$sent_http_content_encoding"';
  access_log {prefix}/logs/access.log t;
  client_body_temp_path {prefix}/tmp; proxy_temp_path {prefix}/tmp; fastcgi_temp_path {prefix}/tmp;
  uwsgi_temp_path {prefix}/tmp; scgi_temp_path {prefix}/tmp;
  types {{ image/gif gif; }}
  gzip on; gzip_min_length 1; gzip_types image/gif;
  server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
        proc = subprocess.Popen([exe, '-p', str(prefix), '-c', str(conf)], stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        up = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=0.2).close(); up = True; break
            except OSError:
                time.sleep(0.02)
        if up:
            break
        proc.kill(); proc.wait()
    else:
        pytest.fail('nginx did not start: ' + (prefix / 'logs' / 'error.log').read_text())
    log = prefix / 'logs' / 'access.log'
    yield f'http://127.0.0.1:{port}', log
    proc.terminate(); proc.wait(10)


def test_nginx_gzip_etag_and_304(nginx, env):
    base, log = nginx
    url = base + '/a.gif'
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    14' in r.stdout
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    14' in r.stdout
    lines = log.read_text().strip().splitlines()
    first, second = lines[0].split(' '), lines[1].split(' ')
    assert first[0] == '200' and first[3] == '"gzip"'           # compressed on the wire
    assert second[0] == '304' and second[1] == '0' and second[2] != '"-"'
    # nginx's validators were stored with the original (decompressed) bytes.
    [entry] = entries(env)
    head = open(entry, 'rb').read(400)
    assert b'\netag "' in head and b'\nlast-modified ' in head


# --- playing from the cache: at once, revalidated in the background -------------------------

def painted(screen):
    return ptywatch.colours_on(screen) & {RED, BLUE, GREEN}


def xdg(env):
    return {'XDG_CACHE_HOME': env['XDG_CACHE_HOME']}


def body_of(entry):
    data = open(entry, 'rb').read()
    return data[data.index(b'\n\n') + 2:]


def test_fresh_entry_plays_without_libcurl_or_a_request(server, env):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    procs, seen = [], []

    def watch(screen, master):
        if not seen and painted(screen):
            maps = open(f'/proc/{procs[0].pid}/maps').read()
            seen.append(('libcurl' in maps, len(server.requests), screen.display[-1]))
            os.write(master, b'q')
    res = ptywatch.run([url, '--loop', '0', '--status'], watch=watch, env=xdg(env), started=procs.append, timeout=40)
    assert [s[:2] for s in seen] == [(False, 1)]    # on screen: libcurl never loaded, no second request
    assert '  cached  ' in seen[0][2], seen[0][2]
    assert res.status == 0, res.output[-300:]
    assert len(server.requests) == 1


def test_stale_entry_plays_while_the_server_holds_the_304(server, env):
    url = server.url('/f/two.gif')          # no max-age: every later run revalidates
    assert run(['info', url], env).returncode == 0
    [entry] = entries(env)
    first_inode = os.stat(entry).st_ino
    server.hold_304 = True
    state = {}

    def revalidation_stored():
        return (len(server.requests) == 2 and server.requests[1]['status'] == 304
                and os.path.exists(entry) and os.stat(entry).st_ino != first_inode)

    def watch(screen, master):
        if 'frame' not in state and painted(screen):
            state['frame'] = len(server.requests)   # no 304 can have been sent: it is held
            state['status'] = screen.display[-1]
            server.release_304()
        elif 'frame' in state and 'quit' not in state and revalidation_stored() \
                and 'cached, current' in screen.display[-1]:
            state['quit'] = True
            os.write(master, b'q')                  # still playing when the entry was rewritten
    res = ptywatch.run([url, '--loop', '0', '--status'], watch=watch, env=xdg(env), timeout=40)
    assert state.get('frame') == 1, 'first frame not shown while the 304 was held'
    assert 'cached, checking' in state['status'], state['status']
    assert state.get('quit'), 'the revalidation was not stored (and shown) while playing'
    assert server.holding_304.is_set()
    assert res.status == 0 and b'warning:' not in res.output and b'note:' not in res.output
    assert server.requests[1]['headers'].get('If-None-Match', '').startswith('"')
    assert body_of(entry) == open(os.path.join(server.root, 'two.gif'), 'rb').read()


def test_newer_version_found_while_playing_is_cached_for_the_next_run(server, env, root):
    path = os.path.join(root, 'changing.gif')
    # Frames that differ keep output (and so `watch` calls) coming while it loops.
    write_gif(path, 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=0)
    try:
        url = server.url('/f/changing.gif')
        assert run(['info', url], env).returncode == 0
        [entry] = entries(env)
        write_gif(path, 40, 20, [[GREEN] * 800, [BLUE] * 800], delay_cs=5, loops=0)
        new = open(path, 'rb').read()
        seen, state = set(), {}

        def watch(screen, master):
            seen.update(painted(screen))
            if seen and 'quit' not in state and os.path.exists(entry) and body_of(entry) == new:
                state['quit'] = True
                os.write(master, b'q')
        res = ptywatch.run([url, '--loop', '0'], watch=watch, env=xdg(env), timeout=40)
        # This run played the copy it started with; the new version was stored meanwhile.
        assert state.get('quit') and GREEN not in seen, seen
        assert res.status == 0, res.output[-300:]
        assert b'the server has a newer version, now cached for the next run' in res.output
        assert [r['status'] for r in server.requests] == [200, 200]
        # The next run plays the new version (revalidated: 304).
        first = []

        def watch2(screen, master):
            if not first and painted(screen):
                first.append(painted(screen))
                os.write(master, b'q')
        res = ptywatch.run([url, '--loop', '0'], watch=watch2, env=xdg(env), timeout=40)
        assert first == [{GREEN}] and res.status == 0
    finally:
        os.unlink(path)


def test_quitting_does_not_wait_for_a_newer_version_still_arriving(server, env, root):
    path = os.path.join(root, 'slow.gif')
    write_gif(path, 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=0)
    try:
        url = server.url('/f/slow.gif')
        assert run(['info', url], env).returncode == 0
        [entry] = entries(env)
        old = open(path, 'rb').read()
        write_gif(path, 40, 20, [[GREEN] * 800, [BLUE] * 800], delay_cs=5, loops=0)
        server.hold_200 = True              # the new body's headers come, the bytes never do
        state = {}

        def watch(screen, master):
            if 'quit' not in state and 'cached, newer version arriving' in screen.display[-1]:
                state['quit'] = True
                os.write(master, b'q')
        res = ptywatch.run([url, '--loop', '0', '--status'], watch=watch, env=xdg(env), timeout=40)
        assert state.get('quit') and res.status == 0, res.output[-300:]
        assert b'newer version, which had not finished arriving (the next run downloads it)' in res.output
        assert body_of(entry) == old        # the cached copy is untouched
    finally:
        os.unlink(path)


def test_unreachable_server_while_playing_a_stale_copy(root, env):
    s = Server(root)
    url = s.url('/f/two.gif')
    assert run(['info', url], env).returncode == 0
    s.close()
    res = ptywatch.run([url, '--loop', '1'], env=xdg(env), timeout=40)
    assert res.status == 0, res.output[-300:]
    assert RED in ptywatch.colours_on(res.screen) or BLUE in ptywatch.colours_on(res.screen)
    assert b'warning: server unreachable' in res.output and b'played the cached copy' in res.output


def test_error_status_while_revalidating_is_reported_after_playing(server, env, root):
    path = os.path.join(root, 'gone.gif')
    shutil.copy(os.path.join(root, 'two.gif'), path)
    url = server.url('/f/gone.gif')
    try:
        assert run(['info', url], env).returncode == 0
    finally:
        os.unlink(path)                     # the server now answers 404
    res = ptywatch.run([url, '--loop', '1'], env=xdg(env), timeout=40)
    assert res.status == 0, res.output[-300:]
    assert b'warning: could not revalidate the cached copy (HTTP 404' in res.output
    assert b'played it anyway' in res.output
    assert len(entries(env)) == 1           # left as it was


def test_must_revalidate_entry_waits_for_the_304(server, env):
    # The server forbids showing a stale copy unconfirmed: the first frame waits for the 304.
    url = server.url('/f/two.gif?mustrevalidate=1')
    assert run(['info', url], env).returncode == 0
    server.hold_304 = True
    seen, before_release = [], []

    def release_when_held():
        if server.holding_304.wait(30):
            before_release.append(bool(seen))
        server.release_304()
    t = threading.Thread(target=release_when_held)
    t.start()

    def watch(screen, master):
        if not seen and painted(screen):
            seen.append(True)
            os.write(master, b'q')
    res = ptywatch.run([url, '--loop', '0'], watch=watch, env=xdg(env), timeout=40)
    t.join()
    assert before_release == [False]        # held: nothing was on screen
    assert seen and res.status == 0


# --- freshness from Expires; s-maxage and Vary ----------------------------------------------

@pytest.mark.parametrize('query, fresh', [
    ('expires=600', True),              # Expires ten minutes after the server's Date
    ('expires=-60', False),             # already past
    ('expires=0', False),               # not a date: expired (RFC 9111 §5.3)
    ('expires=600&maxage=0', False),    # max-age wins over Expires
    ('smaxage=600', False),             # for shared caches only: this one is private
    ('maxage=600&vary=Accept-Encoding', True),  # the same request headers every time: a match
])
def test_freshness_from_the_response_headers(server, env, query, fresh):
    url = server.url('/f/two.gif?' + query)
    assert run(['info', url], env).returncode == 0
    assert len(entries(env)) == 1
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    if fresh:
        assert len(server.requests) == 1
    else:
        assert [q['status'] for q in server.requests] == [200, 304]


def test_vary_star_is_not_stored(server, env):
    url = server.url('/f/two.gif?maxage=600&vary=*')
    assert run(['info', url], env).returncode == 0
    assert entries(env) == []
    assert run(['info', url], env).returncode == 0
    assert [q['status'] for q in server.requests] == [200, 200]
