"""Hostile servers on 127.0.0.1 (httpserver.py), one per problem of issue 18: numbers that
overflow, escape sequences in what a server says, credentials in URLs, pages that are not
images, metadata too long or with control characters, trickles and stalls, redirects to other
schemes on a libcurl that refuses the protocol string options. Each test has its own cache."""
import os, shutil, socket, subprocess, tempfile, time
import pytest
import ptywatch
from gifwriter import write_gif
from cacheruns import entries, run

RED, BLUE, GREEN, WHITE = (250, 0, 0), (0, 0, 250), (0, 200, 0), (250, 250, 250)


@pytest.fixture(scope='module')
def root():
    d = tempfile.mkdtemp(prefix='animplay-hostile-')
    write_gif(os.path.join(d, 'two.gif'), 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=1)
    write_gif(os.path.join(d, 'four.gif'), 40, 20, [[c] * 800 for c in (RED, BLUE, GREEN, WHITE)],
              delay_cs=5, loops=1)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def one_line(r):
    lines = r.stderr.decode('utf-8', 'replace').strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def no_controls(b):
    """No C0 control but newline, no DEL, no C1 (as UTF-8 or raw) in output meant for people."""
    text = b.decode('utf-8', 'replace')
    bad = [c for c in text if (ord(c) < 32 and c != '\n') or ord(c) == 0x7F or 0x80 <= ord(c) <= 0x9F]
    return not bad


# --- 1: numbers ------------------------------------------------------------------------------

def test_a_huge_age_header_does_not_crash_later_runs(server, env):
    url = server.url('/f/two.gif?maxage=60&age=9223372036854775807')
    assert run(['info', url], env).returncode == 0
    assert len(entries(env)) == 1
    for _ in range(2):
        r = run(['info', url], env)
        assert r.returncode == 0 and b'frames    2' in r.stdout, r.stderr
    # Older than its max-age from the start: every run asks the server (a 304 here).
    assert [q['status'] for q in server.requests] == [200, 304, 304]


@pytest.mark.parametrize('field,value', [('stored', b'-9223372036854775808'), ('stored', b'99999999999999999999'),
                                         ('age', b'9223372036854775807'), ('size', b'-5')])
def test_a_hand_edited_entry_is_a_miss_not_a_crash(server, env, field, value):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    [entry] = entries(env)
    data = open(entry, 'rb').read()
    head, _, body = data.partition(b'\n\n')
    f = field.encode()
    lines = [l for l in head.split(b'\n') if not l.startswith(f + b' ')]
    lines.insert(2, f + b' ' + value)
    open(entry, 'wb').write(b'\n'.join(lines) + b'\n\n' + body)
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout, r.stderr
    if field != 'age':      # an entry that does not parse is a miss: downloaded again
        assert [q['status'] for q in server.requests] == [200, 200]


# --- 3: escape sequences from the server -----------------------------------------------------

EVIL = '\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f'


def test_reason_phrase_and_content_type_are_escaped(server, env):
    from urllib.parse import quote
    r = run(['info', server.url('/page?status=404&reason=' + quote('Gone' + EVIL))], env)
    assert r.returncode == 5 and no_controls(r.stderr), r.stderr
    assert '\\x1B]0;pwned\\x07' in one_line(r)
    r = run(['info', server.url('/page?type=' + quote('text/html' + EVIL))], env)
    assert r.returncode == 3 and no_controls(r.stderr), r.stderr
    assert 'not an image' in one_line(r) and '\\x1B[2J' in one_line(r)


def test_file_names_are_escaped_in_errors_and_info(tmp_path, root, env):
    bad = tmp_path / ('x' + EVIL.replace('/', '') + '.gif')
    bad.write_bytes(b'GIF89a' + bytes(3))
    r = run(['info', str(bad)], env)
    assert r.returncode != 0 and no_controls(r.stderr) and b'\\x1B' in r.stderr
    good = tmp_path / ('y' + EVIL.replace('/', '') + '.gif')
    shutil.copy(os.path.join(root, 'two.gif'), good)
    r = run(['info', str(good)], env)
    assert r.returncode == 0 and no_controls(r.stdout) and b'\\x1B' in r.stdout


# --- 5: credentials ---------------------------------------------------------------------------

