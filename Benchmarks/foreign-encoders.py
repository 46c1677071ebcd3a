#!/usr/bin/env python3
"""Animations from other encoders, shown by Chromium and by animplay: seeded random frames
(1x1 to 160x120, 1-10 frames, partly transparent shapes, plasma photos, offsets, every
disposal) are encoded by ImageMagick (GIF, WebP), gifsicle (-O1..-O3, --lossy, --colors,
--interlace, disposals), ffmpeg (GIF with palettegen/paletteuse and transdiff, APNG in eight
pixel formats up to 16 bits, WebP), apngasm, img2webp (lossy, lossless, mixed) and gif2webp;
then Benchmarks/chromium-reference.py --file compares every file's frames, stored delays and
loop count in headless Chromium's ImageDecoder with animplay's. The same seed makes the same
files (with the same tools).

    apt-get install chromium apngasm gifsicle webp ffmpeg imagemagick
    python3 Benchmarks/foreign-encoders.py [--seed 2] [--count 180] [--keep DIR]
"""
import argparse, os, random, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
IM = shutil.which('convert-im6.q16') or 'convert'


def sh(*args, **kw):
    """Runs a tool; RuntimeError with the end of its stderr if it fails."""
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode:
        raise RuntimeError(' '.join(map(str, args)) + ': ' + p.stderr[-400:])
    return p


def rgba(r, alpha_ok):
    """A random ImageMagick colour, partly or fully transparent when `alpha_ok`."""
    a = r.choice([1, 1, 1, 0.5, 0.2, 0.8, 0]) if alpha_ok else 1
    return f'rgba({r.randrange(256)},{r.randrange(256)},{r.randrange(256)},{a})'


def frames(r, d, n, w, h, alpha_ok, photo):
    """n frames of w x h as d/fNNN.png: shapes over a plain (or transparent) background, or
    ImageMagick's seeded plasma (photo-like colours) when `photo`."""
    paths = []
    bg = rgba(r, alpha_ok) if r.random() < 0.6 else 'none' if alpha_ok else 'white'
    for k in range(n):
        p = os.path.join(d, f'f{k:03d}.png')
        args = [IM, '-size', f'{w}x{h}']
        if photo and r.random() < 0.7:
            args += ['-seed', str(r.randrange(1 << 30)), 'plasma:']
        else:
            args += [f'xc:{bg}']
        for _ in range(r.randrange(0, 5)):
            x0, y0 = r.randrange(w), r.randrange(h)
            x1, y1 = r.randrange(w), r.randrange(h)
            kind = r.choice(['rectangle', 'circle', 'line', 'ellipse'])
            args += ['-fill', rgba(r, alpha_ok), '-stroke', r.choice(['none', rgba(r, alpha_ok)])]
            if kind == 'ellipse':
                args += ['-draw', f'ellipse {x0},{y0} {max(1,abs(x1-x0))},{max(1,abs(y1-y0))} 0,360']
            else:
                args += ['-draw', f'{kind} {x0},{y0} {x1},{y1}']
        if alpha_ok and r.random() < 0.3:
            args += ['-channel', 'A', '-evaluate', 'multiply', str(r.choice([0.3, 0.6, 0.99])), '+channel']
        args += [p]
        sh(*args)
        paths.append(p)
    return paths


KINDS = ['im-gif', 'gifsicle', 'ffmpeg-gif', 'ffmpeg-apng', 'apngasm', 'img2webp', 'gif2webp', 'im-webp', 'ffmpeg-webp']


