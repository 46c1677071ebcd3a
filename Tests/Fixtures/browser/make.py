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
