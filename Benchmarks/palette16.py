#!/usr/bin/env python3
"""Colour fidelity of 16- and 256-colour output, animplay against chafa, on a Mandelbrot frame.

Renders one frame (ffmpeg's `mandelbrot` source, 640x480) with `animplay --colors N --dither D`
and `chafa -c N --dither D --symbols vhalf` (half blocks for both, so only colour mapping
differs) in an 80x24 pseudo-terminal, reads the screen back with pyte, and compares each
half-cell with the source area-averaged (linear light) to the same grid:
- dE: mean OKLab distance per half-cell (what one cell shows);
- dE4: the same after averaging 4x4 half-cells in linear light (what the eye sees from a
  distance: the measure dithering improves);
- hue: of the pixels with chroma > 0.05, the share shown with chroma > 0.05 and a hue within 45°;
- grey: of those, the share shown as a grey (chroma < 0.03);
- hue4: `hue` on the 4x4 averages (dithering trades per-cell hue for the average's).
The 16 colours are xterm's defaults (as pyte names them).

usage: Benchmarks/palette16.py [--animplay PATH]     (needs ffmpeg, chafa, pyte, numpy)
"""
import argparse, fcntl, os, pty, re, select, struct, subprocess, sys, termios, time
import numpy as np
import pyte

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, 'data')
COLS, ROWS = 80, 24
XTERM16 = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
           (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
           (255, 0, 255), (0, 255, 255), (255, 255, 255)]
NAMES = ['black', 'red', 'green', 'brown', 'blue', 'magenta', 'cyan', 'white']


def named(c):
    if len(c) == 6 and all(ch in '0123456789abcdef' for ch in c):
        return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))
    if c == 'default':
        return None
    bright = c.startswith(('bright', 'bfight'))   # pyte 0.8 spells some bright backgrounds 'bfight'
    return XTERM16[NAMES.index(c[6:] if bright else c) + (8 if bright else 0)]


def frame():
    os.makedirs(DATA, exist_ok=True)
    png, ppm = os.path.join(DATA, 'mandelbrot.png'), os.path.join(DATA, 'mandelbrot.ppm')
    if not os.path.exists(ppm):
        for out in (png, ppm):
            subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'mandelbrot=size=640x480',
                            '-ss', '3', '-frames:v', '1', out], check=True)
    d = open(ppm, 'rb').read().split(b'\n', 3)
    w, h = map(int, d[1].split())
    return png, np.frombuffer(d[3], np.uint8).reshape(h, w, 3).astype(np.float64)


