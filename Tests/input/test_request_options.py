"""Request options (--header, --user-agent, --referer) against a loopback server: what the server
receives (also when a cached copy is revalidated), a header-gated resource, cache entries kept
apart per header set, credentials never cached, hostile header input refused, and a download
stopped by q really closing its connection."""
import os, shutil, tempfile
import pytest
import ptyharness as h
import ptywatch
from gifwriter import write_gif
from cacheruns import entries, run

RED, BLUE = (250, 0, 0), (0, 0, 250)


@pytest.fixture(scope='module')
def root():
    d = tempfile.mkdtemp(prefix='animplay-request-')
    write_gif(os.path.join(d, 'two.gif'), 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=1)
    # Frames of noise: a first frame of ~70 KB, then 9 more (about 700 KB in all).
    import random
    rnd = random.Random(23)
    pal = [(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(256)]
    frames = [[pal[rnd.randrange(256)] for _ in range(256 * 256)] for _ in range(10)]
    write_gif(os.path.join(d, 'big.gif'), 256, 256, frames, delay_cs=5, loops=0)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def one_line(r):
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


OPTIONS = ['--header', 'X-Token: abc 123', '--header', 'X-Two:2', '--user-agent', 'tester/7 (loopback)',
           '--referer', 'https://example.com/page']


def test_headers_user_agent_and_referer_reach_the_server_also_on_revalidation(server, env):
    url = server.url('/f/two.gif')
    r = run(['info'] + OPTIONS + [url], env)
    assert r.returncode == 0, r.stderr
    first = server.requests[0]['headers']
    assert first['X-Token'] == 'abc 123' and first['X-Two'] == '2'
    assert first['User-Agent'] == 'tester/7 (loopback)' and first['Referer'] == 'https://example.com/page'
    # No max-age: the second run revalidates the entry with the same options.
    r = run(['info'] + OPTIONS + [url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    second = server.requests[1]
    assert second['status'] == 304 and second['headers'].get('If-None-Match', '').startswith('"')
    for k in ('X-Token', 'X-Two', 'User-Agent', 'Referer'):
        assert second['headers'][k] == first[k]


def test_background_revalidation_sends_the_same_options(server, env):
    url = server.url('/f/two.gif')
    assert run(['info'] + OPTIONS + [url], env).returncode == 0
    res = ptywatch.run(OPTIONS + [url, '--loop', '1'], env={'XDG_CACHE_HOME': env['XDG_CACHE_HOME']}, timeout=40)
    assert res.status == 0, res.output[-300:]
    assert len(server.requests) == 2, server.requests
    second = server.requests[1]
    assert second['status'] == 304
    assert second['headers']['X-Token'] == 'abc 123' and second['headers']['User-Agent'] == 'tester/7 (loopback)'
    assert second['headers']['Referer'] == 'https://example.com/page'


def test_default_user_agent_without_options(server, env):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    got = server.requests[0]['headers']
    assert got['User-Agent'].startswith('animplay/') and 'Referer' not in got and 'X-Token' not in got


def test_header_gated_resource_plays_with_the_header_and_fails_clearly_without(server, env):
    url = server.url('/f/two.gif?need=X-Key:s3cret&maxage=600')
    r = run(['info', '--header', 'X-Key: s3cret', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout, r.stderr
    # The answer is cached (fresh for 600 s) under the header set: a run without the header
    # must not read it, and gets the server's 403.
    r = run(['info', url], env)
    assert r.returncode == 5
    line = one_line(r)
    assert 'HTTP 403' in line and 's3cret' not in line.replace(url, '')
    assert server.requests[-1]['status'] == 403
    # A wrong value is another header set: asked again, refused.
    r = run(['info', '--header', 'X-Key: wrong', url], env)
    assert r.returncode == 5 and 'HTTP 403' in one_line(r)
    # The right one again: from the cache, no request.
    n = len(server.requests)
    r = run(['info', '--header', 'X-Key: s3cret', url], env)
    assert r.returncode == 0 and len(server.requests) == n


def test_cache_entries_are_kept_apart_per_header_set(server, env):
    url = server.url('/f/two.gif?maxage=600')
    sets = [[], ['--header', 'X-Token: a'], ['--header', 'X-Token: b'], ['--user-agent', 'other/1'],
            ['--referer', 'https://a.example/'], ['--header', 'X-Token: a', '--header', 'X-Other: 1']]
    for i, s in enumerate(sets):
        assert run(['info'] + s + [url], env).returncode == 0
        assert len(server.requests) == i + 1, f'{s} read another set\'s entry'
    assert len(entries(env)) == len(sets)
    # Each set reads its own entry again: no request. Header names are case-insensitive, and the
    # order of different headers does not matter.
    for s in sets + [['--header', 'x-token: a'], ['--header', 'X-Other: 1', '--header', 'X-Token: a']]:
        assert run(['info'] + s + [url], env).returncode == 0
    assert len(server.requests) == len(sets)
    # `cache info` names the headers of each entry, never their values.
    info = run(['cache', 'info'], env)
    assert info.returncode == 0
    text = info.stdout.decode()
    assert '(with x-token)' in text and '(with user-agent)' in text and '(with referer)' in text
    assert 'other/1' not in text and 'a.example' not in text
    # `cache remove URL` removes the URL's entries of every header set.
    assert run(['cache', 'remove', url], env).returncode == 0
    assert entries(env) == []


@pytest.mark.parametrize('credential', ['Authorization: Bearer tok-9f8e7d', 'Cookie: session=tok-9f8e7d',
                                        'authorization: Basic dG9rLTlmOGU3ZA=='])
def test_requests_with_credentials_are_not_cached(server, env, credential):
    url = server.url('/f/two.gif?maxage=600')
    for i in range(2):
        r = run(['info', '--header', credential, url], env)
        assert r.returncode == 0 and b'tok-9f8e7d' not in r.stdout + r.stderr
        assert len(server.requests) == i + 1          # every run asks
    assert entries(env) == []
    # A run without credentials does not find an answer given to one with them.
    assert run(['info', url], env).returncode == 0 and len(server.requests) == 3
    assert run(['cache', 'info'], env).stdout.count(b'tok-9f8e7d') == 0


@pytest.mark.parametrize('args, named', [
    (['--header', 'X-Evil\x1b]0;title\x07: v'], 'X-Evil\\x1B]0;title\\x07'),     # not a token; shown escaped
    (['--header', 'X-Split: a\r\nInjected: 1'], 'X-Split'),                      # CR LF in the value
    (['--header', 'X-Lf: a\nInjected: 1'], 'X-Lf'),
    (['--header', 'X-Tab\t: v'], 'X-Tab\\x09'),
    (['--header', 'Bad Name: v'], 'Bad Name'),
    (['--header', ': empty name'], "''"),
    (['--header', 'no colon here secret'], 'header 1 has no colon'),
    (['--header', 'If-None-Match: "x"'], 'If-None-Match'),
    (['--header', 'Content-Length: 5'], 'Content-Length'),
    (['--user-agent', 'ua\r\nX-Injected: 1'], 'user agent'),
    (['--referer', 'https://x/\x00'[:-1] + '\x7f'], 'referer'),
])
def test_hostile_header_input_is_a_usage_error(server, env, args, named):
    url = server.url('/f/two.gif')
    for cmd in (['info'], ['dump', '-o', '/nonexistent-dir'], ['convert', '-o', '/nonexistent.webp'], []):
        r = run(cmd + args + [url], env)
        assert r.returncode == 64, (cmd, r.stderr)
        err = r.stderr.decode()
        assert named in err, err
        assert '\x1b' not in err and '\r' not in err and '\x07' not in err and '\x7f' not in err
        assert 'Injected' not in err and 'secret' not in err
    assert server.requests == []


def test_options_are_refused_alike_by_play_info_dump_and_convert(server, env, tmp_path):
    url = server.url('/f/two.gif')
    assert run(['info', '--header', 'X-A: 1', url], env).returncode == 0
    assert run(['dump', '--header', 'X-A: 2', '--no-cache', url, '-o', str(tmp_path / 'd')], env).returncode == 0
    assert run(['convert', '--header', 'X-A: 3', '--no-cache', url, '-o', str(tmp_path / 'o.gif')], env).returncode == 0
    assert [r['headers'].get('X-A') for r in server.requests] == ['1', '2', '3']


def test_q_while_downloading_closes_the_connection(server, env):
    """The first frame shows while the rest trickles in at 20 KB/s; q ends the process and the
    server sees its connection closed before the body was sent."""
    url = server.url('/f/big.gif?rate=20000')
    seen = []

    def watch(screen, master):
        if not seen and ptywatch.colours_on(screen):
            seen.append(server.sending)
            os.write(master, b'q')
    res = ptywatch.run(['--no-cache', '--header', 'X-Token: q', url], watch=watch, timeout=60)
    assert seen and res.status == 0, res.output[-300:]
    assert server.aborted_event.wait(10), 'the server never saw the connection close'
    [gone] = server.aborted
    size = os.path.getsize(os.path.join(server.root, 'big.gif'))
    assert gone['path'] == '/f/big.gif' and gone['sent'] < size and gone['headers']['X-Token'] == 'q'
    assert not any(r['path'].startswith('/f/big.gif') and r['sent'] == size for r in server.requests)


def test_q_before_the_first_frame_closes_the_connection(server, env):
    """A trickle that never makes a frame: q on the waiting line ends the process at once, and the
    server's next write finds the connection closed."""
    url = server.url('/trickle?rate=50&head=64')

    def waiting(_new, everything):
        return b'waiting for the first frame' in everything
    r = h.run(['--no-cache', '--header', 'X-Token: w', url], steps=[(waiting, b'q')], timeout=30,
              env={'XDG_CACHE_HOME': env['XDG_CACHE_HOME']})
    assert r.status == 0 and r.stty_before == r.stty_after
    import time
    deadline = time.monotonic() + 10          # the server writes a byte every 20 ms
    while time.monotonic() < deadline and not any(q['path'] == '/trickle' for q in server.requests):
        time.sleep(0.02)
    [gone] = [q for q in server.requests if q['path'] == '/trickle']
    assert gone['sent'] < 1 << 20 and gone['headers']['X-Token'] == 'w'


def test_credentials_stay_with_the_first_host_across_a_redirect(server, root, env):
    from httpserver import Server
    other = Server(root)                     # another port: another origin
    try:
        target = other.url('/f/two.gif').replace('127.0.0.1', 'localhost')
        r = run(['info', '--header', 'Authorization: Bearer tok-1', '--header', 'Cookie: c=1',
                 '--header', 'X-Token: t', '--referer', 'https://ref.example/', server.url('/redirect?to=' + target)], env)
        assert r.returncode == 0, r.stderr
        [got] = other.requests
        assert 'Authorization' not in got['headers'] and 'Cookie' not in got['headers']
        assert got['headers']['X-Token'] == 't' and got['headers']['Referer'] == 'https://ref.example/'
        assert server.requests[0]['headers']['Authorization'] == 'Bearer tok-1'
    finally:
        other.close()
