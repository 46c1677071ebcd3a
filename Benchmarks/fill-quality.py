#!/usr/bin/env python3
"""Which filter enlarges best for --fill: SSIM (luma, 7x7 windows) of animplay's enlargements of a
frame (Benchmarks/Quality: `quality-bench --enlarge`, every Enlarger filter and the area average)
against ImageMagick's `-resize` of the same frame (its default for enlarging: Mitchell, in sRGB)
and against chafa's picture (`chafa -f sixel --scale max` in 120x40 cells of 10x20 px, decoded).

usage: Benchmarks/fill-quality.py [SOURCE ...]   (default: frame 0 of the medium GIF and samples/orbit.webp)
"""
import json, os, re, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PTYRUN = os.environ.get('PTYRUN', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ptyrun.py'))
sys.path.insert(0, HERE)
from script_module import load  # noqa: E402
sixelbench = load(os.path.join(HERE, 'sixel-bench.py'), 'sixelbench')


def ppm(path):
    data = open(path, 'rb').read()
    m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+255\s', data)
    w, h = int(m.group(1)), int(m.group(2))
    return np.frombuffer(data[m.end():m.end() + w * h * 3], np.uint8).reshape(h, w, 3)


def luma(img):
    return img[..., :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])


def ssim(a, b, k=7):
    a, b = luma(a), luma(b)
    def box(x):
        c = np.cumsum(np.cumsum(np.pad(x, ((1, 0), (1, 0))), 0), 1)
        return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)
    ma, mb = box(a), box(b)
    va, vb, cov = box(a * a) - ma * ma, box(b * b) - mb * mb, box(a * b) - ma * mb
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    return float(np.mean((2 * ma * mb + c1) * (2 * cov + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))))


def chafa_picture(src, d):
    save = os.path.join(d, 'chafa.out')
    subprocess.run([sys.executable, PTYRUN, '--sixel', '--kitty', '--cols', '120', '--rows', '40', '--xpixel', '1200', '--ypixel', '800',
                    '--timeout', '30', '--save', save, '--', 'chafa', '-f', 'sixel', '--scale=max', '--size=120x40', src],
                   capture_output=True, check=True)
    m = sixelbench.SIXEL.search(open(save, 'rb').read())
    return sixelbench.decode_sixel(m.group(1))


def main():
    sources = sys.argv[1:] or [os.path.join(HERE, 'data', 'testsrc2-640x360x150.gif'), os.path.join(ROOT, 'samples', 'orbit.webp')]
    tool = next((p for p in (os.path.join(ROOT, '.build', c, 'quality-bench') for c in ('release', 'debug')) if os.path.exists(p)), None)
    print('| source | filter | SSIM vs ImageMagick -resize | SSIM vs chafa |')
    print('|---|---|---|---|')
    for src in sources:
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, 'frame.png')
            # Frame 0 as animplay composites it (ffmpeg cannot read animated WebP), as a PNG.
            animplay = next(p for p in (os.path.join(ROOT, '.build', c, 'animplay') for c in ('release', 'debug')) if os.path.exists(p))
            subprocess.run([animplay, 'dump', src, '-o', d], check=True, capture_output=True)
            subprocess.run(['convert', os.path.join(d, 'frame-0000.ppm'), png], check=True)
            chafa = chafa_picture(png, d)
            h, w = chafa.shape[:2]
            subprocess.run(['convert', png, '-background', 'black', '-flatten', '-resize', f'{w}x{h}!', os.path.join(d, 'im.ppm')], check=True)
            im = ppm(os.path.join(d, 'im.ppm'))
            subprocess.run([tool, '--enlarge', png, str(w), str(h), d], check=True)
            for name in ['bilinear', 'catmullRom', 'mitchell', 'lanczos3', 'box']:
                out = ppm(os.path.join(d, f'{name}.ppm'))
                print(f'| {os.path.basename(src)} ({w}x{h}) | {name} | {ssim(out, im):.4f} | {ssim(out, chafa):.4f} |', flush=True)


if __name__ == '__main__':
    main()
