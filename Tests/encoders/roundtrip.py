"""Round trips through `animplay convert`: every case of the conformance corpus and every sample,
converted to APNG, lossless WebP and GIF, must decode (with animplay) to the original's
composited frames, shown for the same times, with the same loop count.

- APNG: identical frames (byte for byte, transparent pixels' colour included), the same number.
- WebP: WebPAnimEncoder may merge a frame identical to the one before into its duration, so
  the timelines are compared (runs of identical frames merged on both sides). By default
  (inexact, as gif2webp) libwebp may change the colour of pixels of alpha 0, so frames are
  compared as a browser shows them: every alpha-0 pixel equal whatever its colour, every other
  pixel byte for byte. `webp-exact` (`convert --exact`) compares byte for byte, run on every
  input that has an alpha-0 pixel of another colour than (0,0,0) (elsewhere it is the same file).
- GIF: only where every frame has at most 256 colours and no partial alpha (the rest is
  quantised); transparent pixels compare as transparent (GIF has no colour under alpha 0).
- Times: the end time of every run within half a stored unit (1 ms; GIF 10 ms), except where
  a source delay is shorter than the format's minimum (DelaySchedule), where only the total is
  checked, within one minimum.

  python3 Tests/encoders/roundtrip.py [--bin .build/release/animplay] [--only SUBSTRING] [-j 2]
Prints one line per failure and "N passed, M failed"; exit status 0 iff none failed.
"""
import argparse, concurrent.futures, csv, hashlib, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
CORPUS = os.path.join(ROOT, 'Tests', 'Fixtures', 'corpus')
sys.path.insert(0, CORPUS)
from check import read_pam  # noqa: E402  (the corpus tool's PAM reader)

# format: (extension, stored time unit in ms, shortest delay written, extra convert arguments)
FORMATS = {'apng': ('png', 1.0, 11, []), 'webp': ('webp', 1.0, 11, []), 'webp-exact': ('webp', 1.0, 11, ['--exact']),
           'gif': ('gif', 10.0, 20, [])}


class Failure(Exception):
    pass


def run(cmd, timeout=60):
    p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    return p.returncode, p.stderr.decode('utf-8', 'replace').strip()


def decode(binary, path, out):
    """(frames as bytes, displayMs list, plays, size) through animplay dump/info."""
    os.makedirs(out, exist_ok=True)
    rc, err = run([binary, 'dump', path, '-o', out, '--format', 'pam'])
    if rc != 0:
        raise Failure(f'dump {os.path.basename(path)}: exit {rc}: {err}')
    p = subprocess.run([binary, 'info', path, '--json'], capture_output=True, timeout=60)
    if p.returncode != 0:
        raise Failure(f'info {os.path.basename(path)}: exit {p.returncode}')
    info = json.loads(p.stdout)
    names = sorted(n for n in os.listdir(out) if n.endswith('.pam'))
    frames, size = [], None
    for n in names:
        w, h, data = read_pam(os.path.join(out, n))
        size = (w, h)
        frames.append(data)
    delays = [f['displayMs'] for f in info['frames']]
    return frames, delays, info['plays'], size


def transparent_normalised(data):
    """RGBA with every alpha-0 pixel made (0,0,0,0)."""
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        a = np.frombuffer(data, dtype=np.uint32).copy()
        a[(a >> 24) == 0] = 0
        return a.tobytes()
    b = bytearray(data)
    for i in range(3, len(b), 4):
        if b[i] == 0:
            b[i - 3] = b[i - 2] = b[i - 1] = 0
    return bytes(b)


def gif_exact(frames):
    """Every frame fits a GIF palette: alpha only 0 or 255, at most 256 colours with the transparent one."""
    try:
        import numpy as np
    except ImportError:
        np = None
    for f in frames:
        if np is not None:
            a = np.frombuffer(f, dtype=np.uint32)
            alpha = a >> 24
            if np.any((alpha != 0) & (alpha != 255)):
                return False
            # 256 palette entries, one of them the transparent index if any pixel is transparent
            if len(np.unique(a[alpha == 255])) + (1 if np.any(alpha == 0) else 0) > 256:
                return False
        else:
            if any(f[i] not in (0, 255) for i in range(3, len(f), 4)):
                return False
            transparent = any(f[i] == 0 for i in range(3, len(f), 4))
            if len({f[i:i + 4] for i in range(0, len(f), 4) if f[i + 3]}) + transparent > 256:
                return False
    return True


