#!/usr/bin/env python3
"""Files written by `animplay convert`, shown by Chromium: a sample of inputs (the samples and
corpus cases with disposal, blending, transparency and many colours) is converted to GIF, APNG
and lossless WebP, then Benchmarks/chromium-reference.py --file compares every written file's
frames, stored delays and loop count in headless Chromium's ImageDecoder with what animplay
reads back from it.

    python3 Benchmarks/chromium-encoded.py [--animplay .build/release/animplay]
"""
import argparse, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INPUTS = ['samples/bounce.gif', 'samples/orbit.webp', 'samples/pulse.webp', 'samples/spinner.png',
          'Tests/Fixtures/corpus/inputs/gif/libvips/dispose-background.gif',
          'Tests/Fixtures/corpus/inputs/gif/libvips/dispose-previous.gif',
          'Tests/Fixtures/corpus/inputs/gif/libvips/cramps.gif',
          'Tests/Fixtures/corpus/inputs/gif/image-gif/moon_impact.gif']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    a = ap.parse_args()
    apng = sorted(os.path.join('Tests/Fixtures/corpus/inputs/apng/libvips', n)
                  for n in os.listdir(os.path.join(ROOT, 'Tests/Fixtures/corpus/inputs/apng/libvips')))
    work = tempfile.mkdtemp(prefix='animplay-chromium-encoded-')
    files = []
    for src in INPUTS + apng:
        base = os.path.splitext(os.path.basename(src))[0]
        for ext in ('gif', 'png', 'webp'):
            out = os.path.join(work, f'{base}-{ext}.{ext}')
            p = subprocess.run([a.animplay, 'convert', os.path.join(ROOT, src), '-o', out],
                               capture_output=True, text=True)
            if p.returncode == 0:
                files.append(out)
            else:
                print(f'{src} -> {ext}: {p.stderr.strip()}', file=sys.stderr)
    cmd = [sys.executable, os.path.join(HERE, 'chromium-reference.py'), '--animplay', a.animplay]
    for f in files:
        cmd += ['--file', f]
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == '__main__':
    main()