def test_passwords_are_masked_and_not_stored(server, env):
    url = f'http://alice:s3cret@127.0.0.1:{server.port}/f/two.gif?maxage=600'
    r = run(['info', url], env)
    assert r.returncode == 0
    assert server.requests[0]['headers'].get('Authorization', '').startswith('Basic ')   # still sent
    [entry] = entries(env)
    assert b's3cret' not in open(entry, 'rb').read() and b'alice:***@' in open(entry, 'rb').read()
    assert b's3cret' not in r.stdout + r.stderr
    # Keyed without the password: the same URL with another password finds the entry.
    r = run(['info', url.replace('s3cret', 'other')], env)
    assert r.returncode == 0 and len(server.requests) == 1
    r = run(['info', f'http://alice:s3cret@127.0.0.1:{server.port}/status/404'], env)
    assert r.returncode == 5 and 'alice:***@' in one_line(r) and b's3cret' not in r.stderr
    r = run(['cache', 'info'], env)
    assert b'alice:***@' in r.stdout and b's3cret' not in r.stdout


# --- 7: a page that is not an image -----------------------------------------------------------

def test_a_page_sent_as_200_is_never_stored(server, env):
    for _ in range(3):
        r = run(['info', server.url('/page?maxage=3600')], env)
        assert r.returncode == 3 and 'not an image' in one_line(r)
    assert entries(env) == []
    assert len(server.requests) == 3        # every run asks again


# --- 8, 9: metadata too long, control characters ----------------------------------------------

def test_a_long_etag_and_a_long_url_are_usable(server, env):
    url = server.url('/f/two.gif?etag=%22' + 'e' * 20000 + '%22&pad=' + 'p' * 17000)
    assert run(['info', url], env).returncode == 0
    assert len(entries(env)) == 1
    r = run(['info', url], env)
    assert r.returncode == 0
    assert len(entries(env)) == 1 and server.requests[1]['status'] == 304   # read back and revalidated


def test_a_cr_in_an_etag_is_never_sent_back(server, env):
    url = server.url('/f/two.gif?etag=%22a%0DX-Injected:%201%22')
    for _ in range(2):
        assert run(['info', url], env).returncode == 0
    assert entries(env) == []
    assert all('If-None-Match' not in q['headers'] and 'X-Injected' not in q['headers'] for q in server.requests)


# --- 12: only http and https, also on a libcurl without the protocol string options ----------

FAKE_CURL = r'''
/* libcurl as old as 7.81 (Ubuntu 22.04): CURLOPT_PROTOCOLS_STR and CURLOPT_REDIR_PROTOCOLS_STR
   are unknown. Preloaded under libcurl's soname, so the player's dlopen("libcurl.so.4") gets
   it; every call goes to the real library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
static void *real(const char *name) {
    static void *lib;
    if (!lib) lib = dlopen(REAL_CURL, RTLD_NOW | RTLD_LOCAL);
    return dlsym(lib, name);
}
typedef void *(*fn)();
int curl_global_init(long f) { return ((int (*)(long))real("curl_global_init"))(f); }
void *curl_easy_init(void) { return ((void *(*)(void))real("curl_easy_init"))(); }
void curl_easy_cleanup(void *h) { ((void (*)(void *))real("curl_easy_cleanup"))(h); }
int curl_easy_perform(void *h) { return ((int (*)(void *))real("curl_easy_perform"))(h); }
const char *curl_easy_strerror(int c) { return ((const char *(*)(int))real("curl_easy_strerror"))(c); }
void *curl_slist_append(void *l, const char *s) { return ((void *(*)(void *, const char *))real("curl_slist_append"))(l, s); }
void curl_slist_free_all(void *l) { ((void (*)(void *))real("curl_slist_free_all"))(l); }
int curl_easy_getinfo(void *h, int i, void *p) { return ((int (*)(void *, int, void *))real("curl_easy_getinfo"))(h, i, p); }
int curl_easy_setopt(void *h, int o, ...) {
    va_list ap; va_start(ap, o); void *v = va_arg(ap, void *); va_end(ap);
    if (o == 10318 || o == 10319) return 48;   /* *_PROTOCOLS_STR: CURLE_UNKNOWN_OPTION */
    return ((int (*)(void *, int, void *))real("curl_easy_setopt"))(h, o, v);
}
'''


@pytest.fixture(scope='module')
def old_curl(tmp_path_factory):
    cc = shutil.which('cc')
    assert cc, 'a C compiler is needed (build-essential)'
    out = subprocess.run(['sh', '-c', 'ldconfig -p | grep "libcurl.so.4 " | head -1'], capture_output=True, text=True).stdout
    real = out.strip().split(' => ')[-1]
    assert os.path.exists(real), out
    d = tmp_path_factory.mktemp('oldcurl')
    src = d / 'oldcurl.c'
    src.write_text(FAKE_CURL)
    lib = d / 'liboldcurl.so'
    subprocess.run([cc, '-shared', '-fPIC', '-O1', f'-DREAL_CURL="{real}"', '-Wl,-soname,libcurl.so.4',
                    '-o', str(lib), str(src), '-ldl'], check=True)
    return str(lib)


