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
  paced writer of animplay's sixel bytes  (Benchmarks/paced-write.py: the images of one animplay
                                           sixel play written again at the frames' times, nothing
                                           else: the pseudo-terminal's cost of those bytes, the
                                           floor under a later play that re-sends them)
and prints wall, CPU (user+sys), peak RSS, bytes written, images written (sixel images, kitty
uploads: a player that skips frames while the terminal is busy, or drops late ones, does less
work) and the time to the first image (its first byte, and "whole": its last byte, when the
terminal has all of it), with the load average before and after (the machine may be shared).

With --repeat N every configuration runs N times, the players interleaved (round r runs every player
once before round r+1), and the table shows medians (CPU range in brackets): on a shared machine
CPU seconds (user+sys) are what compare, not wall time.

usage: Benchmarks/fill-bench.py [--animplay PATH] [--only SUBSTRING] [--skip SUBSTRING] [--files medium,large]
                                [--plays 1,3] [--repeat N] [--animplay-speed X]
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PTYRUN = os.environ.get('PTYRUN', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
FILES = {'medium': ('testsrc2-640x360x150.gif', 6.0, 150), 'large': ('testsrc2-1280x720x300.gif', 12.0, 300)}
PACED = os.path.join(HERE, 'paced-write.py')
FLOOR = "paced writer of animplay sixel's bytes"
COLS, ROWS = 120, 40
IMAGE = re.compile(rb'\x1b_G[^;\x1b]*a=[Tt]|\x1bP[0-9;]*q')
# One per frame image written: a sixel image, or a kitty upload's first chunk (the only one with s=).
UPLOAD = re.compile(rb'\x1bP[0-9;]*q|\x1b_G(?=[^;\x1b]*a=[Ttf])(?=[^;\x1b]*s=)')


def players(animplay, nominal, plays, speed=1.0, frames=0, capture=None):
    d = f'--duration={nominal * plays:.3f}'
    slow = [] if speed == 1.0 else ['--speed', str(speed)]
    return [
        ('animplay kitty --fill', [animplay, '--graphics', 'kitty', '--fill', '--loop', str(plays)] + slow),
        ('chafa kitty --scale max', ['chafa', '-f', 'kitty', '--scale=max', f'--size={COLS}x{ROWS}', d]),
        ('timg -pk', ['timg', '-pk', f'-g{COLS}x{ROWS}', f'--loops={plays}']),
        ('animplay sixel --fill', [animplay, '--graphics', 'sixel', '--fill', '--loop', str(plays)] + slow),
        ('chafa sixel --scale max', ['chafa', '-f', 'sixel', '--scale=max', f'--size={COLS}x{ROWS}', d]),
        (FLOOR, [sys.executable, PACED, capture or '-', '--frames', str(frames), '--seconds', str(nominal),
                 '--plays', str(plays)]),
    ]


def run(cmd, timeout, keep=None):
    """`keep`: a path to copy what the command wrote to."""
    with tempfile.TemporaryDirectory() as d:
        save = os.path.join(d, 'out')
        env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', ANIMPLAY_KITTY_MEDIUM='direct')
        p = subprocess.run([sys.executable, PTYRUN, '--sixel', '--kitty', '--cols', str(COLS), '--rows', str(ROWS),
                            '--xpixel', str(COLS * 10), '--ypixel', str(ROWS * 20), '--timeout', str(timeout),
                            '--save', save, '--mark', IMAGE.pattern.decode('latin-1'), '--'] + cmd,
                           capture_output=True, text=True, env=env)
        res = json.loads(p.stdout.strip().splitlines()[-1])
        out = open(save, 'rb').read()
        if keep:
            with open(keep, 'wb') as f:
                f.write(out)
        first = None if res['mark_s'] is None else res['mark_s'] * 1000
        whole = None if res.get('mark_end_s') is None else res['mark_end_s'] * 1000
        return dict(wall=res['wall'], cpu=res['cpu'], rss=res['maxrss_mb'], bytes=res['bytes'], first=first, whole=whole,
                    exit=res['exit'], images=len(UPLOAD.findall(out)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--only', default='')
    ap.add_argument('--skip', default='', help='leave out the players whose name contains this')
    ap.add_argument('--files', default='medium,large')
    ap.add_argument('--plays', default='1,3')
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--animplay-speed', type=float, default=1.0,
                    help="animplay's --speed: below 1 the slow pty reader lets every frame through, so that "
                         "animplay writes every image as chafa does (chafa blocks instead of skipping)")
    a = ap.parse_args()
    print(f'load average before: {open("/proc/loadavg").read().split()[:3]}')
    print(f'{COLS}x{ROWS} cells reporting {COLS * 10}x{ROWS * 20} px\n')
    print('| file | player | plays | wall s (nominal) | CPU s | peak RSS MB | MB written | images written | first image ms | whole ms |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    wanted = lambda p: a.only in p and not (a.skip and a.skip in p)
    capture_dir = tempfile.TemporaryDirectory()
    for f in a.files.split(','):
        name, nominal, frames = FILES[f]
        path = os.path.join(HERE, 'data', name)
        # The paced writer's bytes: one sixel play of animplay, made for it (not in the table).
        capture = None
        if wanted(FLOOR):
            capture = os.path.join(capture_dir.name, f + '.sixel')
            cmd = dict(players(a.animplay, nominal, 1, a.animplay_speed))['animplay sixel --fill']
            run(cmd + [path], timeout=nominal * 4 / min(1.0, a.animplay_speed) + 30, keep=capture)
        for plays in [int(p) for p in a.plays.split(',')]:
            chosen = [(p, c) for p, c in players(a.animplay, nominal, plays, a.animplay_speed, frames, capture) if wanted(p)]
            results = {p: [] for p, _ in chosen}
            for _ in range(a.repeat):
                for player, cmd in chosen:
                    results[player].append(run(cmd + ([] if player == FLOOR else [path]), timeout=nominal * plays * 4 / min(1.0, a.animplay_speed) + 30))
            for player, _ in chosen:
                rs = results[player]
                med = lambda k: statistics.median(r[k] for r in rs)
                def median_ms(k):
                    got = [r[k] for r in rs if r[k] is not None]
                    return f'{statistics.median(got):.0f}' if got else '-'
                first, whole = median_ms('first'), median_ms('whole')
                bad = [r['exit'] for r in rs if r['exit'] != 0]
                status = f' (exit {bad[0]})' if bad else ''
                cpus = sorted(r['cpu'] for r in rs)
                spread = f' ({cpus[0]:.2f}–{cpus[-1]:.2f})' if len(rs) > 1 else ''
                print(f'| {f} | {player}{status} | {plays} | {med("wall"):.2f} ({nominal * plays:.0f}) | '
                      f'{med("cpu"):.2f}{spread} | {med("rss"):.1f} | {med("bytes") / 1e6:.2f} | {med("images"):.0f} | {first} | {whole} |', flush=True)
    print(f'\nload average after: {open("/proc/loadavg").read().split()[:3]}')


if __name__ == '__main__':
    main()
