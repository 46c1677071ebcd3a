#!/usr/bin/env python3
"""Sixel colour error per frame, animplay against chafa (issue 20 item 3: "measure colour error per
frame against the source side by side with chafa").

Each player plays the source once in a pseudo-terminal (Benchmarks/ptyrun.py, black background) with
`--graphics sixel` / `chafa -f sixel`; every sixel image it writes is decoded back to pixels and
compared with the source frame it shows (the best match among the frames as animplay's exact
compositor makes them, `animplay dump`, blended over the black background in sRGB as a browser does).
Two boxes per source: one where both players draw the picture at its own size (so the error is the
palette's alone), and the whole 120x40-cell window of 10x20 px, where both enlarge (`--fill`,
`--scale max`) and the reference is the source scaled by ffmpeg to the image's size (so scaling
differences count as well).

Per frame: mean absolute error over the three channels (0-255) and the 99th percentile of the
per-pixel maximum channel error; "lost" counts frames where some colour covering at least 0.5 % of
the picture is drawn more than 24 levels off in some channel (the grey-moon-drawn-lavender defect).

usage: Benchmarks/sixel-colour.py [--animplay PATH] [SOURCE ...]
"""
import argparse, json, os, re, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIXEL = re.compile(rb'\x1bP[0-9;]*q(.*?)\x1b\\', re.S)


def load_sixelbench():
    from script_module import load
    return load(os.path.join(HERE, 'sixel-bench.py'), 'sixelbench')


