#!/usr/bin/env python3
"""animplay's encoders side by side with the usual tools, in one run (README, "Writing").

  python3 Benchmarks/encode-bench.py [--bin .build/release/animplay] [--out DIR]

1. GIF -> lossless WebP: `animplay convert` against gif2webp (both libwebp; target: ours no larger).
2. GIF -> lossy WebP at equal SSIM: gif2webp -lossy -q 75, then the smallest animplay output
   (quality 60..90) whose SSIM is at least gif2webp's.
3. true-colour frames -> GIF: against ffmpeg palettegen/paletteuse and ImageMagick; size, SSIM
   to the source, CPU time; animplay also at the highest --quality no larger than ffmpeg's file
   (target: higher SSIM at equal size; faster than ImageMagick).
4. GIF re-optimised: `animplay convert x.gif -o y.gif` against gifsicle -O3 (sizes).

SSIM: mean over frames of the luma SSIM (8x8 windows, C1/C2 as Wang et al.) of the composited
frames over grey, read back with `animplay dump`. Times are CPU seconds (user + system of the
child), steadier than wall time on a shared machine: the median of three runs (single runs for
the quality search). The load average is printed at the start and the end. Needs numpy, ffmpeg, gif2webp (webp),
gifsicle, ImageMagick (convert).
"""
import argparse, os, resource, shutil, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'Fixtures', 'corpus'))
from check import read_pam  # noqa: E402

CORPUS_GIF = os.path.join(ROOT, 'Tests', 'Fixtures', 'corpus', 'inputs', 'gif')


