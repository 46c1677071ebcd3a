#!/usr/bin/env python3
"""Writes apng-stacked-over.png: 12 frames of 64x16 pixels with random colours and alphas
(1-255, seeded), every frame after the first blended OVER the last (dispose none), so that
each pixel of the last frame is eleven partly transparent layers over a partly transparent
base: where two OVER formulas differ by a rounding, it shows.

The expected frames (expected/ID/frame-NNNN.png) are Chromium's, not ours:
    python3 Tests/Fixtures/browser/make.py
    python3 Benchmarks/chromium-reference.py --file Tests/Fixtures/browser/apng-stacked-over.png \\
        --file Tests/Fixtures/webp/stacked_alpha.webp --write-png Tests/Fixtures/browser/expected
"""
import os, random, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_apng(path, w, h, frames):
    def idat(f):
        return zlib.compress(b''.join(b'\0' + bytes(v for p in f[y * w:(y + 1) * w] for v in p) for y in range(h)), 9)
    out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
    out += chunk(b'acTL', struct.pack('>II', len(frames), 0))
    seq = 0
    for i, f in enumerate(frames):
        blend = 1 if i else 0          # OVER after the first frame
        out += chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, w, h, 0, 0, 100, 1000, 0, blend))
        seq += 1
        if i == 0:
            out += chunk(b'IDAT', idat(f))
        else:
            out += chunk(b'fdAT', struct.pack('>I', seq) + idat(f))
            seq += 1
    out += chunk(b'IEND', b'')
    with open(path, 'wb') as fh:
        fh.write(out)


if __name__ == '__main__':
    r = random.Random(7)
    w, h = 64, 16
    frames = [[(r.randrange(256), r.randrange(256), r.randrange(256), r.randrange(1, 256)) for _ in range(w * h)]
              for _ in range(12)]
    write_apng(os.path.join(HERE, 'apng-stacked-over.png'), w, h, frames)