def timeline(frames, delays):
    """[(hash, end time)] with runs of identical frames merged."""
    out, t = [], 0.0
    for f, d in zip(frames, delays):
        t += d
        h = hashlib.sha1(f).digest()
        if out and out[-1][0] == h:
            out[-1] = (h, t)
        else:
            out.append((h, t))
    return out


def check(binary, path, fmt, work):
    ext, unit, minimum, extra = FORMATS[fmt]
    src_frames, src_delays, src_plays, size = decode(binary, path, os.path.join(work, 'src'))
    if fmt == 'webp-exact' and all(transparent_normalised(f) == f for f in src_frames):
        return 'no coloured transparent pixels: the same file as webp'
    out = os.path.join(work, 'out.' + ext)
    rc, err = run([binary, 'convert', path, '-o', out, '--format', fmt.split('-')[0], *extra])
    if rc != 0 and 'cannot hold a' in err and rc == 2:
        return f'refused as expected: {err}'   # e.g. WebP's 16383-pixel side limit
    if rc != 0:
        raise Failure(f'convert: exit {rc}: {err}')
    got_frames, got_delays, got_plays, got_size = decode(binary, out, os.path.join(work, 'got'))
    if got_size != size:
        raise Failure(f'size {got_size} != {size}')
    webp = fmt.startswith('webp')
    if fmt in ('gif', 'webp'):
        # No colour under alpha 0 (GIF), or not kept (WebP without --exact): compare as shown.
        src_frames = [transparent_normalised(f) for f in src_frames]
        got_frames = [transparent_normalised(f) for f in got_frames]
    if webp and len(got_frames) == 1 and len(set(src_frames)) == 1:
        # Every frame the same: WebPAnimEncoder writes a still image, the same picture forever.
        if got_frames[0] != src_frames[0]:
            raise Failure('the still picture differs')
        return 'one picture, written as a still'
    if webp:
        src_plays = min(src_plays, 0xFFFF)   # WebP's loop count is 16 bits
    if got_plays != src_plays:
        raise Failure(f'plays {got_plays} != {src_plays}')
    if fmt == 'gif':
        if not gif_exact(src_frames):
            return 'skipped (more than 256 colours or partial alpha)'
    if fmt == 'apng' and len(got_frames) != len(src_frames):
        raise Failure(f'{len(got_frames)} frames, {len(src_frames)} expected')
    a, b = timeline(src_frames, src_delays), timeline(got_frames, got_delays)
    if [h for h, _ in a] != [h for h, _ in b]:
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x[0] != y[0]), min(len(a), len(b)))
        raise Failure(f'pictures differ from run {first} ({len(b)} runs, {len(a)} expected)')
    if min(src_delays) >= minimum:
        for i, ((_, ta), (_, tb)) in enumerate(zip(a, b)):
            if abs(ta - tb) > unit / 2 + 1e-6:
                raise Failure(f'run {i} ends at {tb} ms, {ta} expected')
    elif abs(a[-1][1] - b[-1][1]) > minimum:
        raise Failure(f'total {b[-1][1]} ms, {a[-1][1]} expected')
    return f'{len(got_frames)} frames'


def inputs():
    """(name, path) of every corpus case whose original animplay decodes completely, and the samples."""
    with open(os.path.join(CORPUS, 'cases.tsv')) as f:
        for row in csv.DictReader(f, delimiter='\t'):
            if row['check'] in ('all-frames',):
                yield row['id'], os.path.join(CORPUS, row['input'])
    samples = os.path.join(ROOT, 'samples')
    for n in sorted(os.listdir(samples)):
        if n.endswith(('.gif', '.webp')) or n == 'spinner.png':
            yield 'sample-' + n, os.path.join(samples, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--only', default='')
    ap.add_argument('--formats', default='apng,webp,webp-exact,gif')
    ap.add_argument('-j', type=int, default=2)
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    jobs = [(n, p, f) for n, p in inputs() if args.only in n for f in args.formats.split(',')]

    def one(job):
        name, path, fmt = job
        with tempfile.TemporaryDirectory(prefix='roundtrip-') as work:
            try:
                return job, True, check(args.bin, path, fmt, work)
            except Failure as e:
                return job, False, str(e)
            except Exception as e:  # a checker error is a failure too
                return job, False, f'{type(e).__name__}: {e}'

    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        for (name, path, fmt), ok, msg in pool.map(one, jobs):
            if ok:
                passed += 1
                if args.v:
                    print(f'ok   {name} -> {fmt}: {msg}')
            else:
                failed += 1
                print(f'FAIL {name} -> {fmt}: {msg}')
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