def timed(cmd, **kw):
    """Runs cmd; returns CPU seconds (user + sys) of the child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed3(cmd, **kw):
    """The median CPU seconds of three runs of cmd (the output of the last one is kept)."""
    return sorted(timed(cmd, **kw) for _ in range(3))[1]


def frames(binary, path, work):
    """Composited frames (float luma arrays over grey) of any file animplay reads."""
    out = tempfile.mkdtemp(dir=work)
    subprocess.run([binary, 'dump', path, '-o', out, '--format', 'pam'], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result = []
    for n in sorted(os.listdir(out)):
        w, h, data = read_pam(os.path.join(out, n))
        a = np.frombuffer(data, np.uint8).reshape(h, w, 4).astype(np.float64)
        alpha = a[..., 3:4] / 255
        rgb = a[..., :3] * alpha + 128 * (1 - alpha)
        result.append(rgb @ np.array([0.299, 0.587, 0.114]))
    shutil.rmtree(out)
    return result


def ssim(x, y):
    """Luma SSIM over non-overlapping 8x8 windows."""
    h, w = (min(x.shape[0], y.shape[0]) // 8) * 8, (min(x.shape[1], y.shape[1]) // 8) * 8
    if h == 0 or w == 0:
        return 1.0 if np.array_equal(x, y) else 0.0
    bx = x[:h, :w].reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 64)
    by = y[:h, :w].reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 64)
    mx, my = bx.mean(1), by.mean(1)
    vx, vy = bx.var(1), by.var(1)
    cxy = ((bx - mx[:, None]) * (by - my[:, None])).mean(1)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    return float(np.mean((2 * mx * my + c1) * (2 * cxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2))))


def mean_ssim(ref, got):
    if len(ref) != len(got):
        # A merged frame stands for several: compare the shorter list in order (reported).
        n = min(len(ref), len(got))
        ref, got = ref[:n], got[:n]
    return sum(ssim(a, b) for a, b in zip(ref, got)) / len(ref)


def kb(path):
    return os.path.getsize(path) / 1000


def row(*cells):
    print('| ' + ' | '.join(str(c) for c in cells) + ' |', flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--out', default=None)
    args = ap.parse_args()
    A = os.path.abspath(args.bin)
    work = args.out or tempfile.mkdtemp(prefix='encode-bench-')
    os.makedirs(work, exist_ok=True)
    print('load average at the start: %.2f %.2f %.2f' % os.getloadavg(), flush=True)

    # Inputs: real GIFs from the corpus and the samples, and generated true-colour frames.
    gifs = [os.path.join(CORPUS_GIF, 'image-gif', 'gifplayer-muybridge.gif'),
            os.path.join(CORPUS_GIF, 'image-gif', 'moon_impact.gif'),
            os.path.join(CORPUS_GIF, 'libvips', 'cramps.gif'),
            os.path.join(ROOT, 'samples', 'bounce.gif')]
    testsrc_gif = os.path.join(work, 'testsrc2.gif')
    subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25',
                    '-frames:v', '50', testsrc_gif], check=True)
    gifs.append(testsrc_gif)
    sources = {}
    for name, lavfi in [('testsrc2', 'testsrc2=size=320x180:rate=25'), ('mandelbrot', 'mandelbrot=size=320x240:rate=25')]:
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', lavfi, '-frames:v', '40',
                        os.path.join(d, 'f%03d.png')], check=True)
        sources[name] = d

    print('\n### GIF -> lossless WebP\n')
    row('input', 'GIF kB', 'gif2webp kB', 'animplay kB', 'animplay -m 6 kB', 'gif2webp s', 'animplay s')
    row('---', '---:', '---:', '---:', '---:', '---:', '---:')
    for g in gifs:
        n = os.path.basename(g)
        t1 = timed3(['gif2webp', '-quiet', g, '-o', os.path.join(work, n + '.g2w.webp')])
        t2 = timed3([A, 'convert', g, '-o', os.path.join(work, n + '.ap.webp')])
        timed([A, 'convert', g, '-o', os.path.join(work, n + '.ap6.webp'), '--method', '6'])
        row(n, f'{kb(g):.1f}', f'{kb(os.path.join(work, n + ".g2w.webp")):.1f}', f'{kb(os.path.join(work, n + ".ap.webp")):.1f}',
            f'{kb(os.path.join(work, n + ".ap6.webp")):.1f}', f'{t1:.2f}', f'{t2:.2f}')

    print('\n### GIF -> lossy WebP at equal SSIM (gif2webp -lossy -q 75)\n')
    row('input', 'gif2webp kB', 'SSIM', 'animplay kB', 'SSIM', 'animplay -q')
    row('---', '---:', '---:', '---:', '---:', '---:')
    for g in gifs:
        n = os.path.basename(g)
        ref = frames(A, g, work)
        o = os.path.join(work, n + '.g2w-lossy.webp')
        timed(['gif2webp', '-quiet', '-lossy', '-q', '75', g, '-o', o])
        s_ref = mean_ssim(ref, frames(A, o, work))
        best = None
        for q in (60, 70, 75, 80, 90):
            p = os.path.join(work, f'{n}.ap-q{q}.webp')
            timed([A, 'convert', g, '-o', p, '--quality', str(q)])
            s = mean_ssim(ref, frames(A, p, work))
            if s >= s_ref and (best is None or kb(p) < best[0]):
                best = (kb(p), s, q)
        row(n, f'{kb(o):.1f}', f'{s_ref:.4f}', *(f'{best[0]:.1f}', f'{best[1]:.4f}', best[2]) if best else ('-', '-', 'none reached it'))

    print('\n### True-colour frames -> GIF (40 frames, 25 fps)\n')
    row('source', 'tool', 'kB', 'SSIM', 'CPU s')
    row('---', '---', '---:', '---:', '---:')
    for name, d in sources.items():
        pngs = sorted(os.path.join(d, f) for f in os.listdir(d))
        ref = frames(A, d, work)
        results = []
        o = os.path.join(work, name + '.ffmpeg.gif')
        t = timed3(['ffmpeg', '-nostdin', '-v', 'error', '-y', '-framerate', '25', '-i', os.path.join(d, 'f%03d.png'),
                   '-filter_complex', '[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse', o])
        results.append(('ffmpeg palettegen/paletteuse', o, t))
        o = os.path.join(work, name + '.magick.gif')
        t = timed3(['convert', '-delay', '4', *pngs, '-layers', 'optimize', o])
        results.append(('ImageMagick -layers optimize', o, t))
        o = os.path.join(work, name + '.animplay.gif')
        t = timed3([A, 'convert', d, '-o', o, '--delay', '40'])
        results.append(('animplay (quality 90)', o, t))
        ff_size = os.path.getsize(results[0][1])
        for q in (100, 95, 90, 85, 80, 75, 70, 60, 50, 40, 30):
            o = os.path.join(work, f'{name}.animplay-q{q}.gif')
            t = timed([A, 'convert', d, '-o', o, '--delay', '40', '--quality', str(q)])
            if os.path.getsize(o) <= ff_size:
                results.append((f'animplay --quality {q} (largest not above ffmpeg)', o, t))
                break
        for tool, o, t in results:
            row(name, tool, f'{kb(o):.1f}', f'{mean_ssim(ref, frames(A, o, work)):.4f}', f'{t:.2f}')

    print('\n### GIF re-optimised\n')
    row('input', 'GIF kB', 'gifsicle -O3 kB', 'animplay kB', 'gifsicle s', 'animplay s', 'animplay exact')
    row('---', '---:', '---:', '---:', '---:', '---:', '---')
    for g in gifs:
        n = os.path.basename(g)
        o1, o2 = os.path.join(work, n + '.O3.gif'), os.path.join(work, n + '.ap.gif')
        t1 = timed3(['gifsicle', '-O3', g, '-o', o1])
        t2 = timed3([A, 'convert', g, '-o', o2])
        exact = all(np.array_equal(a, b) for a, b in zip(frames(A, g, work), frames(A, o2, work)))
        row(n, f'{kb(g):.1f}', f'{kb(o1):.1f}', f'{kb(o2):.1f}', f'{t1:.2f}', f'{t2:.2f}', 'yes' if exact else 'quantised')
    print('load average at the end: %.2f %.2f %.2f' % os.getloadavg())
    print(f'\n(files in {work})')


if __name__ == '__main__':
    main()