def make(out, seed, i):
    """Case i's file in `out` (its name says the case and the encoder), or None if the encoder refused."""
    r = random.Random(seed * 100003 + i)
    kind = KINDS[i % len(KINDS)]
    w, h = r.randrange(1, 161), r.randrange(1, 121)
    if r.random() < 0.2:
        w, h = r.randrange(1, 9), r.randrange(1, 9)
    n = r.randrange(1, 11)
    d = os.path.join(out, f'src{i}')
    os.makedirs(d)
    alpha_ok = r.random() < 0.7
    photo = r.random() < 0.4
    tag = f's{seed}-{i:04d}'
    try:
        fs = frames(r, d, n, w, h, alpha_ok, photo)
        delay = r.choice([0, 1, 2, 5, 10, 7, 33])
        pattern = os.path.join(d, 'f%03d.png')
        if kind == 'im-gif':
            name = os.path.join(out, f'{tag}-imgif.gif')
            args = [IM, '-loop', str(r.choice([0, 1, 3]))]
            for f in fs:
                fw, fh = r.randrange(1, w + 1), r.randrange(1, h + 1)
                x, y = r.randrange(0, w - fw + 1), r.randrange(0, h - fh + 1)
                args += ['-delay', str(r.choice([0, 2, 10, 7])), '-dispose', r.choice(['None', 'Background', 'Previous']),
                         '(', f, '-crop', f'{fw}x{fh}+{x}+{y}', ')', '-set', 'page', f'{w}x{h}+{x}+{y}']
            if r.random() < 0.3: args += ['-interlace', 'GIF']
            if r.random() < 0.3: args += ['-colors', str(r.choice([2, 16, 255]))]
            sh(*args, name)
        elif kind == 'gifsicle':
            tmp = os.path.join(d, 'a.gif')
            sh(IM, '-delay', str(delay), '-loop', '0', '-dispose', r.choice(['None', 'Background', 'Previous']), *fs, tmp)
            name = os.path.join(out, f'{tag}-gifsicle.gif')
            opts = [r.choice(['-O1', '-O2', '-O3'])]
            if r.random() < 0.4: opts += ['--lossy=' + str(r.choice([20, 80, 200]))]
            if r.random() < 0.3: opts += ['--colors', str(r.choice([4, 32, 256]))]
            if r.random() < 0.3: opts += ['--interlace']
            if r.random() < 0.3: opts += ['--disposal', r.choice(['none', 'background', 'previous', 'asis'])]
            if r.random() < 0.3: opts += ['--dither']
            if r.random() < 0.2: opts += ['--loopcount=' + str(r.choice([1, 2, 5]))]
            sh('gifsicle', *opts, tmp, '-o', name)
        elif kind == 'ffmpeg-gif':
            name = os.path.join(out, f'{tag}-ffgif.gif')
            vf = 'split[a][b];[a]palettegen=reserve_transparent=1' + (':stats_mode=diff' if r.random() < .5 else '') + \
                 '[p];[b][p]paletteuse' + r.choice(['', '=diff_mode=rectangle', '=dither=none', '=dither=bayer'])
            sh('ffmpeg', '-v', 'error', '-y', '-framerate', str(r.choice([5, 10, 25, 50])), '-i', pattern,
               '-vf', vf, '-gifflags', r.choice(['+transdiff', '-transdiff']), '-loop', str(r.choice([0, -1, 2])), name)
        elif kind == 'ffmpeg-apng':
            name = os.path.join(out, f'{tag}-ffapng.png')
            pix = r.choice(['rgba', 'rgb24', 'pal8', 'gray', 'ya8', 'rgba64be', 'rgb48be', 'gray16be'])
            sh('ffmpeg', '-v', 'error', '-y', '-framerate', str(r.choice([5, 10, 25, 50])), '-i', pattern,
               '-pix_fmt', pix, '-pred', r.choice(['none', 'mixed', 'paeth']), '-plays', str(r.choice([0, 1, 3])), '-f', 'apng', name)
        elif kind == 'apngasm':
            name = os.path.join(out, f'{tag}-apngasm.png')
            sh('apngasm', name, *fs, str(r.choice([1, 5, 10])), str(r.choice([10, 100])), r.choice(['-z0', '-z1', '-z2']),
               *(['-l' + str(r.choice([1, 3]))] if r.random() < 0.3 else []), *(['-f'] if r.random() < 0.3 else []))
        elif kind == 'img2webp':
            name = os.path.join(out, f'{tag}-img2webp.webp')
            args = ['img2webp', '-loop', str(r.choice([0, 1, 4]))]
            if r.random() < 0.3: args += ['-min_size']
            if r.random() < 0.3: args += ['-mixed']
            for f in fs:
                args += ['-d', str(r.choice([1, 10, 70, 100])), r.choice(['-lossy', '-lossless']), '-q', str(r.choice([10, 75, 100])), f]
            sh(*args, '-o', name)
        elif kind == 'gif2webp':
            tmp = os.path.join(d, 'a.gif')
            sh(IM, '-delay', str(delay), '-loop', str(r.choice([0, 2])), '-dispose', r.choice(['None', 'Background', 'Previous']), *fs, tmp)
            if r.random() < 0.5: sh('gifsicle', '-O3', tmp, '-o', tmp)
            name = os.path.join(out, f'{tag}-gif2webp.webp')
            opts = [r.choice(['-lossy', '-mixed', '-q', '-min_size'])]
            if opts[0] == '-q': opts += ['80']
            sh('gif2webp', *opts, tmp, '-o', name)
        elif kind == 'im-webp':
            name = os.path.join(out, f'{tag}-imwebp.webp')
            args = [IM, '-delay', str(delay), '-loop', str(r.choice([0, 1])), '-dispose', r.choice(['None', 'Background'])]
            args += fs + ['-define', 'webp:lossless=' + r.choice(['true', 'false'])]
            sh(*args, name)
        elif kind == 'ffmpeg-webp':
            name = os.path.join(out, f'{tag}-ffwebp.webp')
            sh('ffmpeg', '-v', 'error', '-y', '-framerate', str(r.choice([5, 10, 25])), '-i', pattern,
               '-c:v', 'libwebp_anim', '-lossless', r.choice(['0', '1']), '-loop', str(r.choice([0, 2])),
               '-pix_fmt', r.choice(['yuva420p', 'yuv420p', 'bgra']), name)
        return name
    except RuntimeError as e:
        print(f'case {i} ({kind}) not made: {str(e)[-200:]}', file=sys.stderr)
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=2)
    ap.add_argument('--count', type=int, default=180)
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--keep', help='write the files here (kept) instead of a temporary folder')
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix='animplay-foreign-')
    os.makedirs(out, exist_ok=True)
    try:
        files = [f for f in (make(out, a.seed, i) for i in range(a.count)) if f]
        print(f'{len(files)} files made (seed {a.seed})', file=sys.stderr)
        args = [sys.executable, os.path.join(HERE, 'chromium-reference.py'), '--animplay', a.animplay]
        for f in files:
            args += ['--file', f]
        sys.exit(subprocess.run(args).returncode)
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == '__main__':
    main()
