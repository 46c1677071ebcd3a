#!/usr/bin/env python3
"""--fill benchmark: the picture as large as the window, side by side in one run.

Plays Benchmarks/data's medium and large GIFs (ffmpeg testsrc2, 640x360x150 and 1280x720x300 at
25 fps: Benchmarks/make-inputs.sh) in a pseudo-terminal of 120x40 cells reporting 1200x800
pixels (Benchmarks/ptyrun.py), 1 and 3 plays, with
  animplay --fill --graphics kitty   (native frames uploaded once, kitty enlarges: c=/r=)
  chafa -f kitty --scale max
  timg -pk
  animplay --fill --graphics sixel   (frames enlarged and encoded here)
  chafa -f sixel --scale max
and prints wall, CPU (user+sys), peak RSS, bytes written and the time to the first image, with
the load average before and after (the machine may be shared).

usage: Benchmarks/fill-bench.py [--animplay PATH] [--only SUBSTRING] [--files medium,large] [--plays 1,3]
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PTYRUN = os.environ.get('PTYRUN', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
FILES = {'medium': ('testsrc2-640x360x150.gif', 6.0), 'large': ('testsrc2-1280x720x300.gif', 12.0)}
COLS, ROWS = 120, 40
IMAGE = re.compile(rb'\x1b_G[^;\x1b]*a=[Tt]|\x1bP[0-9;]*q')


def players(animplay, nominal, plays):
    d = f'--duration={nominal * plays:.3f}'
    return [
        ('animplay kitty --fill', [animplay, '--graphics', 'kitty', '--fill', '--loop', str(plays)]),
        ('chafa kitty --scale max', ['chafa', '-f', 'kitty', '--scale=max', f'--size={COLS}x{ROWS}', d]),
        ('timg -pk', ['timg', '-pk', f'-g{COLS}x{ROWS}', f'--loops={plays}']),
        ('animplay sixel --fill', [animplay, '--graphics', 'sixel', '--fill', '--loop', str(plays)]),
        ('chafa sixel --scale max', ['chafa', '-f', 'sixel', '--scale=max', f'--size={COLS}x{ROWS}', d]),
    ]


def run(cmd, timeout):
    with tempfile.TemporaryDirectory() as d:
        save, times = os.path.join(d, 'out'), os.path.join(d, 'times')
        env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', ANIMPLAY_KITTY_MEDIUM='direct')
        p = subprocess.run([sys.executable, PTYRUN, '--sixel', '--kitty', '--cols', str(COLS), '--rows', str(ROWS),
                            '--xpixel', str(COLS * 10), '--ypixel', str(ROWS * 20), '--timeout', str(timeout),
                            '--save', save, '--times', times, '--'] + cmd,
                           capture_output=True, text=True, env=env)
        res = json.loads(p.stdout.strip().splitlines()[-1])
        out = open(save, 'rb').read()
        m = IMAGE.search(out)
        first = None
        if m:
            for line in open(times):
                t, n = line.split()
                if int(n) > m.start():
                    first = float(t) * 1000
                    break
        return dict(wall=res['wall'], cpu=res['cpu'], rss=res['maxrss_mb'], bytes=res['bytes'], first=first,
                    exit=res['exit'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--only', default='')
    ap.add_argument('--files', default='medium,large')
    ap.add_argument('--plays', default='1,3')
    a = ap.parse_args()
    print(f'load average before: {open("/proc/loadavg").read().split()[:3]}')
    print(f'{COLS}x{ROWS} cells reporting {COLS * 10}x{ROWS * 20} px\n')
    print('| file | player | plays | wall s (nominal) | CPU s | peak RSS MB | MB written | first image ms |')
    print('|---|---|---|---|---|---|---|---|')
    for f in a.files.split(','):
        name, nominal = FILES[f]
        path = os.path.join(HERE, 'data', name)
        for plays in [int(p) for p in a.plays.split(',')]:
            for player, cmd in players(a.animplay, nominal, plays):
                if a.only not in player:
                    continue
                r = run(cmd + [path], timeout=nominal * plays * 4 + 30)
                first = f'{r["first"]:.0f}' if r['first'] is not None else '-'
                status = '' if r['exit'] == 0 else f' (exit {r["exit"]})'
                print(f'| {f} | {player}{status} | {plays} | {r["wall"]:.2f} ({nominal * plays:.0f}) | {r["cpu"]:.2f} | '
                      f'{r["rss"]:.1f} | {r["bytes"] / 1e6:.2f} | {first} |', flush=True)
    print(f'\nload average after: {open("/proc/loadavg").read().split()[:3]}')


if __name__ == '__main__':
    main()
