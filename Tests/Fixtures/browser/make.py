#!/usr/bin/env python3
"""Writes apng-stacked-over.png: 12 frames of 64x16 pixels with random colours and alphas
(1-255, seeded), every frame after the first blended OVER the last (dispose none), so that
each pixel of the last frame is eleven partly transparent layers over a partly transparent
base: where two OVER formulas differ by a rounding, it shows.

apng-over-near-halves.png: two frames of 64x16, the second blended OVER the first, whose pixel
pairs (seeded) are the rare ones where exact OVER lands within 0.0002 of a half in some
channel: where a float formula and exact arithmetic round apart (Chromium's does so for 8 of
65 536 random pairs).

apng-cut-source.png, apng-cut-over.png, apng-cut-subrect.png: two-frame APNGs (seeded, random
pixels) cut in the middle of the second frame's data: Chromium shows the rows that arrived, and
under them nothing (a frame that replaces the canvas), or what was there (OVER; a sub-rectangle).

gif-cut-opaque.gif: two 16x16 frames covering the screen without a transparent index (seeded,
random indices of a 4-colour table), cut in the middle of the second frame's data: Chromium
decodes that frame alone, so below the pixels that arrived it is transparent, not the first.

And two 16-bit APNGs, whose samples (seeded, random over all 65536 values) show how 16 bits
become 8: apng-16bit-over.png (RGBA, 6 frames blended OVER) and apng-16bit-grey-trns.png
(grey with a tRNS value; pixels one step either side of it, which the high byte cannot tell
apart, stay opaque).

The expected frames (expected/ID/frame-NNNN.png) are Chromium's, not ours:
    python3 Tests/Fixtures/browser/make.py
    python3 Benchmarks/chromium-reference.py --file Tests/Fixtures/browser/apng-stacked-over.png \\
        --file Tests/Fixtures/webp/stacked_alpha.webp --file Tests/Fixtures/browser/apng-16bit-over.png \\
        --file Tests/Fixtures/browser/apng-16bit-grey-trns.png --file Tests/Fixtures/browser/apng-over-near-halves.png \\
        --file Tests/Fixtures/browser/apng-cut-source.png --file Tests/Fixtures/browser/apng-cut-over.png \\
        --file Tests/Fixtures/browser/apng-cut-subrect.png --file Tests/Fixtures/browser/gif-cut-opaque.gif \\
        --write-png Tests/Fixtures/browser/expected
"""
import os, random, struct, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'pty'))
from apngwriter import _chunk, write_apng  # noqa: E402


def gif_lzw(indices, code_size=2):
    """Image data for `indices` (each below 2^code_size): a clear code before every second
    index keeps the code width at code_size + 1 (valid LZW, no compression)."""
    clear, end, width = 1 << code_size, (1 << code_size) + 1, code_size + 1
    codes = [c for i, v in enumerate(indices) for c in ((clear, v) if i % 2 == 0 else (v,))] + [end]
    bits = count = 0
    data = bytearray()
    for c in codes:
        bits |= c << count
        count += width
        while count >= 8:
            data.append(bits & 255)
            bits >>= 8
            count -= 8
    if count:
        data.append(bits & 255)
    blocks = b''.join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return bytes([code_size]) + blocks + b'\0'


def cut_last_frame_data(path):
    """Cuts the file in the middle of its last fdAT chunk's data."""
    data = open(path, 'rb').read()
    at = data.rindex(b'fdAT') - 4
    length = struct.unpack('>I', data[at:at + 4])[0]
    with open(path, 'wb') as f:
        f.write(data[:at + 12 + length // 2])


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

    r = random.Random(19)
    w, h = 40, 30
    def noise(alpha=lambda: 255):
        return [(r.randrange(256), r.randrange(256), r.randrange(256), alpha()) for _ in range(w * h)]
    write_apng(os.path.join(HERE, 'apng-cut-source.png'), w, h, [noise(), noise()])
    write_apng(os.path.join(HERE, 'apng-cut-over.png'), w, h, [noise(), noise(lambda: r.randrange(1, 255))], over=True)
    # The second frame a 20x20 rectangle at (10, 5), blend SOURCE.
    def rows(pixels, fw, fh):
        return zlib.compress(b''.join(b'\0' + b''.join(bytes(p) for p in pixels[y * fw:(y + 1) * fw]) for y in range(fh)))
    base, square = noise(), [(r.randrange(256), r.randrange(256), r.randrange(256), 255) for _ in range(20 * 20)]
    out = b'\x89PNG\r\n\x1a\n' + _chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
    out += _chunk(b'acTL', struct.pack('>II', 2, 0))
    out += _chunk(b'fcTL', struct.pack('>IIIIIHHBB', 0, w, h, 0, 0, 100, 1000, 0, 0)) + _chunk(b'IDAT', rows(base, w, h))
    out += _chunk(b'fcTL', struct.pack('>IIIIIHHBB', 1, 20, 20, 10, 5, 100, 1000, 0, 0))
    out += _chunk(b'fdAT', struct.pack('>I', 2) + rows(square, 20, 20)) + _chunk(b'IEND', b'')
    with open(os.path.join(HERE, 'apng-cut-subrect.png'), 'wb') as f:
        f.write(out)
    for name in ('apng-cut-source.png', 'apng-cut-over.png', 'apng-cut-subrect.png'):
        cut_last_frame_data(os.path.join(HERE, name))

    r = random.Random(20)
    table = bytes([255, 0, 0, 0, 160, 0, 0, 0, 255, 255, 255, 255])
    gif = b'GIF89a' + struct.pack('<HHBBB', 16, 16, 0x81, 0, 0) + table
    for _ in range(2):
        gif += b'\x21\xf9\x04\x04' + struct.pack('<H', 50) + b'\0\0'      # dispose none, no transparency
        gif += b'\x2c' + struct.pack('<HHHHB', 0, 0, 16, 16, 0) + gif_lzw([r.randrange(4) for _ in range(256)])
    cut = gif.rindex(b'\x2c') + 10 + 1 + 60        # inside the second frame's first data block
    with open(os.path.join(HERE, 'gif-cut-opaque.gif'), 'wb') as f:
        f.write(gif[:cut])
