#!/usr/bin/env python3
"""Writes apng-stacked-over.png: 12 frames of 64x16 pixels with random colours and alphas
(1-255, seeded), every frame after the first blended OVER the last (dispose none), so that
each pixel of the last frame is eleven partly transparent layers over a partly transparent
base: where two OVER formulas differ by a rounding, it shows.

apng-over-near-halves.png: two frames of 64x16, the second blended OVER the first, whose pixel
pairs (seeded) are the rare ones where exact OVER lands within 0.0002 of a half in some
channel: where a float formula and exact arithmetic round apart (Chromium's does so for 8 of
65 536 random pairs).

And two 16-bit APNGs, whose samples (seeded, random over all 65536 values) show how 16 bits
become 8: apng-16bit-over.png (RGBA, 6 frames blended OVER) and apng-16bit-grey-trns.png
(grey with a tRNS value; pixels one step either side of it, which the high byte cannot tell
apart, stay opaque).

The expected frames (expected/ID/frame-NNNN.png) are Chromium's, not ours:
    python3 Tests/Fixtures/browser/make.py
    python3 Benchmarks/chromium-reference.py --file Tests/Fixtures/browser/apng-stacked-over.png \\
        --file Tests/Fixtures/webp/stacked_alpha.webp --file Tests/Fixtures/browser/apng-16bit-over.png \\
        --file Tests/Fixtures/browser/apng-16bit-grey-trns.png --file Tests/Fixtures/browser/apng-over-near-halves.png \\
        --write-png Tests/Fixtures/browser/expected
"""
import os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'pty'))
from apngwriter import write_apng  # noqa: E402


if __name__ == '__main__':
    r = random.Random(7)
    w, h = 64, 16
    frames = [[(r.randrange(256), r.randrange(256), r.randrange(256), r.randrange(1, 256)) for _ in range(w * h)]
              for _ in range(12)]
    write_apng(os.path.join(HERE, 'apng-stacked-over.png'), w, h, frames, over=True)

    r = random.Random(16)
    w, h = 48, 12
    frames = [[(r.randrange(65536), r.randrange(65536), r.randrange(65536), r.randrange(1, 65536)) for _ in range(w * h)]
              for _ in range(6)]
    write_apng(os.path.join(HERE, 'apng-16bit-over.png'), w, h, frames, over=True, depth=16)

    r = random.Random(17)
    w, h, key = 32, 8, 0x8A80
    frames = [[(r.choice([key - 1, key, key + 1, r.randrange(65536)]),) for _ in range(w * h)] for _ in range(3)]
    write_apng(os.path.join(HERE, 'apng-16bit-grey-trns.png'), w, h, frames, depth=16, colour_type=0,
               trns=key.to_bytes(2, 'big'))

    r = random.Random(18)
    w, h = 64, 16
    under, over = [], []
    while len(under) < w * h:
        d = (r.randrange(256), r.randrange(256), r.randrange(256), r.randrange(1, 255))
        o = (r.randrange(256), r.randrange(256), r.randrange(256), r.randrange(1, 255))
        a255 = o[3] * 255 + d[3] * (255 - o[3])
        exact = [(o[c] * o[3] * 255 + d[c] * d[3] * (255 - o[3])) / a255 for c in range(3)]
        if any(abs(v - int(v) - 0.5) < 0.0002 for v in exact):
            under.append(d)
            over.append(o)
    write_apng(os.path.join(HERE, 'apng-over-near-halves.png'), w, h, [under, over], over=True)
