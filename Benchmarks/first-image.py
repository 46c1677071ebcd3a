#!/usr/bin/env python3
"""Time to the first image alone: animplay --fill started again and again, stopped soon after.

fill-bench.py's "first image" column comes from whole plays (three runs, among other players);
this runs only the start of a play, many times, so that builds can be compared on a machine whose
timings spread (±30 % run to run here): each round starts every binary once per mode and file
(interleaved, so a busy moment hits all of them), and the table shows medians and ranges.

The time is from the fork of the pseudo-terminal's child (Benchmarks/ptyrun.py, 120x40 cells
reporting 1200x800 pixels, answering the terminal queries at once) to the first byte of the first
image in the output (a sixel image or a kitty upload): start-up, argument parsing, decoding frame
0, the terminal's answers, preparing and writing the frame; and to the image's last byte ("whole":
a sixel image's ST, the last chunk of a kitty upload), which a terminal honouring synchronized
output waits for. After the first byte the reader sets the pace: this one (Python) takes about
0.1 ms per 4 KB read of sixel and 0.2 ms of kitty commands (it parses them to answer queries).

usage: Benchmarks/first-image.py [--animplay PATH ...] [--runs N] [--files medium,large]
                                 [--modes kitty,sixel]
"""
import argparse, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PTYRUN = os.path.join(HERE, 'ptyrun.py')
FILES = {'medium': 'testsrc2-640x360x150.gif', 'large': 'testsrc2-1280x720x300.gif'}
IMAGE = r'\x1b_G[^;\x1b]*a=[Tt]|\x1bP[0-9;]*q'


def first_image_ms(animplay, mode, path):
    env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', ANIMPLAY_KITTY_MEDIUM='direct')
    p = subprocess.run([sys.executable, PTYRUN, '--sixel', '--kitty', '--cols', '120', '--rows', '40',
                        '--xpixel', '1200', '--ypixel', '800', '--timeout', '0.7', '--mark', IMAGE, '--',
                        animplay, '--graphics', mode, '--fill', path], capture_output=True, text=True, env=env)
    res = json.loads(p.stdout.strip().splitlines()[-1])
    ms = lambda k: None if res.get(k) is None else res[k] * 1000
    return ms('mark_s'), ms('mark_end_s')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', action='append', help='a binary to time (repeat to compare builds)')
    ap.add_argument('--runs', type=int, default=9)
    ap.add_argument('--files', default='medium,large')
    ap.add_argument('--modes', default='kitty,sixel')
    a = ap.parse_args()
    binaries = a.animplay or [os.path.join(ROOT, '.build', 'release', 'animplay')]
    files, modes = a.files.split(','), a.modes.split(',')
    print(f'load average before: {open("/proc/loadavg").read().split()[:3]}')
    times = {}
    for _ in range(a.runs):
        for b in binaries:
            for mode in modes:
                for f in files:
                    times.setdefault((b, mode, f), []).append(first_image_ms(b, mode, os.path.join(HERE, 'data', FILES[f])))
    print(f'load average after: {open("/proc/loadavg").read().split()[:3]}')
    print('| binary | mode | file | first image ms, median (range) | whole ms | runs without an image |')
    print('|---|---|---|---|---|---|')
    def median(values):
        got = [x for x in values if x is not None]
        return f'{statistics.median(got):.1f} ({min(got):.0f}–{max(got):.0f})' if got else '-'
    for (b, mode, f), v in times.items():
        print(f'| {b} | {mode} | {f} | {median(s for s, _ in v)} | {median(e for _, e in v)} | '
              f'{sum(s is None for s, _ in v)} |')


if __name__ == '__main__':
    main()
