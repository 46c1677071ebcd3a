#!/usr/bin/env python3
"""Time to first frame for a URL served at 250 KB/s from 127.0.0.1, and peak RSS while streaming.

Serves Benchmarks/data (make-inputs.sh) with Tests/input/httpserver.py, rate-limited, and runs
each command in a 120x40 pty through Benchmarks/ptyrun.py (or $PTYRUN). The first frame
is on screen when half of the 120x40 cells show a 24-bit colour (the output is replayed through
pyte, chunk by chunk as ptyrun timed it), whatever glyphs the program draws them with: a whole
picture, not its first rows, and not the second frame either (runs of one colour make a frame of
the test GIF cost fewer colour changes than a count would need). Wall, CPU and peak RSS are
ptyrun's. Each command is cut off at --timeout seconds (the animation would otherwise loop forever).

The cache runs (second run: the server sent no max-age, so the entry is revalidated, 304;
fresh: the server sent max-age=600) and the
same file from disk run --repeat times (the first to its end, the others cut at 3 s) and the
first frame is reported as median (min-max).

usage: Benchmarks/url-bench.py [--rate BYTES/S] [--timeout S] [--bin PATH] [--repeat N] [--only-cache]
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile
import pyte
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'Tests', 'input'))
from httpserver import Server

ap = argparse.ArgumentParser()
ap.add_argument('--rate', type=int, default=250_000)
ap.add_argument('--timeout', type=float, default=15)
ap.add_argument('--bin', default=os.path.join(HERE, '..', '.build', 'release', 'animplay'))
ap.add_argument('--repeat', type=int, default=5)
ap.add_argument('--only-cache', action='store_true', help='skip timg, chafa and the large file')
a = ap.parse_args()
PTYRUN = os.environ.get('PTYRUN', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
COLS, ROWS = 120, 40


def first_frame(save, times):
    """Seconds until half of the screen's cells show a 24-bit colour."""
    data = open(save, 'rb').read()
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    at = 0
    for line in open(times):
        t, n = line.split()
        n = int(n)
        stream.feed(data[at:n]); at = n
        painted = sum(1 for y in range(ROWS) for ch in screen.buffer[y].values()
                      if len(ch.bg) == 6 or len(ch.fg) == 6)
        if painted * 2 >= COLS * ROWS:
            return float(t)
    return None


def bench(name, cmd, env=None, timeout=None, quiet=False):
    tmp = tempfile.mkdtemp(prefix='urlbench-')
    save, times = os.path.join(tmp, 'out'), os.path.join(tmp, 'times')
    args = [sys.executable, PTYRUN, '--cols', str(COLS), '--rows', str(ROWS),
            '--timeout', str(timeout or a.timeout), '--save', save, '--times', times]
    for k, v in (env or {}).items():
        args += ['--env', f'{k}={v}']
    r = subprocess.run(args + ['--'] + cmd, capture_output=True, text=True)
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    rep['first_frame_s'] = first_frame(save, times)
    rep['name'] = name
    shutil.rmtree(tmp, ignore_errors=True)
    if not quiet:
        print(json.dumps(rep), flush=True)
    return rep


def repeated(name, cmd, env=None):
    """`cmd` once to its end (wall, CPU, RSS: printed), then cut at 3 s --repeat - 1 more
    times: first frame median (min-max) over all."""
    reps = [bench(name, cmd, env, timeout=30)]
    for _ in range(a.repeat - 1):
        reps.append(bench(name, cmd, env, timeout=3, quiet=True))
    ff = sorted(r['first_frame_s'] for r in reps if r['first_frame_s'] is not None)
    out = {'name': name, 'runs': len(reps), 'first_frame_s_median': statistics.median(ff) if ff else None,
           'first_frame_s_min': ff[0] if ff else None, 'first_frame_s_max': ff[-1] if ff else None}
    print(json.dumps(out), flush=True)
    return out


data = os.path.join(HERE, 'data')
medium = 'testsrc2-640x360x150.gif'
large = 'testsrc2-1280x720x300.gif'
if not os.path.exists(os.path.join(data, medium)):
    sys.exit('run Benchmarks/make-inputs.sh first')
server = Server(data)
cache = tempfile.mkdtemp(prefix='urlbench-cache-')
env = {'XDG_CACHE_HOME': cache}
url = server.url(f'/f/{medium}?rate={a.rate}')
try:
    bench('animplay (first run, download)', [a.bin, url, '--loop', '1'], env, timeout=30)
    n = len(server.requests)
    repeated('animplay (second run, cache: stale entry, revalidated with a 304)', [a.bin, url, '--loop', '1'], env)
    second = server.requests[n:]
    print(json.dumps({'second_run_requests': sorted({(r['status'], r['sent']) for r in second})}))
    furl = server.url(f'/f/{medium}?rate={a.rate}&maxage=600')
    bench('animplay (first run, max-age=600)', [a.bin, furl, '--loop', '1'], env, timeout=30, quiet=True)
    n = len(server.requests)
    repeated('animplay (second run, cache: fresh entry, max-age)', [a.bin, furl, '--loop', '1'], env)
    print(json.dumps({'fresh_run_requests': len(server.requests) - n}))
    repeated('animplay FILE (the same GIF on disk)', [a.bin, os.path.join(data, medium), '--loop', '1'])
    if a.only_cache:
        sys.exit(0)
    if shutil.which('timg'):
        bench('timg URL', ['timg', url])
    if shutil.which('chafa') and shutil.which('curl'):
        bench('curl -s URL | chafa -', ['sh', '-c', f'curl -s "{url}" | chafa -'])
    lurl = server.url(f'/f/{large}?rate={a.rate * 8}')
    bench('animplay large.gif streamed (2 MB/s)', [a.bin, '--no-cache', lurl, '--loop', '1'], env, timeout=60)
finally:
    server.close()
    shutil.rmtree(cache, ignore_errors=True)