def pam_frames(animplay, src, d):
    """Composited RGBA frames of `src` (animplay dump, PAM), blended over black in sRGB."""
    out = os.path.join(d, 'frames')
    os.makedirs(out, exist_ok=True)
    subprocess.run([animplay, 'dump', src, '--format', 'pam', '--output', out], capture_output=True, check=True)
    frames = []
    for name in sorted(os.listdir(out)):
        data = open(os.path.join(out, name), 'rb').read()
        if data.startswith(b'P7'):
            head, _, rest = data.partition(b'ENDHDR\n')
            fields = dict(line.split(b' ', 1) for line in head.splitlines()[1:] if b' ' in line)
            w, h, depth = int(fields[b'WIDTH']), int(fields[b'HEIGHT']), int(fields[b'DEPTH'])
            px = np.frombuffer(rest[:w * h * depth], np.uint8).reshape(h, w, depth)
        else:
            m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+255\s', data)
            w, h = int(m.group(1)), int(m.group(2))
            px = np.frombuffer(data[m.end():m.end() + w * h * 3], np.uint8).reshape(h, w, 3)
        if px.shape[2] == 4:
            # Straight alpha over black, rounded as Chromium does: round(c * a / 255).
            a = px[..., 3:4].astype(np.uint32)
            px = ((px[..., :3].astype(np.uint32) * a + 127) // 255).astype(np.uint8)
        frames.append(np.ascontiguousarray(px[..., :3]))
    return np.stack(frames)


def scaled(frames, w, h, d):
    """Frames scaled to w x h by ffmpeg (bicubic, what both enlargers are compared with)."""
    n, fh, fw, _ = frames.shape
    if (fw, fh) == (w, h):
        return frames
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{fw}x{fh}', '-i', '-',
                          '-vf', f'scale={w}:{h}:flags=bicubic', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
                         input=frames.tobytes(), capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(n, h, w, 3)


def lost_colour(img, ref):
    """True when a colour covering >= 0.5 % of the reference is drawn > 24 levels off (median error)."""
    q = (ref >> 3).astype(np.int32)
    keys = (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]
    err = np.abs(img.astype(np.int16) - ref.astype(np.int16)).max(axis=2)
    values, counts = np.unique(keys, return_counts=True)
    for v in values[counts >= keys.size * 0.005]:
        if np.median(err[keys == v]) > 24:
            return True
    return False


def measure(images, refs, sb, d):
    per_frame, lost, size = [], 0, None
    cache = {}
    for body in images:
        img = sb.decode_sixel(body)
        h, w = img.shape[:2]
        size = f'{w}x{h}'
        if (w, h) not in cache:
            cache[(w, h)] = scaled(refs, w, h, d)
        ref = cache[(w, h)]
        coarse = [np.mean((r[::6, ::6].astype(np.int32) - img[::6, ::6].astype(np.int32)) ** 2) for r in ref]
        best = ref[int(np.argmin(coarse))]
        diff = np.abs(img.astype(np.int16) - best.astype(np.int16))
        per_frame.append((float(diff.mean()), float(np.percentile(diff.max(axis=2), 99))))
        lost += lost_colour(img, best)
    mae = [m for m, _ in per_frame]
    p99 = [p for _, p in per_frame]
    return dict(size=size, images=len(images), mae_median=round(float(np.median(mae)), 2),
                mae_worst=round(max(mae), 2), p99_worst=round(max(p99), 1), lost=lost)


def play(ptyrun, cmd, cols, rows, cw, ch, save):
    subprocess.run([sys.executable, ptyrun, '--sixel', '--cols', str(cols), '--rows', str(rows), '--xpixel', str(cols * cw),
                    '--ypixel', str(rows * ch), '--timeout', '120', '--save', save, '--'] + cmd,
                   capture_output=True, text=True, check=True)
    return [m.group(1) for m in SIXEL.finditer(open(save, 'rb').read())]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--ptyrun', default=os.path.join(HERE, 'ptyrun.py'))
    ap.add_argument('--json', action='store_true')
    ap.add_argument('sources', nargs='*')
    a = ap.parse_args()
    sources = a.sources or [os.path.join(ROOT, 'samples', 'orbit.webp'), os.path.join(HERE, 'data', 'testsrc2-640x360x150.gif')]
    if not os.path.exists(sources[-1]) and 'testsrc2' in sources[-1]:
        subprocess.run([os.path.join(HERE, 'make-inputs.sh')], check=True)
    sb = load_sixelbench()
    rows_out = []
    with tempfile.TemporaryDirectory() as d:
        for src in sources:
            refs = pam_frames(a.animplay, src, d)
            info = json.loads(subprocess.run([a.animplay, 'info', '--json', src], capture_output=True, check=True).stdout)
            seconds = info.get('durationMs', 2000) / 1000
            n, h, w, _ = refs.shape
            # A box where both draw the picture at its own size: cells that divide the picture (chafa
            # sizes pictures in whole cells), one spare row for the status line.
            cw, ch = next(((cw, ch) for cw, ch in ((10, 20), (8, 16), (10, 16), (8, 20)) if w % cw == 0 and h % ch == 0), (10, 20))
            native = (-(-w // cw), -(-h // ch) + 1, cw, ch)
            for box, fill in ((native, False), ((120, 40, 10, 20), True)):
                cols, rows, cw, ch = box
                cmds = {
                    'animplay': [a.animplay, '--graphics', 'sixel', '--loop', '1', '--size', f'{cols}x{rows - 1}']
                                + (['--fill'] if fill else []) + [src],
                    'chafa': ['chafa', '-f', 'sixel', f'--size={cols}x{rows - 1}', '--scale=max' if fill else '--scale=1',
                              '--animate=on', f'--duration={seconds:.3f}', src],
                }
                for name, cmd in cmds.items():
                    images = play(a.ptyrun, cmd, cols, rows, cw, ch, os.path.join(d, 'out'))
                    if name == 'animplay' and len(images) > n:
                        images = images[:n]   # the last frame is printed again at exit
                    if not images:
                        print(f'{name}: no sixel images for {src}', file=sys.stderr)
                        continue
                    r = dict(source=os.path.basename(src), box=f'{cols}x{rows}@{cw}x{ch}', player=name, **measure(images, refs, sb, d))
                    rows_out.append(r)
                    if not a.json:
                        print(f"{r['source']:28} {r['box']:13} {name:9} {r['size']:>9} images {r['images']:4}  "
                              f"MAE median {r['mae_median']:5.2f} worst {r['mae_worst']:5.2f}  "
                              f"p99 worst {r['p99_worst']:5.1f}  frames losing a colour {r['lost']}", flush=True)
    if a.json:
        print(json.dumps(rows_out, indent=1))


if __name__ == '__main__':
    main()
