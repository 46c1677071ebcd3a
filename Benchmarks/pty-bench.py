#!/usr/bin/env python3
"""Plays the ffmpeg testsrc2 GIFs with animplay, chafa, timg and catimg in a pseudo-terminal
(120x40, TERM=xterm-256color, COLORTERM=truecolor) and prints, for each: wall time (and how far
it is from the GIF's nominal duration), CPU (user+sys), peak RSS, bytes written to the terminal
and time to first frame (first SGR colour sequence on the pty).

usage: Benchmarks/pty-bench.py [--animplay PATH] [--cols 120] [--rows 40] [--runs N] [--only NAME]
The GIFs are generated into Benchmarks/data/ (gitignored) with ffmpeg if missing.

--kitty: kitty graphics instead: the 640x360x150 GIF (Benchmarks/make-inputs.sh) in a pty of
120x40 cells of 10x20 pixels (Benchmarks/ptyrun.py, or $PTYRUN), `animplay --graphics
kitty` against `timg -pk` and `chafa -f kitty`, 1 and 3 plays: wall time against nominal, CPU,
peak RSS, bytes written, time to the first image (first kitty transmission on the pty).
"""
import argparse, fcntl, json, os, pty, re, select, shutil, signal, struct, subprocess, sys, termios, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, 'data')
GIFS = [  # name, size, frames (25 fps: 40 ms each)
    ('t640.gif', '640x360', 150),
    ('t1280.gif', '1280x720', 300),
]
FIRST_FRAME = re.compile(rb'\x1b\[[0-9;]*[34]8;[25];')


def ensure_gifs():
    os.makedirs(DATA, exist_ok=True)
    for name, size, frames in GIFS:
        path = os.path.join(DATA, name)
        if os.path.exists(path):
            continue
        if not shutil.which('ffmpeg'):
            sys.exit(f'ffmpeg is needed to generate {path} (apt-get install -y ffmpeg)')
        print(f'generating {path} ...', file=sys.stderr)
        subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                        f'testsrc2=size={size}:rate=25', '-frames:v', str(frames), path], check=True)


def players(animplay, cols, rows, nominal):
    return {
        'animplay': [animplay, '--loop', '1'],
        'timg': ['timg', f'-g{cols}x{rows}', '--loops=1'],
        # chafa plays an animation for --duration seconds: one play.
        'chafa': ['chafa', f'--size={cols}x{rows}', f'--duration={nominal:.3f}'],
        # catimg -l N loops N more times: -l 0 is one play.
        'catimg': ['catimg', '-w', str(cols), '-l', '0'],
    }


