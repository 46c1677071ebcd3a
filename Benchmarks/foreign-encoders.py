#!/usr/bin/env python3
"""Animations and stills from other encoders, shown by Chromium and by animplay: seeded random
frames (1x1 to 160x120, 1-10 frames, partly transparent shapes, plasma photos, offsets, every
disposal) are encoded by ImageMagick (GIF, WebP; PNG stills of every colour type and depth,
interlaced; JPEG of every subsampling, progressive, grey, CMYK, with EXIF orientations), gifsicle
(-O1..-O3, --lossy, --colors, --interlace, disposals), ffmpeg (GIF with palettegen/paletteuse and
transdiff, APNG in eight pixel formats up to 16 bits, WebP), apngasm, img2webp (lossy, lossless,
mixed), gif2webp, cwebp (lossy with every alpha option, lossless, near-lossless) and avifenc
(8-bit stills and sequences; 10 and 12 bits too with --avif-depths 8,10,12); then
Benchmarks/chromium-reference.py --file compares every file's frames, stored delays and loop
count in headless Chromium (ImageDecoder; stills that it hands out as YUV planes as <img> draws
them) with animplay's. The same seed makes the same files (with the same tools).

    apt-get install chromium apngasm gifsicle webp ffmpeg imagemagick
    python3 Benchmarks/foreign-encoders.py [--seed 2] [--count 180] [--keep DIR] [--avif-depths 8,10,12]
        [--convert | --truncate]

With --convert, each GIF, APNG and WebP is also converted by animplay to APNG and to lossless
WebP, and Chromium shows each written file: its pictures over one play must be the source's
(display delays, since a written file stores what a browser shows; WebP merges repeated frames).
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile

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


KINDS = ['im-gif', 'gifsicle', 'ffmpeg-gif', 'ffmpeg-apng', 'apngasm', 'img2webp', 'gif2webp', 'im-webp', 'ffmpeg-webp',
         'im-jpeg', 'avifenc', 'im-png', 'cwebp']


def make(out, seed, i, avif_depths=('8',)):
    """Case i's file in `out` (its name says the case and the encoder), or None if the encoder refused.
    `avif_depths`: the sample depths an avifenc file is drawn from (--avif-depths)."""
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
        elif kind == 'im-jpeg':
            name = os.path.join(out, f'{tag}-imjpeg.jpg')
            args = [IM, fs[0], '-background', rgba(r, False), '-flatten', '-quality', str(r.choice([20, 75, 95, 100])),
                    '-sampling-factor', r.choice(['4:2:0', '4:2:2', '4:4:4', '4:1:1', '4:4:0'])]
            if r.random() < 0.4: args += ['-interlace', 'Plane']
            if r.random() < 0.2: args += ['-colorspace', r.choice(['Gray', 'CMYK'])]
            if r.random() < 0.4: args += ['-orient', r.choice(['TopLeft', 'TopRight', 'BottomRight', 'BottomLeft',
                                                            'LeftTop', 'RightTop', 'RightBottom', 'LeftBottom'])]
            sh(*args, name)
        elif kind == 'avifenc':
            name = os.path.join(out, f'{tag}-avifenc.avif')
            # 8 bits unless --avif-depths says otherwise; the depth is drawn from a generator of its
            # own, so that the other files of a seed stay the same.
            depth = random.Random(f'{tag}-depth').choice(avif_depths)
            args = ['avifenc', '-s', '10', '-d', depth, '-y', r.choice(['444', '420', '422', '400']), '--min', '0',
                    '--max', str(r.choice([0, 20, 63])), '--timescale', str(r.choice([10, 30, 1000])), '-j', '1']
            # --duration applies to the files after it: one for all.
            args += ['--duration', str(r.choice([1, 3, 100]))]
            sh(*args, *fs[:r.randrange(1, 5)], name)
        elif kind == 'im-png':
            name = os.path.join(out, f'{tag}-impng.png')
            args = [IM, fs[0]]
            if r.random() < 0.5: args += ['-interlace', 'PNG']
            ct = r.choice(['0', '2', '3', '4', '6', None])
            if ct: args += ['-define', 'png:color-type=' + ct]
            if ct in ('0', '2', '4', '6'): args += ['-define', 'png:bit-depth=' + r.choice(['8', '16'])]
            if r.random() < 0.3: args += ['-colors', str(r.choice([2, 4, 16, 200]))]
            sh(*args, name)
        elif kind == 'cwebp':
            name = os.path.join(out, f'{tag}-cwebp.webp')
            args = ['cwebp', '-quiet']
            if r.random() < 0.3:
                args += r.choice([['-lossless'], ['-near_lossless', str(r.choice([0, 40, 80]))], ['-z', '6']])
            else:
                args += ['-q', str(r.choice([5, 50, 90])), '-alpha_q', str(r.choice([0, 30, 100])),
                         '-alpha_filter', r.choice(['none', 'fast', 'best']), '-alpha_method', r.choice(['0', '1']),
                         '-f', str(r.choice([0, 60, 100])), '-segments', str(r.choice([1, 4]))]
                if r.random() < 0.3: args += ['-sharp_yuv']
            if r.random() < 0.3: args += ['-exact']
            sh(*args, fs[0], '-o', name)
        return name
    except RuntimeError as e:
        print(f'case {i} ({kind}) not made: {str(e)[-200:]}', file=sys.stderr)
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def convert_check(files, animplay, work):
    """Each file converted by animplay to APNG and to lossless WebP, the written file shown by
    Chromium against animplay's frames of the source, as pictures over one play (display
    delays: a written file stores what a browser shows, and WebP merges repeated frames), and
    the loop count. Prints the files that differ; the number of those."""
    cr = reference_module()
    cases = []
    for f in files:
        if f.endswith(('.jpg', '.avif')):
            continue
        base = os.path.splitext(os.path.basename(f))[0]
        for ext, extra in (('png', []), ('webp', ['--lossless'])):
            out = os.path.join(work, f'{base}-to{ext}.{ext}')
            p = subprocess.run([animplay, 'convert', f, '-o', out] + extra, capture_output=True, text=True)
            if p.returncode:
                print(f'{f}: convert to {ext} failed: {p.stderr.strip()[:200]}')
                continue
            cases.append((f, out))
    chrome = os.path.join(work, 'chromium')
    cr.chromium_frames([cr.file_case(o) for _, o in cases], chrome, 600)
    bad = 0
    for src, out in cases:
        cid = os.path.splitext(os.path.basename(out))[0]
        meta = json.load(open(os.path.join(chrome, cid, 'meta.json')))
        theirs = [m for m in meta.get('list', []) if 'error' not in m]
        d = os.path.join(work, 'ours', cid)
        subprocess.run([animplay, 'dump', src, '-o', d, '--format', 'pam'], capture_output=True)
        info = json.loads(subprocess.run([animplay, 'info', src, '--json'], capture_output=True, text=True).stdout)
        notes = compare_over_time(cr, info, [cr.read_pam(os.path.join(d, n)) for n in sorted(os.listdir(d))],
                                  theirs, os.path.join(chrome, cid))
        if len(theirs) >= 2:
            rep = meta.get('repetitionCount')
            plays = 0 if rep == 'Infinity' else int(rep) + 1
            if plays != info['plays']:
                notes.append(f"plays {info['plays']} vs {plays}")
        if notes:
            bad += 1
            print(f"{cid}: {'; '.join(notes)}")
    print(f'convert: {len(cases) - bad} of {len(cases)} written files (APNG, lossless WebP) show the source in Chromium')
    return bad


def compare_over_time(cr, info, source, theirs, chrome_dir):
    """Differences between the source's frames (display delays from `info`) and Chromium's of
    the written file, sampled in the middle of every stretch between two frames' ends."""
    disp = [f['displayMs'] for f in info['frames']]
    written, times = [], []
    for i, m in enumerate(theirs):
        raw = open(os.path.join(chrome_dir, f'{i}.raw'), 'rb').read()
        written.append((m['w'], m['h'], cr.to_rgba(raw[:m['w'] * m['h'] * 4], m['format'])))
        ms = m['duration'] / 1000 if m['duration'] is not None else 0
        times.append(100 if ms <= 10 else ms)          # the browser rule, as `displayMs`
    if len(theirs) <= 1:
        times = [sum(disp)]
    ends = lambda ds: [sum(ds[:k + 1]) for k in range(len(ds))]
    se, oe = ends(disp), ends(times)
    notes = []
    if abs(se[-1] - oe[-1]) > 1:
        notes.append(f'one play {se[-1]} vs {oe[-1]} ms')
    at = lambda e, t: next((k for k, x in enumerate(e) if t < x), len(e) - 1)
    bounds = sorted(set([0.0] + se + oe))
    for a, b in zip(bounds, bounds[1:]):
        t = (a + b) / 2
        i, j = at(se, t), at(oe, t)
        (w1, h1, p1), (w2, h2, p2) = source[i], written[j]
        if (w1, h1) != (w2, h2):
            notes.append(f'{t:.0f} ms: size {w1}x{h1} vs {w2}x{h2}')
            break
        differ, worst = cr.compare(p1, p2)
        if differ:
            notes.append(f'{t:.0f} ms (source frame {i}, written frame {j}): {differ} px differ, max {worst}')
            break
    return notes


