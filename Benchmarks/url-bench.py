#!/usr/bin/env python3
"""Time to first frame for a URL served at 250 KB/s from 127.0.0.1, and peak RSS while streaming.

Serves Benchmarks/data (make-inputs.sh) with Tests/input/httpserver.py, rate-limited, and runs
each command in a 120x40 pty through /work/shared/tools/ptyrun.py (or $PTYRUN). The first frame
is when the output first holds 1000 24-bit colour changes (SGR 38;2 / 48;2: a 120x40 frame of
half blocks needs thousands), whatever glyphs the program draws them with; wall, CPU and peak RSS are ptyrun's. Each command is cut off at
--timeout seconds (the animation would otherwise loop forever).

usage: Benchmarks/url-bench.py [--rate BYTES/S] [--timeout S] [--bin PATH]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'Tests', 'input'))
from httpserver import Server

ap = argparse.ArgumentParser()
ap.add_argument('--rate', type=int, default=250_000)
ap.add_argument('--timeout', type=float, default=15)
ap.add_argument('--bin', default=os.path.join(HERE, '..', '.build', 'release', 'animplay'))
a = ap.parse_args()
PTYRUN = os.environ.get('PTYRUN', '/work/shared/tools/ptyrun.py')
COLOUR = re.compile(rb'[34]8;2;')


def first_frame(save, times):
    data = open(save, 'rb').read()
    marks = [m.end() for m in COLOUR.finditer(data)]
    if len(marks) < 1000:
        return None
    need = marks[999]
    for line in open(times):
        t, n = line.split()
        if int(n) >= need:
            return float(t)
    return None


def bench(name, cmd, env=None, timeout=None):
    tmp = tempfile.mkdtemp(prefix='urlbench-')
    save, times = os.path.join(tmp, 'out'), os.path.join(tmp, 'times')
    args = [sys.executable, PTYRUN, '--timeout', str(timeout or a.timeout), '--save', save, '--times', times]
    for k, v in (env or {}).items():
        args += ['--env', f'{k}={v}']
    r = subprocess.run(args + ['--'] + cmd, capture_output=True, text=True)
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    rep['first_frame_s'] = first_frame(save, times)
    rep['name'] = name
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(rep), flush=True)
    return rep


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
    bench('animplay (second run, cache)', [a.bin, url, '--loop', '1'], env, timeout=30)
    second = server.requests[n:]
    print(json.dumps({'second_run_requests': [(r['status'], r['sent']) for r in second]}))
    if shutil.which('timg'):
        bench('timg URL', ['timg', url])
    if shutil.which('chafa') and shutil.which('curl'):
        bench('curl -s URL | chafa -', ['sh', '-c', f'curl -s "{url}" | chafa -'])
    lurl = server.url(f'/f/{large}?rate={a.rate * 8}')
    bench('animplay large.gif streamed (2 MB/s)', [a.bin, '--no-cache', lurl, '--loop', '1'], env, timeout=60)
finally:
    server.close()
    shutil.rmtree(cache, ignore_errors=True)