def test_a_redirect_to_ftp_is_refused_without_the_protocol_strings(server, env, old_curl):
    # Something listening where the redirect points: a followed redirect would connect to it.
    listener = socket.socket(); listener.bind(('127.0.0.1', 0)); listener.listen(4); listener.settimeout(0.1)
    port = listener.getsockname()[1]
    e = dict(env, LD_PRELOAD=old_curl)
    # The wrapper is in use: the string options are refused (checked through the fallback's effect).
    r = run(['info', server.url(f'/redirect?to=ftp://127.0.0.1:{port}/x.gif')], e)
    assert r.returncode == 5 and 'only http and https' in one_line(r), r.stderr
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()
    r = run(['info', server.url('/f/two.gif')], e)
    assert r.returncode == 0 and b'frames    2' in r.stdout


# --- 13, 22.5: trickles and stalls -------------------------------------------------------------

@pytest.mark.parametrize('stall', [1, 3])
def test_stall_timeout_waits_what_it_says(server, env, stall):
    t0 = time.monotonic()
    r = run(['info', '--no-cache', '--stall-timeout', str(stall), server.url('/trickle?rate=2')], env)
    took = time.monotonic() - t0
    assert r.returncode == 5 and 'stalled' in one_line(r) and f'{stall} s' in one_line(r), r.stderr
    # libcurl's own rule took S + 6 s; the limit itself plus startup and one progress tick.
    assert stall <= took < stall + 2.5, took


def test_the_defaults_end_a_trickle_within_a_minute(server, env):
    t0 = time.monotonic()
    r = run(['info', '--no-cache', server.url('/trickle?rate=2')], env, timeout=120)
    took = time.monotonic() - t0
    assert r.returncode == 5 and 'stalled' in one_line(r)
    assert took < 60, took


def test_max_time_ends_a_slow_but_steady_download(server, env):
    r = run(['info', '--no-cache', '--max-time', '2', server.url('/trickle?rate=4000')], env)
    assert r.returncode == 5 and '--max-time' in one_line(r), r.stderr


def test_a_stall_after_frames_were_shown_is_a_warning(server, root):
    size = os.path.getsize(os.path.join(root, 'four.gif'))
    shutil.copy(os.path.join(root, 'four.gif'), os.path.join(root, 'trickle.gif'))
    try:
        res = ptywatch.run([server.url(f'/trickle?rate=1&head={size // 2}'), '--stall-timeout', '1', '--no-cache'],
                           timeout=40)
    finally:
        os.remove(os.path.join(root, 'trickle.gif'))
    assert res.status == 0, res.output[-400:]
    text = res.output.decode('utf-8', 'replace')
    assert 'warning' in text and 'stalled' in text
    assert RED in ptywatch.colours_on(res.screen) or BLUE in ptywatch.colours_on(res.screen)


# --- 15: one cause, one line -------------------------------------------------------------------

def warning_lines(output):
    return [l for l in output.decode('utf-8', 'replace').splitlines() if 'warning' in l]


def test_a_dropped_connection_is_one_warning(server, root, env):
    size = os.path.getsize(os.path.join(root, 'four.gif'))
    res = ptywatch.run([server.url(f'/f/four.gif?drop={size * 3 // 4}'), '--loop', '1'],
                       env=dict(env, XDG_CACHE_HOME=env['XDG_CACHE_HOME']), timeout=40)
    assert res.status == 0, res.output[-400:]
    w = warning_lines(res.output)
    assert len(w) == 1 and 'input ended early' in w[0], w


def test_a_truncated_file_is_one_warning(root, tmp_path, env):
    data = open(os.path.join(root, 'four.gif'), 'rb').read()
    cut = tmp_path / 'cut.gif'
    cut.write_bytes(data[:len(data) * 3 // 4])
    res = ptywatch.run([str(cut), '--loop', '1'], timeout=40)
    assert res.status == 0, res.output[-400:]
    w = warning_lines(res.output)
    assert len(w) == 1 and 'truncated' in w[0], w
    r = run(['dump', str(cut), '-o', str(tmp_path / 'frames')], env)
    assert r.returncode == 0 and len(warning_lines(r.stderr)) == 1, r.stderr