def reference_module():
    """Benchmarks/chromium-reference.py as a module (its Chromium runner and comparisons)."""
    from script_module import load
    return load(os.path.join(HERE, 'chromium-reference.py'))


def cut_copies(files, out, seed):
    """Each GIF and APNG of more than one frame's worth of bytes cut at a seeded 50, 80 or 95 %
    of its length: what a browser shows of a download that failed. (Chromium's ImageDecoder
    refuses a cut WebP, JPEG, AVIF or still PNG whole, so those are left out.)"""
    r = random.Random(seed)
    cut = []
    for f in files:
        if not f.endswith(('.gif', '.png')) or os.path.getsize(f) < 2000:
            continue
        data = open(f, 'rb').read()
        if f.endswith('.png') and b'acTL' not in data:
            continue
        n = int(len(data) * r.choice([0.5, 0.8, 0.95]))
        base, ext = os.path.splitext(os.path.basename(f))
        path = os.path.join(out, f'{base}-cut{n}{ext}')
        with open(path, 'wb') as fh:
            fh.write(data[:n])
        cut.append(path)
    return cut


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=2)
    ap.add_argument('--count', type=int, default=180)
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--keep', help='write the files here (kept) instead of a temporary folder')
    ap.add_argument('--truncate', action='store_true',
                    help='compare copies of the GIF and APNG files cut short (a failed download) instead')
    ap.add_argument('--avif-depths', default='8',
                    help='the sample depths avifenc files are drawn from (e.g. 8,10,12; default 8)')
    ap.add_argument('--convert', action='store_true',
                    help='also convert each file to APNG and lossless WebP and check the written files in Chromium')
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix='animplay-foreign-')
    os.makedirs(out, exist_ok=True)
    try:
        files = [f for f in (make(out, a.seed, i, a.avif_depths.split(',')) for i in range(a.count)) if f]
        print(f'{len(files)} files made (seed {a.seed})', file=sys.stderr)
        if a.truncate:
            files = cut_copies(files, out, a.seed)
            print(f'{len(files)} cut copies', file=sys.stderr)
        args = [sys.executable, os.path.join(HERE, 'chromium-reference.py'), '--animplay', a.animplay]
        for f in files:
            args += ['--file', f]
        status = subprocess.run(args).returncode
        if a.convert:
            work = os.path.join(out, 'converted')
            os.makedirs(work, exist_ok=True)
            status = status or (1 if convert_check(files, a.animplay, work) else 0)
        sys.exit(status)
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == '__main__':
    main()