def run_pty(cmd):
    env = dict(os.environ, TERM='xterm-256color', LANG='C.UTF-8')
    env.pop('COLORTERM', None)
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', ROWS, COLS, 0, 0))
        os.execvpe(cmd[0], cmd, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', ROWS, COLS, 0, 0))
    out = bytearray()
    while True:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    os.waitpid(pid, 0)
    screen = pyte.Screen(COLS, ROWS)
    # APC strings (the kitty graphics query) are consumed by terminals; pyte would print them.
    pyte.ByteStream(screen).feed(re.sub(rb'\x1b_[^\x1b]*\x1b\\', b'', bytes(out)))
    return screen


def halves(screen):
    """(2*ROWS, COLS) grid of RGB or None."""
    g = [[None] * COLS for _ in range(2 * ROWS)]
    for y in range(ROWS):
        for x in range(COLS):
            ch = screen.buffer[y][x]
            fg, bg = named(ch.fg), named(ch.bg)
            if ch.reverse:
                fg, bg = bg, fg
            up, lo = {'▀': (fg, bg), '▄': (bg, fg), '█': (fg, fg)}.get(ch.data, (bg, bg))
            g[2 * y][x], g[2 * y + 1][x] = up, lo
    return g


def lin(c):
    c = c / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def oklab_lin(l3):
    r, g, b = l3[..., 0], l3[..., 1], l3[..., 2]
    l = np.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
    m = np.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
    s = np.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
    return np.stack([0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
                     1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
                     0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s], -1)


def area_average(img_lin, tw, th):
    h, w = img_lin.shape[:2]
    ys = np.linspace(0, h, th + 1); xs = np.linspace(0, w, tw + 1)
    out = np.zeros((th, tw, 3))
    # Exact box coverage via cumulative sums on a 1-pixel grid (sizes divide well enough here).
    for j in range(th):
        y0, y1 = int(ys[j]), max(int(ys[j]) + 1, int(round(ys[j + 1])))
        for i in range(tw):
            x0, x1 = int(xs[i]), max(int(xs[i]) + 1, int(round(xs[i + 1])))
            out[j, i] = img_lin[y0:y1, x0:x1].mean(axis=(0, 1))
    return out


def measure(grid, src_lin):
    cells = [(y, x) for y in range(2 * ROWS) for x in range(COLS) if grid[y][x] is not None]
    y0 = min(c[0] for c in cells); y1 = max(c[0] for c in cells) + 1
    x0 = min(c[1] for c in cells); x1 = max(c[1] for c in cells) + 1
    shown = np.array([[grid[y][x] or (0, 0, 0) for x in range(x0, x1)] for y in range(y0, y1)], float)
    ref = area_average(src_lin, x1 - x0, y1 - y0)
    S, Q = oklab_lin(ref), oklab_lin(lin(shown))
    de = np.sqrt(((S - Q) ** 2).sum(-1)).mean()
    hh, ww = (S.shape[0] // 4) * 4, (S.shape[1] // 4) * 4
    blk = lambda a: a[:hh, :ww].reshape(hh // 4, 4, ww // 4, 4, 3).mean(axis=(1, 3))
    de4 = np.sqrt(((oklab_lin(blk(ref)) - oklab_lin(blk(lin(shown)))) ** 2).sum(-1)).mean()
    cs, cq = np.hypot(S[..., 1], S[..., 2]), np.hypot(Q[..., 1], Q[..., 2])
    chrom = cs > 0.05
    dh = np.abs((np.arctan2(Q[..., 2], Q[..., 1]) - np.arctan2(S[..., 2], S[..., 1]) + np.pi) % (2 * np.pi) - np.pi)
    hue = ((cq > 0.05) & (dh < np.pi / 4))[chrom].mean()
    grey = (cq < 0.03)[chrom].mean()
    S4, Q4 = oklab_lin(blk(ref)), oklab_lin(blk(lin(shown)))
    cs4, cq4 = np.hypot(S4[..., 1], S4[..., 2]), np.hypot(Q4[..., 1], Q4[..., 2])
    dh4 = np.abs((np.arctan2(Q4[..., 2], Q4[..., 1]) - np.arctan2(S4[..., 2], S4[..., 1]) + np.pi) % (2 * np.pi) - np.pi)
    hue4 = ((cq4 > 0.05) & (dh4 < np.pi / 4))[cs4 > 0.05].mean()
    return de, de4, hue, grey, hue4, (x1 - x0, y1 - y0)


def save(grid, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img = np.array([[c or (0, 0, 0) for c in row] for row in grid], np.uint8).repeat(4, 0).repeat(4, 1)
    with open(path, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (img.shape[1], img.shape[0]) + img.tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--save', metavar='DIR', help='also write each screen as a PPM (4x enlarged)')
    a = ap.parse_args()
    png, src = frame()
    src_lin = lin(src)
    print(f'{"tool":8} {"colours":>7} {"dither":10} {"dE":>6} {"dE4":>6} {"hue":>6} {"grey":>6} {"hue4":>6}  size')
    for colours in ('16', '256'):
        for dither in ('none', 'ordered', 'diffusion'):
            for tool, cmd in (('animplay', [a.animplay, png, '--colors', colours, '--dither', dither]),
                              ('chafa', ['chafa', '-c', colours, '--dither', dither, '--symbols', 'vhalf',
                                         '-s', f'{COLS}x{ROWS - 1}', png])):
                grid = halves(run_pty(cmd))
                if a.save:
                    save(grid, os.path.join(a.save, f'{tool}-{colours}-{dither}.ppm'))
                de, de4, hue, grey, hue4, size = measure(grid, src_lin)
                print(f'{tool:8} {colours:>7} {dither:10} {de:6.4f} {de4:6.4f} {hue:6.1%} {grey:6.1%} {hue4:6.1%}  {size[0]}x{size[1]}')


if __name__ == '__main__':
    main()
