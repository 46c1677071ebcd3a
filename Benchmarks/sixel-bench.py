#!/usr/bin/env python3
"""Sixel benchmark: animplay --graphics sixel against chafa -f sixel and timg -ps, playing
medium.gif (ffmpeg testsrc2, 640x360, 150 frames at 25 fps) in a pseudo-terminal of 120x40 cells
of 10x20 pixels (Benchmarks/ptyrun.py, or --ptyrun PATH).

For each player and 1 or 3 plays: wall time, CPU (user+sys), peak RSS, bytes written, sixel
images written, bytes per image, and the fidelity of what a terminal would show: a few of the
images (--samples) are decoded back to pixels and compared with the GIF frame they match best
(PSNR, dB). Two boxes: the whole window (as people run them: chafa and timg enlarge the video to
1200x675; animplay enlarges only by whole factors, so it stays 640x360) and a 64x18-cell box
(640x360 pixels for all three: the same pixels, so bytes and PSNR compare like for like).

usage: Benchmarks/sixel-bench.py [--animplay PATH] [--only NAME] [--samples N] [--json]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GIF = os.path.join(HERE, 'data', 'testsrc2-640x360x150.gif')
W, H, FRAMES, NOMINAL = 640, 360, 150, 6.0


def players(animplay, plays, cols, rows):
    return {
        'animplay': [animplay, '--graphics', 'sixel', '--loop', str(plays), '--size', f'{cols}x{rows}', GIF],
        # chafa plays for --duration seconds.
        'chafa': ['chafa', '-f', 'sixel', f'--size={cols}x{rows}', f'--duration={NOMINAL * plays:.3f}', GIF],
        'timg': ['timg', '-ps', f'-g{cols}x{rows}', f'--loops={plays}', GIF],
    }


def reference_frames():
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-i', GIF, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, H, W, 3)


SIXEL = re.compile(rb'\x1bP[0-9;]*q(.*?)\x1b\\', re.S)
NUM = re.compile(rb'[0-9]+')


def decode_sixel(body):
    """RGB image (numpy) of one sixel body (after 'q', before ST)."""
    m = re.match(rb'"([0-9]+);([0-9]+);([0-9]+);([0-9]+)', body)
    if m:
        w, h = int(m.group(3)), int(m.group(4))
        i = m.end()
    else:   # no raster attributes: size from the data (a first pass)
        w, h, i = 0, 0, 0
    regs = {}
    tokens = re.finditer(rb'#([0-9]+)(?:;([0-9]+);([0-9]+);([0-9]+);([0-9]+))?|!([0-9]+)([?-~])|([?-~])|(\$)|(-)', body[i:])
    ops = []
    maxx, bands = 0, 1
    x = 0
    for t in tokens:
        if t.group(1) is not None:
            c = int(t.group(1))
            if t.group(2) is not None:
                if t.group(2) == b'2':
                    regs[c] = tuple(round(int(t.group(k)) * 255 / 100) for k in (3, 4, 5))
                else:
                    raise ValueError('HLS colours are not handled')
            ops.append(('c', c))
        elif t.group(6) is not None:
            n = int(t.group(6)); ops.append(('p', ord(t.group(7)) - 63, n)); x += n; maxx = max(maxx, x)
        elif t.group(8) is not None:
            ops.append(('p', ord(t.group(8)) - 63, 1)); x += 1; maxx = max(maxx, x)
        elif t.group(9) is not None:
            ops.append(('cr',)); x = 0
        else:
            ops.append(('nl',)); x = 0; bands += 1
    w = w or maxx
    h = h or bands * 6
    img = np.zeros((bands * 6 + 6, max(w, maxx), 3), np.uint8)
    colour, x, band = (0, 0, 0), 0, 0
    for op in ops:
        if op[0] == 'c':
            colour = regs.get(op[1], (0, 0, 0))
        elif op[0] == 'p':
            bits, n = op[1], op[2]
            if bits:
                for b in range(6):
                    if bits & (1 << b):
                        img[band * 6 + b, x:x + n] = colour
            x += n
        elif op[0] == 'cr':
            x = 0
        else:
            x = 0; band += 1
    return img[:h, :w]


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float('inf') if mse == 0 else 10 * np.log10(255 * 255 / mse)


def fidelity(images, refs, samples):
    """Mean PSNR of `samples` images spread over the run, each against its best-matching frame
    (scaled to the image's size by ffmpeg's area filter when the sizes differ)."""
    if not images:
        return None, None
    picks = [images[int(k * (len(images) - 1) / max(1, samples - 1))] for k in range(samples)]
    out, size = [], None
    scaled = {}
    for body in picks:
        img = decode_sixel(body)
        h, w = img.shape[:2]
        size = f'{w}x{h}'
        if (w, h) == (W, H):
            ref = refs
        else:
            if (w, h) not in scaled:
                raw = subprocess.run(['ffmpeg', '-v', 'error', '-i', GIF, '-vf', f'scale={w}:{h}:flags=area',
                                      '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], capture_output=True, check=True).stdout
                scaled[(w, h)] = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
            ref = scaled[(w, h)]
        coarse = [np.mean((ref[i, ::8, ::8].astype(np.int32) - img[::8, ::8].astype(np.int32)) ** 2) for i in range(len(ref))]
        out.append(psnr(img, ref[int(np.argmin(coarse))]))
    return round(float(np.mean(out)), 2), size


def run(ptyrun, cmd, save):
    r = subprocess.run([sys.executable, ptyrun, '--sixel', '--kitty', '--cols', '120', '--rows', '40', '--xpixel', '1200', '--ypixel', '800',
                        '--timeout', '120', '--save', save, '--'] + cmd, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--ptyrun', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
    ap.add_argument('--only', action='append')
    ap.add_argument('--samples', type=int, default=6)
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    if not os.path.exists(GIF):
        subprocess.run([os.path.join(HERE, 'make-inputs.sh')], check=True)
    refs = reference_frames()
    tmp = tempfile.mkdtemp(prefix='sixel-bench-')
    results = []
    try:
        for box in [(120, 40), (64, 19)]:
            for plays in (1, 3):
                for name, cmd in players(a.animplay, plays, *box).items():
                    if a.only and name not in a.only:
                        continue
                    if not shutil.which(cmd[0]):
                        continue
                    save = os.path.join(tmp, 'out')
                    r = run(a.ptyrun, cmd, save)
                    data = open(save, 'rb').read()
                    images = [m.group(1) for m in SIXEL.finditer(data)]
                    if not images:
                        print('no sixel images:', r, data[-300:], file=sys.stderr)
                    sixel_bytes = sum(len(b) for b in images)
                    p, size = fidelity(images, refs, a.samples) if plays == 1 else (None, None)
                    row = dict(player=name, box=f'{box[0]}x{box[1]}', plays=plays, wall=r['wall'], cpu=r['cpu'],
                               rss_mb=r['maxrss_mb'], bytes=r['bytes'], images=len(images),
                               bytes_per_image=sixel_bytes // max(1, len(images)), size=size, psnr=p, exit=r['exit'])
                    results.append(row)
                    if not a.json:
                        print(f"{name:9} box {row['box']:7} plays {plays}  wall {r['wall']:6.2f}s  cpu {r['cpu']:6.2f}s  "
                              f"rss {r['maxrss_mb']:5.1f}MB  images {len(images):4}  bytes/image {row['bytes_per_image']:7}  "
                              f"{'' if p is None else f'{size} PSNR {p} dB'}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        print(json.dumps(results, indent=1))


if __name__ == '__main__':
    main()