def run(cmd, cols, rows, timeout):
    env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', LANG='C.UTF-8',
               LINES=str(rows), COLUMNS=str(cols))
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
        try:
            os.execvpe(cmd[0], cmd, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    t0 = time.monotonic(); total = 0; first = None; tail = b''
    status = ru = None
    while True:
        if time.monotonic() - t0 > timeout:
            os.kill(pid, signal.SIGKILL)
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b''
            if data:
                if first is None and FIRST_FRAME.search(tail + data):
                    first = time.monotonic() - t0
                tail = data[-32:]
                total += len(data)
                continue
        wp, st, ru_ = os.wait4(pid, os.WNOHANG)
        if wp == pid:
            status, ru = st, ru_
            wall = time.monotonic() - t0
            while select.select([fd], [], [], 0.05)[0]:
                try:
                    data = os.read(fd, 1 << 16)
                except OSError:
                    break
                if not data:
                    break
                total += len(data)
            break
    os.close(fd)
    return dict(wall=wall, cpu=ru.ru_utime + ru.ru_stime, rss_mb=ru.ru_maxrss / 1024, bytes=total,
                first_ms=None if first is None else first * 1000, exit=os.waitstatus_to_exitcode(status))


PTYRUN = os.environ.get('PTYRUN', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
KITTY_IMAGE = re.compile(rb'\x1b_G[^;\x1b]*a=[Tt]')


def kitty_input():
    for name in ('medium.gif', 'testsrc2-640x360x150.gif'):
        p = os.path.join(DATA, name)
        if os.path.exists(p):
            return p
    subprocess.run([os.path.join(HERE, 'make-inputs.sh')], check=True)
    return os.path.join(DATA, 'testsrc2-640x360x150.gif')


def kitty_players(animplay, cols, rows, nominal, plays):
    return {
        'animplay': [animplay, '--graphics', 'kitty', '--loop', str(plays)],
        'timg': ['timg', '-pk', f'-g{cols}x{rows}', f'--loops={plays}'],
        'chafa': ['chafa', '-f', 'kitty', f'--size={cols}x{rows}', f'--duration={nominal * plays:.3f}'],
    }


def kitty_run(cmd, cols, rows, timeout):
    """One run under ptyrun.py (10x20-pixel cells); the first image is the first kitty
    transmission, timed by ptyrun (--mark)."""
    p = subprocess.run([sys.executable, PTYRUN, '--sixel', '--kitty', '--cols', str(cols), '--rows', str(rows),
                        '--xpixel', str(cols * 10), '--ypixel', str(rows * 20), '--timeout', str(timeout),
                        '--mark', KITTY_IMAGE.pattern.decode('latin-1'), '--'] + cmd, capture_output=True, text=True)
    res = json.loads(p.stdout.strip().splitlines()[-1])
    first = None if res['mark_s'] is None else res['mark_s'] * 1000
    return dict(wall=res['wall'], cpu=res['cpu'], rss_mb=res['maxrss_mb'], bytes=res['bytes'],
                first_ms=first, exit=res['exit'])


def kitty_bench(a):
    path = kitty_input()
    nominal = 150 * 0.040
    rows_out = []
    for plays in (1, 3):
        for player, cmd in kitty_players(a.animplay, a.cols, a.rows, nominal, plays).items():
            if a.only and player not in a.only:
                continue
            if not shutil.which(cmd[0]):
                print(f'{player}: not installed; skipped', file=sys.stderr)
                continue
            best = None
            for _ in range(a.runs):
                r = kitty_run(cmd + [path], a.cols, a.rows, timeout=nominal * plays * 3 + 30)
                print(f'{player} x{plays}: {r}', file=sys.stderr)
                if r['exit'] != 0 or r['bytes'] == 0:
                    continue      # a failed run is reported above, never the best
                if best is None or r['cpu'] < best['cpu']:
                    best = r
            if best is None:
                continue
            best.update(player=player, plays=plays, nominal=nominal * plays)
            rows_out.append(best)
    if a.json:
        print(json.dumps(rows_out, indent=1))
        return
    print(f'kitty graphics, 640x360x150 GIF, {a.cols}x{a.rows} cells of 10x20 px')
    print('| player | plays | wall s (nominal) | CPU s | peak RSS MB | bytes out | first image ms | exit |')
    print('|---|---|---|---|---|---|---|---|')
    for r in rows_out:
        off = (r['wall'] - r['nominal']) / r['nominal'] * 100
        first = '-' if r['first_ms'] is None else f"{r['first_ms']:.0f}"
        print(f"| {r['player']} | {r['plays']} | {r['wall']:.3f} ({r['nominal']:.1f}, {off:+.1f} %) | "
              f"{r['cpu']:.3f} | {r['rss_mb']:.1f} | {r['bytes'] / 1e6:.2f} MB | {first} | {r['exit']} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--cols', type=int, default=120)
    ap.add_argument('--rows', type=int, default=40)
    ap.add_argument('--runs', type=int, default=1, help='runs per player and file (best wall kept)')
    ap.add_argument('--only', action='append', help='players to run (default: all)')
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--kitty', action='store_true', help='kitty graphics against timg -pk and chafa -f kitty')
    a = ap.parse_args()
    if not os.path.exists(a.animplay):
        sys.exit(f'{a.animplay} not found: build it with `swift build -c release --static-swift-stdlib`')
    if a.kitty:
        kitty_bench(a)
        return
    ensure_gifs()
    rows_out = []
    for name, size, frames in GIFS:
        nominal = frames * 0.040
        for player, cmd in players(a.animplay, a.cols, a.rows, nominal).items():
            if a.only and player not in a.only:
                continue
            if not shutil.which(cmd[0]):
                print(f'{player}: not installed (apt-get install -y {player}); skipped', file=sys.stderr)
                continue
            best = None
            for _ in range(a.runs):
                res = run(cmd + [os.path.join(DATA, name)], a.cols, a.rows, timeout=nominal * 3 + 30)
                if best is None or res['wall'] < best['wall']:
                    best = res
            best.update(player=player, file=f'{size}x{frames}', nominal=nominal)
            rows_out.append(best)
    if a.json:
        print(json.dumps(rows_out, indent=1))
        return
    print(f'| file | player | wall s (nominal) | CPU s | peak RSS MB | bytes out | first frame ms | exit |')
    print('|---|---|---|---|---|---|---|---|')
    for r in rows_out:
        off = (r['wall'] - r['nominal']) / r['nominal'] * 100
        first = '-' if r['first_ms'] is None else f"{r['first_ms']:.0f}"
        print(f"| {r['file']} | {r['player']} | {r['wall']:.3f} ({r['nominal']:.1f}, {off:+.1f} %) | "
              f"{r['cpu']:.3f} | {r['rss_mb']:.1f} | {r['bytes'] / 1e6:.2f} MB | {first} | {r['exit']} |")


if __name__ == '__main__':
    main()
