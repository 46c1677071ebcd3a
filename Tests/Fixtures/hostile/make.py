#!/usr/bin/env python3
"""Generates the hostile-input fixtures (python3 standard library only, deterministic).

    python3 Tests/Fixtures/hostile/make.py [--out DIR]

Writes DIR/files/<name> (default DIR = this folder) and DIR/manifest.tsv, one row per fixture:

    name  kind  expect  exits  cost  note

kind    file (in files/), dir (the runner makes an empty directory), unreadable (the runner copies
        `note`'s first word, a fixture name, to a file mode 000 and reads it as an unprivileged user),
        atlas (a sprite-atlas JSON file, played as `--atlas FILE` over files/atlas-sheet.png),
        fifo (the runner makes a named pipe and never writes to it)
expect  error: must fail (non-zero exit, one-line message); ok: must succeed (a partial result
        with warnings is fine); any: either, as long as it is clean
exits   the exit statuses allowed (comma-separated); '-' for the default of `expect`
        (error: 2,3,4; ok: 0; any: 0,3,4)
cost    light, or heavy: a bomb that legitimately takes a large canvas or many frames (seconds in
        a debug build), left to the CLI run of the release binary (Tests/hostile/run.py)

Files over 256 KiB (the 100 000-frame bombs, a 20 000-frame atlas) are not committed (make.py writes the
.gitignore that lists them): scripts/test runs this script before the tests, and it rewrites every
file byte-for-byte the same each time.
Regressions found by fuzzing are kept by hand in regressions/ with regressions.tsv (same columns).
"""
import argparse
import os
import random
import struct
import zlib

IGNORED_SIZE = 256 << 10
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus", "inputs")


# ---------------------------------------------------------------- GIF

class BitWriter:
    """LSB-first bit packer (GIF LZW and WebP VP8L both pack this way)."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, bits):
        self.acc |= (value & ((1 << bits) - 1)) << self.n
        self.n += bits
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def bytes(self):
        return bytes(self.out) + (bytes([self.acc & 0xFF]) if self.n else b"")


def lzw_literal(indices, min_code_size, codes=None):
    """LZW data that only uses literal codes: a clear code often enough that the code width never
    grows, so no LZW encoder is needed. `codes`, when given, is an explicit list of (code, width)
    to emit instead (for malformed streams)."""
    w = BitWriter()
    if codes is None:
        clear = 1 << min_code_size
        width = min_code_size + 1
        per_block = max(1, (1 << min_code_size) - 3)
        codes = []
        for i, v in enumerate(indices):
            if i % per_block == 0:
                codes.append((clear, width))
            codes.append((v, width))
        if not indices:
            codes.append((clear, width))
        codes.append((clear + 1, width))
    for code, width in codes:
        w.put(code, width)
    return w.bytes()


def sub_blocks(data, size=255):
    out = bytearray()
    for i in range(0, len(data), size):
        chunk = data[i:i + size]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def gif_palette(n):
    return b"".join(bytes([(i * 37) & 0xFF, (i * 91) & 0xFF, (i * 53) & 0xFF]) for i in range(n))


def gif_header(width, height, palette_bits=8, gct=True):
    flags = (0x80 | (palette_bits - 1)) if gct else 0
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, flags, 0, 0)
    if gct:
        out += gif_palette(1 << palette_bits)
    return out


def gif_loop(count):
    return b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", count) + b"\x00"


def gif_gce(delay_cs=10, dispose=0, transparent=None):
    flags = (dispose << 2) | (1 if transparent is not None else 0)
    return b"\x21\xF9\x04" + struct.pack("<BHB", flags, delay_cs, transparent or 0) + b"\x00"


def gif_image(x, y, w, h, indices=None, min_code_size=8, lzw=None, interlaced=False):
    desc = b"\x2C" + struct.pack("<HHHHB", x, y, w, h, 0x40 if interlaced else 0)
    if lzw is None:
        lzw = lzw_literal(indices if indices is not None else [0] * (w * h), min_code_size)
    return desc + bytes([min_code_size]) + sub_blocks(lzw)


def pattern(w, h, seed, colors=256):
    return [(x * 7 + y * 13 + seed * 29) % colors for y in range(h) for x in range(w)]


def gif_base():
    """A clean 4-frame 64x48 GIF (disposal none/background/previous, transparency, loop);
    returns (bytes, header offsets worth truncating at)."""
    parts = [gif_header(64, 48), gif_loop(0)]
    cuts = [3, 6, 8, 11, 13, 100, len(parts[0]) + 5]
    for f, (dispose, rect) in enumerate([(0, (0, 0, 64, 48)), (2, (8, 8, 32, 24)),
                                         (3, (20, 4, 40, 40)), (1, (0, 0, 64, 48))]):
        x, y, w, h = rect
        start = sum(map(len, parts))
        cuts += [start + 4, start + 8 + 5, start + 8 + 10 + 1]   # in GCE, in descriptor, at LZW size
        parts.append(gif_gce(5 + f, dispose, transparent=0 if f else None))
        parts.append(gif_image(x, y, w, h, pattern(w, h, f)))
    parts.append(b"\x3B")
    return b"".join(parts), cuts


def gif_frames(n, width=1, height=1, loop=None):
    """n 1x1 frames, each just a descriptor and three LZW codes (no GCE)."""
    frame = gif_image(0, 0, width, height, [1] * (width * height), min_code_size=2)
    head = gif_header(width, height, palette_bits=2) + (gif_loop(loop) if loop is not None else b"")
    return head + frame * n + b"\x3B"


# ---------------------------------------------------------------- PNG / APNG

def chunk(kind, data, crc=None):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) if crc is None else crc)


def ihdr(w, h, depth=8, color=6):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0))


def actl(frames, plays=0):
    return chunk(b"acTL", struct.pack(">II", frames, plays))


def fctl(seq, w, h, x=0, y=0, num=1, den=10, dispose=0, blend=0):
    return chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, num, den, dispose, blend))


def rgba_rows(w, h, seed):
    raw = bytearray()
    for y in range(h):
        raw.append(0)
        for x in range(w):
            raw += bytes([(x * 9 + seed * 40) & 0xFF, (y * 11) & 0xFF, (x + y + seed * 70) & 0xFF,
                          255 if (x + y + seed) % 5 else 128])
    return zlib.compress(bytes(raw), 9)


def idat(w, h, seed=0):
    return chunk(b"IDAT", rgba_rows(w, h, seed))


def fdat(seq, w, h, seed=0):
    return chunk(b"fdAT", struct.pack(">I", seq) + rgba_rows(w, h, seed))


PNG_SIG = b"\x89PNG\r\n\x1a\n"
IEND = chunk(b"IEND", b"")


def apng(width, height, frames, plays=0, default_is_frame=True, extra_before_iend=b""):
    """frames: list of (w, h, x, y, dispose, blend). Sequence numbers are assigned in order."""
    out = [PNG_SIG, ihdr(width, height), actl(len(frames), plays)]
    seq = 0
    for i, (w, h, x, y, d, b) in enumerate(frames):
        out.append(fctl(seq, w, h, x, y, 1 + i, 10, d, b))
        seq += 1
        if i == 0 and default_is_frame:
            out.append(idat(w, h, i))
        else:
            if i == 0:
                out.append(idat(width, height, 9))
            out.append(fdat(seq, w, h, i))
            seq += 1
    out.append(extra_before_iend)
    out.append(IEND)
    return b"".join(out)


def apng_base():
    frames = [(64, 48, 0, 0, 0, 0), (32, 24, 8, 8, 1, 1), (40, 40, 20, 4, 2, 1), (64, 48, 0, 0, 0, 0)]
    data = apng(64, 48, frames)
    cuts = [4, 8, 12, 16, 20, 29, 33, 37, 45, 49, 60, 75]   # signature, IHDR, acTL, fcTL
    return data, cuts


def apng_frames(n):
    parts = [PNG_SIG, ihdr(1, 1), actl(n, 0), fctl(0, 1, 1), idat(1, 1)]
    seq = 1
    for i in range(1, n):
        parts.append(fctl(seq, 1, 1, num=1, den=100))
        parts.append(fdat(seq + 1, 1, 1, i & 3))
        seq += 2
    parts.append(IEND)
    return b"".join(parts)


# ---------------------------------------------------------------- WebP

def vp8l_solid(w, h, argb=0xFF336699, alpha_used=True):
    """A lossless bitstream of one colour: five one-symbol prefix codes cost no bits per pixel,
    so any size fits in a dozen bytes."""
    bw = BitWriter()
    bw.put(0x2F, 8)
    bw.put(w - 1, 14)
    bw.put(h - 1, 14)
    bw.put(1 if alpha_used else 0, 1)
    bw.put(0, 3)            # version
    bw.put(0, 1)            # no transform
    bw.put(0, 1)            # no colour cache
    bw.put(0, 1)            # no meta prefix codes
    a, r, g, b = (argb >> 24) & 0xFF, (argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF
    for sym in (g, r, b, a, 0):     # green, red, blue, alpha, distance
        bw.put(1, 1)        # simple code
        bw.put(0, 1)        # one symbol
        bw.put(1, 1)        # 8-bit symbol
        bw.put(sym, 8)
    return bw.bytes()


def riff_chunk(kind, data, size=None):
    n = len(data) if size is None else size
    return kind + struct.pack("<I", n) + data + (b"\x00" if len(data) & 1 else b"")


def u24(v):
    return struct.pack("<I", v)[:3]


def vp8x(w, h, flags=0x12):
    return riff_chunk(b"VP8X", bytes([flags, 0, 0, 0]) + u24(w - 1) + u24(h - 1))


def anim(loops=0, bg=0xFFFFFFFF):
    return riff_chunk(b"ANIM", struct.pack("<IH", bg, loops))


def anmf(x, y, w, h, duration=100, blend=True, dispose=False, payload=None, color=0xFF336699):
    flags = (0 if blend else 2) | (1 if dispose else 0)
    if payload is None:
        payload = riff_chunk(b"VP8L", vp8l_solid(w, h, color))
    head = u24(x // 2) + u24(y // 2) + u24(w - 1) + u24(h - 1) + u24(duration) + bytes([flags])
    return riff_chunk(b"ANMF", head + payload)


def webp(chunks, riff_size=None):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body) if riff_size is None else riff_size) + body


def with_riff_size(data, size):
    return data[:4] + struct.pack("<I", size) + data[8:]


def webp_anim(w, h, frames, loops=0, flags=0x12):
    """frames: list of (x, y, w, h, duration, blend, dispose)."""
    colors = [0xFF336699, 0x80FF0000, 0xFF00FF00, 0x400000FF]
    return webp([vp8x(w, h, flags), anim(loops)] +
                [anmf(x, y, fw, fh, d, b, dp, color=colors[i % 4])
                 for i, (x, y, fw, fh, d, b, dp) in enumerate(frames)])


def webp_base():
    frames = [(0, 0, 64, 48, 100, True, False), (8, 8, 32, 24, 50, True, True),
              (20, 4, 40, 40, 70, False, False), (0, 0, 64, 48, 20, True, False)]
    return webp_anim(64, 48, frames), [4, 8, 12, 16, 20, 26, 30, 38, 46, 50, 60, 70]


# ---------------------------------------------------------------- catalogue

class Catalogue:
    def __init__(self):
        self.rows = []
        self.data = {}

    def add(self, name, data, expect, note, exits="-", kind="file"):
        assert name not in self.data, name
        heavy = any(k in name for k in ("100000", "20000-frames", "memory", "canvas-7", "canvas-8", "bomb"))
        self.rows.append((name, kind, expect, exits, "heavy" if heavy else "light", note))
        self.data[name] = data

    def special(self, name, kind, expect, exits, note):
        self.rows.append((name, kind, expect, exits, "light", note))


def corpus_file(rel):
    path = os.path.join(CORPUS, rel)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def truncations(cat, prefix, ext, data, header_cuts, expect_header="error"):
    """Every 10 % (partial results are fine) and at offsets inside the headers."""
    for pct in range(10, 100, 10):
        n = len(data) * pct // 100
        cat.add(f"{prefix}-trunc-{pct:02d}pct.{ext}", data[:n], "any", f"first {pct}% of a valid file")
    for n in sorted(set(c for c in header_cuts if 0 < c < len(data))):
        cat.add(f"{prefix}-trunc-at-{n:05d}.{ext}", data[:n], expect_header if n < 40 else "any",
                f"cut at byte {n}, inside the headers")


def random_with_magic(cat, prefix, ext, magic, seeds=4, size=4096):
    for s in range(seeds):
        rng = random.Random(f"{prefix}-{s}")
        body = bytes(rng.getrandbits(8) for _ in range(size))
        cat.add(f"{prefix}-random-{s}.{ext}", magic + body, "any", f"valid magic, {size} random bytes")


def build():
    cat = Catalogue()

    # --- basics: each format valid, then the file-system cases
    g, gcuts = gif_base()
    p, pcuts = apng_base()
    w, wcuts = webp_base()
    cat.add("valid.gif", g, "ok", "4-frame GIF every truncation starts from")
    cat.add("valid.png", p, "ok", "4-frame APNG every truncation starts from")
    cat.add("valid.webp", w, "ok", "4-frame lossless WebP every truncation starts from")
    cat.add("empty.gif", b"", "error", "zero-length file", "3")
    cat.special("a-directory.gif", "dir", "error", "2,3",
                "an empty directory with an image name (a folder is read as a frame sequence: none here)")
    cat.special("unreadable.gif", "unreadable", "error", "2", "valid.gif with mode 000, read as nobody")
    cat.special("a-fifo.gif", "fifo", "error", "2", "a named pipe with no writer (opening it must not wait)")
    cat.add("gif-named.png", g, "ok", "a GIF with a .png name: sniffed by magic")
    cat.add("apng-named.webp", p, "ok", "an APNG with a .webp name")
    cat.add("webp-named.gif", w, "ok", "a WebP with a .gif name")
    cat.add("gif-no-extension", g, "ok", "no file extension")
    cat.add("text.gif", b"hello, this is not an image\n" * 4, "error", "text with a .gif name", "3")
    cat.add("magic-only.gif", b"GIF89a", "error", "GIF signature alone", "3")
    cat.add("magic-only.png", PNG_SIG, "error", "PNG signature alone", "3")
    cat.add("magic-only.webp", b"RIFF\x04\x00\x00\x00WEBP", "error", "RIFF/WEBP header alone", "3")

    # --- truncation
    truncations(cat, "gif", "gif", g, gcuts)
    truncations(cat, "apng", "png", p, pcuts)
    truncations(cat, "webp", "webp", w, wcuts)
    for prefix, rel, ext in [("gif-interlaced", "gif/image-gif/interlaced.gif", "gif"),
                             ("apng-cogs", "apng/libvips/cogs-apng.png", "png"),
                             ("webp-lossy", "webp/image-webp/random_lossy.webp", "webp"),
                             ("webp-lossless", "webp/image-webp/random_lossless.webp", "webp")]:
        data = corpus_file(rel)
        if data is not None:
            truncations(cat, prefix, ext, data, [])

    # --- random bytes behind valid magic
    random_with_magic(cat, "gif", "gif", b"GIF89a")
    random_with_magic(cat, "gif-lsd", "gif", b"GIF89a\x10\x00\x10\x00\xF7\x00\x00")
    random_with_magic(cat, "png", "png", PNG_SIG)
    random_with_magic(cat, "apng-ihdr", "png", PNG_SIG + ihdr(16, 16))
    random_with_magic(cat, "webp", "webp", b"RIFF\xF8\x0F\x00\x00WEBP")
    random_with_magic(cat, "webp-vp8x", "webp", b"RIFF\xF8\x0F\x00\x00WEBP" + vp8x(16, 16))

    # --- JPEG (libjpeg-turbo): the committed 48x32 baseline fixture, cut, filled and resized
    j = open(os.path.join(HERE, "..", "jpeg", "baseline-444.jpg"), "rb").read()
    p_jpeg = open(os.path.join(HERE, "..", "jpeg", "progressive.jpg"), "rb").read()
    cat.add("valid.jpg", j, "ok", "48x32 baseline JPEG every truncation starts from")
    cat.add("magic-only.jpg", j[:3], "error", "SOI and a marker byte alone", "3")
    cat.add("jpeg-no-frame.jpg", b"\xFF\xD8\xFF\xD9", "error", "SOI then EOI: no frame", "3")
    sof = j.index(b"\xFF\xC0")
    def jpeg_size(data, at, w, h):
        return data[:at + 5] + struct.pack(">HH", h, w) + data[at + 9:]
    truncations(cat, "jpeg", "jpg", j, [2, 4, 20, sof, sof + 6, sof + 12])
    truncations(cat, "jpeg-progressive", "jpg", p_jpeg, [])
    cat.add("jpeg-sof-0x0.jpg", jpeg_size(j, sof, 0, 0), "error", "SOF says 0x0", "3")
    cat.add("jpeg-sof-65535x65535.jpg", jpeg_size(j, sof, 65535, 65535), "error",
            "SOF says 65535x65535 (libjpeg's limit is 65500 a side; 1/8 would exceed the pixel limit anyway)", "3,4")
    cat.add("jpeg-sof-20000x20000.jpg", jpeg_size(j, sof, 20000, 20000), "any",
            "SOF says 20000x20000 with 48x32 worth of data: decoded at 1/4 (5000x5000 fits 2^25 pixels), the rest grey")
    cat.add("jpeg-sof-65535x1.jpg", jpeg_size(j, sof, 65535, 1), "any", "SOF says 65535x1")
    cat.add("jpeg-exif-bad-offset.jpg", j[:2] + b"\xFF\xE1\x00\x16Exif\x00\x00MM\x00\x2A\xFF\xFF\xFF\xF0\x00\x01\x01\x12" + j[2:],
            "ok", "Exif IFD offset far past the segment (orientation ignored)")
    cat.add("jpeg-app-length-past-end.jpg", j[:2] + b"\xFF\xE1\xFF\xFFExif\x00\x00" + j[2:40], "error",
            "APP1 length runs past the end of the file", "3")
    random_with_magic(cat, "jpeg", "jpg", b"\xFF\xD8\xFF")
    random_with_magic(cat, "jpeg-sof", "jpg", j[:sof + 19])

    # --- AVIF (libavif): the committed avifenc animation, cut and filled
    a = open(os.path.join(HERE, "..", "avif", "anim-alpha-444.avif"), "rb").read()
    cat.add("valid.avif", a, "ok", "6-frame animated AVIF with alpha every truncation starts from")
    cat.add("magic-only.avif", a[:32], "error", "ftyp box alone", "3")
    truncations(cat, "avif", "avif", a, [12, 32, 100, 300])
    ispe = a.index(b"ispe")
    cat.add("avif-ispe-65535x65535.avif", a[:ispe + 8] + struct.pack(">II", 65535, 65535) + a[ispe + 16:], "error",
            "ispe says 65535x65535", "3,4")
    cat.add("avif-ispe-0x0.avif", a[:ispe + 8] + struct.pack(">II", 0, 0) + a[ispe + 16:], "error", "ispe says 0x0", "3,4")
    random_with_magic(cat, "avif", "avif", a[:32])
    random_with_magic(cat, "avif-meta", "avif", a[:400], seeds=2)

    # --- bombs: sizes
    cat.add("gif-screen-65535x65535.gif", gif_header(65535, 65535, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "error", "logical screen 65535x65535, one 1x1 frame", "4")
    cat.add("gif-screen-65535x1.gif", gif_header(65535, 1, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "ok", "a 65535x1 strip: GIF's largest side, a legal canvas")
    cat.add("gif-screen-8192x4097.gif", gif_header(8192, 4097, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "error", "just over the default 2^25-pixel limit", "4")
    cat.add("gif-screen-65535x513.gif", gif_header(65535, 513, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "error", "legal sides, area over 2^25 pixels", "4")
    cat.add("gif-screen-8192x8192.gif", gif_header(8192, 8192, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "error", "2^26 pixels: a 256 MiB canvas from 40 bytes", "4")
    cat.add("gif-screen-0x0.gif", gif_header(0, 0, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "any", "zero logical screen: browsers size the canvas from the first frame; an error is also fine")
    cat.add("gif-frame-65535x65535.gif", gif_header(16, 16, 2) + gif_image(0, 0, 65535, 65535, [1] * 64, 2) + b"\x3B",
            "any", "a 65535x65535 frame in a 16x16 screen with 64 pixels of data: clipped, no huge scratch")
    cat.add("gif-frame-at-65535.gif", gif_header(16, 16, 2) + gif_image(65535, 65535, 10, 10, [1] * 100, 2) + b"\x3B",
            "any", "the only frame lies wholly outside the screen")
    cat.add("gif-canvas-8192x4096.gif", gif_header(8192, 4096, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "ok", "2^25 pixels, exactly the default limit: a 128 MiB canvas from 40 bytes")
    cat.add("gif-canvas-7680x4320.gif", gif_header(7680, 4320, 2) + gif_image(0, 0, 1, 1, [1], 2) + b"\x3B",
            "ok", "an 8K UHD canvas")
    # Compositing costs about 12 ms per frame on the largest legal canvas (dispose-background
    # clears 128 MiB), so `info --decode` of N such frames takes N x 12 ms: 40 stay under 1 s.
    cat.add("gif-canvas-8192x4096-fullframes.gif",
            gif_header(8192, 4096, 2) + b"".join(gif_gce(1, 2) + gif_image(0, 0, 8192, 4096, [1] * 16, 2)
                                                  for _ in range(40)) + b"\x3B",
            "any", "40 frames of 8192x4096 with 16 pixels of data each (CPU bomb on the largest allowed canvas)")
    # Peak memory on the largest legal canvas: a canvas, the rect saved under a dispose-previous
    # frame and a decoder's scratch frame, each 128 MiB. Two frames: each full frame at this size
    # costs about 0.4 s of CPU to inflate/decode and blend, legitimately.
    cat.add("gif-memory-8192x4096-dispose-previous.gif",
            gif_header(8192, 4096, 2) + b"".join(gif_gce(1, 3) + gif_image(0, 0, 8192, 4096, [1] * 16, 2)
                                                  for _ in range(3)) + b"\x3B",
            "any", "8192x4096 dispose-previous frames: canvas plus saved copy")
    cat.add("webp-memory-8192x4096-blend.webp",
            webp([vp8x(8192, 4096), anim()] + [anmf(0, 0, 8192, 4096, 10, True, False, color=c)
                                               for c in (0xFF102030, 0x80FF0000)]),
            "ok", "8192x4096 translucent full-canvas frames blended OVER: canvas plus scratch frame")
    rows = zlib.compress(b"\x00" * (4096 * (1 + 8192 * 4)), 9)
    cat.add("apng-memory-8192x4096-previous-over.png", PNG_SIG + ihdr(8192, 4096) + actl(2) +
            fctl(0, 8192, 4096) + chunk(b"IDAT", rows) +
            fctl(1, 8192, 4096, dispose=2, blend=1) + chunk(b"fdAT", struct.pack(">I", 2) + rows) + IEND,
            "ok", "8192x4096 frames, dispose previous, blend over: canvas, saved copy and scratch")
    cat.add("apng-ihdr-2147483647-wide.png", PNG_SIG + ihdr(2**31 - 1, 1) + actl(1) + fctl(0, 1, 1) + idat(1, 1) + IEND,
            "error", "IHDR width 2^31-1", "3,4")
    cat.add("apng-ihdr-2147483647-high.png", PNG_SIG + ihdr(1, 2**31 - 1) + actl(1) + fctl(0, 1, 1) + idat(1, 1) + IEND,
            "error", "IHDR height 2^31-1", "3,4")
    cat.add("apng-ihdr-4294967295-wide.png", PNG_SIG + ihdr(2**32 - 1, 1) + actl(1) + fctl(0, 1, 1) + idat(1, 1) + IEND,
            "error", "IHDR width 2^32-1 (over the PNG maximum)", "3,4")
    cat.add("apng-ihdr-0x0.png", PNG_SIG + ihdr(0, 0) + actl(1) + fctl(0, 1, 1) + idat(1, 1) + IEND,
            "error", "IHDR 0x0", "3")
    cat.add("apng-canvas-8192x4096.png", PNG_SIG + ihdr(8192, 4096) + actl(2) + fctl(0, 1, 1) + idat(1, 1) +
            fctl(1, 1, 1, 8191, 4095) + fdat(2, 1, 1) + IEND,
            "any", "2^25 pixels with 1x1 frames; the default image is 1x1 too (so libpng may refuse it)")
    cat.add("apng-fctl-2147483647-wide.png", PNG_SIG + ihdr(16, 16) + actl(1) + fctl(0, 2**31 - 1, 1) + idat(1, 1) + IEND,
            "any", "a frame 2^31-1 wide in a 16x16 canvas (spec: invalid)")
    cat.add("apng-fctl-offset-overflow.png", PNG_SIG + ihdr(16, 16) + actl(2) + fctl(0, 16, 16) + idat(16, 16) +
            fctl(1, 8, 8, 2**32 - 4, 2**32 - 4) + fdat(2, 8, 8) + IEND,
            "any", "x/y offsets near 2^32 (x+width wraps in 32 bits)")
    cat.add("apng-actl-2147483647-frames.png", PNG_SIG + ihdr(1, 1) + actl(2**31 - 1) + fctl(0, 1, 1) + idat(1, 1) + IEND,
            "any", "acTL claims 2^31-1 frames, one is present (nothing sized from num_frames)")
    cat.add("apng-zlib-bomb-4096.png", PNG_SIG + ihdr(4096, 4096) + actl(1) + fctl(0, 4096, 4096) +
            chunk(b"IDAT", zlib.compress(b"\x00" * (4096 * (1 + 4096 * 4)), 9)) + IEND,
            "ok", "64 MiB of pixels from about 64 KiB of zlib")
    big = 16384
    cat.add("webp-canvas-16384x16384-1000frames.webp",
            webp_anim(big, big, [(2 * (i % 100), 2 * (i // 100), 1, 1, 10, True, False) for i in range(1000)]),
            "error", "16384x16384 canvas (2^28 pixels) with 1000 1x1 frames", "4")
    cat.add("webp-canvas-8192x4096-1000frames.webp",
            webp_anim(8192, 4096, [(2 * (i % 100), 2 * (i // 100), 1, 1, 10, True, i % 2 == 0) for i in range(1000)]),
            "ok", "the largest default canvas with 1000 1x1 frames")
    cat.add("webp-frame-bitstream-16384.webp",
            webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=riff_chunk(b"VP8L", vp8l_solid(16384, 16384)))]),
            "any", "ANMF says 16x16, its VP8L bitstream says 16384x16384")

    # --- bombs: counts, rects, timing
    cat.add("gif-100000-frames.gif", gif_frames(100000, loop=0), "ok", "100 000 1x1 frames")
    cat.add("apng-100000-frames.png", apng_frames(100000), "ok", "100 000 1x1 frames")
    cat.add("webp-100000-frames.webp", webp_anim(1, 1, [(0, 0, 1, 1, 10, True, False)] * 100000),
            "ok", "100 000 1x1 frames (the first 16384 are shown, with a warning: libwebpdemux indexes in n^2)")
    cat.add("gif-frames-outside.gif", gif_header(16, 16, 2) + gif_image(0, 0, 16, 16, [1] * 256, 2) +
            gif_image(12, 12, 10, 10, [2] * 100, 2) + gif_image(40000, 3, 5, 5, [3] * 25, 2) + b"\x3B",
            "ok", "frames partly and wholly outside the screen (clipped, as browsers do)")
    cat.add("apng-frame-outside.png", PNG_SIG + ihdr(16, 16) + actl(2) + fctl(0, 16, 16) + idat(16, 16) +
            fctl(1, 8, 8, 12, 12) + fdat(2, 8, 8) + IEND,
            "any", "second fcTL reaches outside the canvas (spec: invalid; a still or an error)")
    cat.add("webp-frame-outside.webp", webp_anim(16, 16, [(0, 0, 16, 16, 10, True, False), (12, 12, 8, 8, 10, True, False)]),
            "error", "ANMF reaches outside the canvas (invalid, as in the corpus)", "3")
    cat.add("gif-huge-delays.gif", gif_header(4, 4, 2) + gif_loop(65535) + gif_gce(65535) +
            gif_image(0, 0, 4, 4, [1] * 16, 2) + gif_gce(65535, 1) + gif_image(0, 0, 2, 2, [2] * 4, 2) + b"\x3B",
            "ok", "delays of 65535 cs, loop count 65535")
    cat.add("apng-huge-delays.png", PNG_SIG + ihdr(4, 4) + actl(2, 2**31 - 1) + fctl(0, 4, 4, num=65535, den=1) +
            idat(4, 4) + fctl(1, 4, 4, num=65535, den=0) + fdat(2, 4, 4, 1) + IEND,
            "ok", "delays of 65535 s and 655.35 s (den 0), plays 2^31-1")
    cat.add("apng-plays-4294967295.png", PNG_SIG + ihdr(4, 4) + actl(1, 2**32 - 1) + fctl(0, 4, 4) + idat(4, 4) + IEND,
            "any", "num_plays 2^32-1 (over the spec's 2^31-1)")
    cat.add("webp-huge-delays.webp", webp_anim(4, 4, [(0, 0, 4, 4, 0xFFFFFF, True, False)] * 2, loops=65535),
            "ok", "durations of 2^24-1 ms, loop count 65535")

    # --- GIF format abuse
    clear, eoi = 4, 5
    cat.add("gif-lzw-code-past-table.gif", gif_header(8, 8, 2) + gif_image(0, 0, 8, 8, lzw=lzw_literal(
        None, 2, [(clear, 3), (1, 3), (7, 3), (7, 3), (eoi, 3)]), min_code_size=2) + b"\x3B",
        "any", "LZW code 7 when the table ends at 6")
    cat.add("gif-lzw-first-code-not-literal.gif", gif_header(8, 8, 2) + gif_image(0, 0, 8, 8, lzw=lzw_literal(
        None, 2, [(clear, 3), (6, 3), (1, 3), (eoi, 3)]), min_code_size=2) + b"\x3B",
        "any", "first code after clear refers to an entry that does not exist")
    # Regression (issue 12): an invalid code mid-frame ends the frame there, keeping the 13
    # pixels before it (as browsers do) instead of decoding on into garbage; the frame is reported.
    cat.add("gif-lzw-invalid-code-mid-frame.gif", gif_header(8, 4, 2) + gif_gce(10, 1)
        + gif_image(0, 0, 8, 4, [0] * 32, 2) + gif_gce(10, 1, transparent=3)
        + gif_image(0, 0, 8, 4, lzw=lzw_literal(None, 8, [(256, 9)] + [(1, 9)] * 13 + [(511, 9)]
                                                 + [(1, 9)] * 19 + [(257, 9)]), min_code_size=8) + b"\x3B",
        "ok", "an invalid LZW code after 13 pixels of frame 1: those 13 shown, the rest of frame 0 kept")
    cat.add("gif-lzw-no-clear-no-eoi.gif", gif_header(8, 8, 2) + gif_image(0, 0, 8, 8, lzw=lzw_literal(
        None, 2, [(1, 3)] * 20), min_code_size=2) + b"\x3B",
        "any", "no clear code and no end code")
    cat.add("gif-lzw-too-much-data.gif", gif_header(4, 4, 2) + gif_image(0, 0, 4, 4, [1] * 4000, 2) + b"\x3B",
        "any", "4000 pixels of data for a 16-pixel frame")
    lzw_wide = BitWriter()
    for i in range(5000):     # keep the table growing to 4096 without clearing
        lzw_wide.put(1 if i % 2 else 2, min(12, 3 + (i + 5).bit_length() - 3))
    cat.add("gif-lzw-table-full.gif", gif_header(64, 64, 2) + gif_image(0, 0, 64, 64, lzw=lzw_wide.bytes(), min_code_size=2) + b"\x3B",
        "any", "codes that fill the 4096-entry table and go on without a clear")
    for size in (0, 1, 12, 13, 255):
        cat.add(f"gif-lzw-min-code-size-{size}.gif",
                gif_header(8, 8, 2) + gif_image(0, 0, 8, 8, lzw=b"\x00\x01\x02\x03\x04\x05\x06\x07", min_code_size=size) + b"\x3B",
                "any", f"LZW minimum code size {size} (valid: 2..8, at most 11)")
    cat.add("gif-no-image-data.gif", gif_header(8, 8, 2) + gif_loop(0) + b"\x3B", "error", "screen and trailer, no image", "3")
    cat.add("gif-descriptor-then-trailer.gif", gif_header(8, 8, 2) + b"\x2C" + struct.pack("<HHHHB", 0, 0, 8, 8, 0) + b"\x3B",
            "any", "an image descriptor with no LZW data")
    cat.add("gif-empty-lzw.gif", gif_header(8, 8, 2) + b"\x2C" + struct.pack("<HHHHB", 0, 0, 8, 8, 0) + b"\x02\x00\x3B",
            "any", "an image whose LZW data has no sub-blocks")
    cat.add("gif-zero-size-frame.gif", gif_header(8, 8, 2) + gif_image(0, 0, 0, 0, [], 2) + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "any", "a 0x0 frame before a normal one")
    cat.add("gif-no-palette.gif", gif_header(8, 8, 2, gct=False) + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "any", "neither global nor local colour table")
    cat.add("gif-index-past-palette.gif", gif_header(8, 8, 1) + gif_image(0, 0, 8, 8, [3] * 64, 2) + b"\x3B",
            "any", "pixel indices 3 with a 2-entry palette")
    cat.add("gif-truncated-lct.gif", gif_header(8, 8, 2) + b"\x2C" + struct.pack("<HHHHB", 0, 0, 8, 8, 0x87) + b"\x00" * 30,
            "error", "local colour table of 256 entries cut after 30 bytes", "3")
    cat.add("gif-unknown-blocks.gif", gif_header(8, 8, 2) + b"\x21\x99" + sub_blocks(b"\xAA" * 20000, 255) +
            b"\x77\x21\xFE\x00" + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "any", "an unknown extension of 20000 bytes and a stray byte before the image")
    cat.add("gif-bad-netscape.gif", gif_header(8, 8, 2) + b"\x21\xFF\x0BNETSCAPE2.0\x01\x01\x00" +
            b"\x21\xFF\x0BNETSCAPE2.0\x05\x01\xFF\xFF\xFF\xFF\x00" + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "ok", "NETSCAPE2.0 blocks with short and long sub-blocks")
    cat.add("gif-gce-bad-size.gif", gif_header(8, 8, 2) + b"\x21\xF9\x02\x05\x00\x00" + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "any", "graphic control extension with block size 2")
    cat.add("gif-many-gce.gif", gif_header(8, 8, 2) + gif_gce(1, 3, 0) * 5000 + gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B",
            "ok", "5000 graphic control extensions before one image")
    cat.add("gif-no-trailer.gif", gif_header(8, 8, 2) + gif_image(0, 0, 8, 8, [1] * 64, 2), "ok", "missing trailer")
    cat.add("gif-interlaced-tiny.gif", gif_header(3, 3, 2) + gif_image(0, 0, 3, 1, [1, 2, 3], 2, interlaced=True) +
            gif_image(0, 0, 1, 3, [1, 2, 3], 2, interlaced=True) + b"\x3B", "ok", "interlaced frames 1 and 3 rows high")
    cat.add("gif87a-with-extensions.gif", b"GIF87a" + gif_header(8, 8, 2)[6:] + gif_gce(5, 1, 0) +
            gif_image(0, 0, 8, 8, [1] * 64, 2) + b"\x3B", "ok", "GIF87a header with 89a extensions")
    cat.add("gif-dispose-previous-first.gif", gif_header(8, 8, 2) + gif_gce(5, 3) + gif_image(2, 2, 4, 4, [1] * 16, 2) +
            gif_gce(5, 3) + gif_image(0, 0, 8, 8, [2] * 64, 2) + b"\x3B", "ok", "dispose previous on the first frames")
    cat.add("gif-dispose-7.gif", gif_header(8, 8, 2) + gif_gce(5, 7) + gif_image(0, 0, 8, 8, [1] * 64, 2) +
            gif_image(0, 0, 4, 4, [2] * 16, 2) + b"\x3B", "ok", "reserved disposal values")

    # --- APNG format abuse
    h16 = PNG_SIG + ihdr(16, 16)
    f0 = fctl(0, 16, 16) + idat(16, 16)
    cat.add("apng-fdat-out-of-sequence.png", h16 + actl(3) + f0 + fctl(1, 16, 16) + fdat(5, 16, 16, 1) +
            fctl(3, 16, 16) + fdat(2, 16, 16, 2) + IEND, "any", "fdAT sequence numbers out of order")
    cat.add("apng-duplicate-actl.png", h16 + actl(2) + actl(7, 3) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1) + IEND,
            "any", "two acTL chunks")
    cat.add("apng-fctl-after-last-fdat.png", h16 + actl(2) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1) +
            fctl(3, 8, 8) + IEND, "any", "a trailing fcTL with no data")
    cat.add("apng-actl-too-many.png", h16 + actl(5) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1) + IEND,
            "any", "acTL says 5 frames, 2 present")
    cat.add("apng-actl-too-few.png", h16 + actl(1) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1) + IEND,
            "any", "acTL says 1 frame, 2 present")
    cat.add("apng-actl-zero-frames.png", h16 + actl(0) + f0 + IEND, "any", "acTL num_frames 0")
    cat.add("apng-actl-after-idat.png", h16 + fctl(0, 16, 16) + idat(16, 16) + actl(2) + fctl(1, 16, 16) +
            fdat(2, 16, 16, 1) + IEND, "any", "acTL after IDAT (must be ignored: a still PNG)")
    cat.add("apng-bad-crc-ihdr.png", PNG_SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 6, 0, 0, 0), crc=0) +
            actl(1) + f0 + IEND, "any", "wrong IHDR CRC")
    cat.add("apng-bad-crc-fdat.png", h16 + actl(2) + f0 + fctl(1, 16, 16) +
            chunk(b"fdAT", struct.pack(">I", 2) + rgba_rows(16, 16, 1), crc=0xDEADBEEF) + IEND, "any", "wrong fdAT CRC")
    cat.add("apng-bad-crc-fctl.png", h16 + actl(2) + f0 +
            chunk(b"fcTL", struct.pack(">IIIIIHHBB", 1, 16, 16, 0, 0, 1, 10, 0, 0), crc=1) + fdat(2, 16, 16, 1) + IEND,
            "any", "wrong fcTL CRC")
    cat.add("apng-bad-crc-actl.png", h16 + chunk(b"acTL", struct.pack(">II", 2, 0), crc=1) + f0 + fctl(1, 16, 16) +
            fdat(2, 16, 16, 1) + IEND, "any", "wrong acTL CRC")
    cat.add("apng-fctl-zero-size.png", h16 + actl(2) + f0 + fctl(1, 0, 0) + fdat(2, 1, 1) + IEND,
            "any", "a 0x0 fcTL")
    cat.add("apng-first-fctl-not-canvas.png", h16 + actl(1) + fctl(0, 8, 8, 4, 4) + idat(8, 8) + IEND,
            "any", "first fcTL smaller than IHDR while it describes IDAT (spec: invalid)")
    cat.add("apng-bad-ops.png", h16 + actl(2) + fctl(0, 16, 16, dispose=7, blend=9) + idat(16, 16) +
            fctl(1, 16, 16, dispose=200, blend=200) + fdat(2, 16, 16, 1) + IEND, "any", "dispose 7/200 and blend 9/200")
    cat.add("apng-fdat-empty.png", h16 + actl(2) + f0 + fctl(1, 16, 16) + chunk(b"fdAT", b"") + IEND,
            "any", "an fdAT too short to hold its sequence number")
    cat.add("apng-fdat-garbage.png", h16 + actl(2) + f0 + fctl(1, 16, 16) +
            chunk(b"fdAT", struct.pack(">I", 2) + bytes(range(256)) * 4) + IEND, "any", "fdAT whose zlib data is garbage")
    cat.add("apng-fdat-short-data.png", h16 + actl(2) + f0 + fctl(1, 16, 16) +
            chunk(b"fdAT", struct.pack(">I", 2) + zlib.compress(b"\x00" * 10)) + IEND, "any", "fdAT with 10 bytes of pixels for 16x16")
    cat.add("apng-chunk-length-huge.png", h16 + actl(1) + fctl(0, 16, 16) + b"\x7F\xFF\xFF\xFFIDAT" + b"\x00" * 64,
            "error", "IDAT length 2^31-1 past the end of the file", "3")
    cat.add("apng-chunk-length-4g.png", h16 + actl(1) + fctl(0, 16, 16) + b"\xFF\xFF\xFF\xFFIDAT" + b"\x00" * 64,
            "error", "chunk length 2^32-1", "3")
    cat.add("apng-no-iend.png", h16 + actl(2) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1), "any", "no IEND")
    cat.add("apng-no-idat.png", h16 + actl(2) + fctl(0, 16, 16) + fctl(1, 16, 16) + fdat(2, 16, 16, 1) + IEND,
            "error", "frames but no IDAT (no default image)", "3")
    cat.add("apng-fctl-before-ihdr.png", PNG_SIG + fctl(0, 16, 16) + ihdr(16, 16) + actl(1) + idat(16, 16) + IEND,
            "any", "fcTL before IHDR")
    cat.add("apng-16bit-palette-mix.png", PNG_SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 16, 3, 0, 0, 0)) +
            actl(1) + f0 + IEND, "error", "IHDR bit depth 16 with colour type 3 (invalid combination)", "3")
    cat.add("apng-interlaced-frames.png", PNG_SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 6, 0, 0, 1)) +
            actl(2) + f0 + fctl(1, 16, 16) + fdat(2, 16, 16, 1) + IEND,
            "any", "Adam7 flag set, data written as if not interlaced")
    cat.add("apng-fctl-delay-den-0.png", h16 + actl(1) + fctl(0, 16, 16, num=0, den=0) + idat(16, 16) + IEND,
            "ok", "delay 0/0")

    # --- WebP format abuse (VP8X flags that lie, bad sizes)
    frame = [(0, 0, 16, 16, 10, True, False)]
    cat.add("webp-vp8x-anim-flag-no-anmf.webp", webp([vp8x(16, 16, 0x12), riff_chunk(b"VP8L", vp8l_solid(16, 16))]),
            "any", "VP8X says animated, a single VP8L follows")
    cat.add("webp-vp8x-no-anim-flag-with-anmf.webp", webp_anim(16, 16, frame * 2, flags=0x10),
            "any", "VP8X animation flag clear, ANIM and ANMF present")
    cat.add("webp-vp8x-icc-flag-no-iccp.webp", webp_anim(16, 16, frame * 2, flags=0x32), "any", "ICC flag set, no ICCP chunk")
    cat.add("webp-vp8x-all-flags.webp", webp_anim(16, 16, frame * 2, flags=0xFF), "any", "every VP8X flag bit set")
    cat.add("webp-vp8x-canvas-smaller.webp", webp([vp8x(4, 4), anim(), anmf(0, 0, 16, 16)]),
            "error", "frame larger than the VP8X canvas", "3")
    cat.add("webp-no-anim-chunk.webp", webp([vp8x(16, 16)] + [anmf(0, 0, 16, 16)] * 2), "any", "ANMF without ANIM")
    cat.add("webp-two-anim-chunks.webp", webp([vp8x(16, 16), anim(3), anim(5), anmf(0, 0, 16, 16)]), "any", "two ANIM chunks")
    two = webp_anim(16, 16, frame * 2)
    cat.add("webp-riff-size-too-big.webp", with_riff_size(two, 0x7FFFFFF0), "any", "RIFF size larger than the file")
    cat.add("webp-riff-size-too-small.webp", with_riff_size(two, 20), "any", "RIFF size smaller than the file")
    cat.add("webp-riff-size-odd.webp", with_riff_size(two, len(two) - 9), "any", "odd RIFF size")
    cat.add("webp-anmf-too-short.webp", webp([vp8x(16, 16), anim(), riff_chunk(b"ANMF", b"\x00" * 8)]),
            "error", "ANMF chunk of 8 bytes (its header alone is 16)", "3")
    cat.add("webp-anmf-no-bitstream.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=b"")]),
            "error", "ANMF with no image data", "3")
    cat.add("webp-anmf-nested.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=anmf(0, 0, 16, 16))]),
            "any", "ANMF inside ANMF")
    cat.add("webp-chunk-size-4g.webp", webp([vp8x(16, 16), anim(), b"ANMF\xFF\xFF\xFF\xFF" + b"\x00" * 40]),
            "error", "chunk size 2^32-1", "3")
    cat.add("webp-vp8l-bad-signature.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=riff_chunk(
        b"VP8L", b"\x2E" + vp8l_solid(16, 16)[1:]))]), "any", "VP8L signature byte 0x2E")
    cat.add("webp-vp8l-truncated-codes.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=riff_chunk(
        b"VP8L", vp8l_solid(16, 16)[:7]))]), "any", "VP8L bitstream cut inside the prefix codes")
    rng = random.Random("vp8l")
    for s in range(3):
        body = vp8l_solid(16, 16)[:5] + bytes(rng.getrandbits(8) for _ in range(600))
        cat.add(f"webp-vp8l-random-{s}.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=riff_chunk(b"VP8L", body))]),
                "any", "valid VP8L header, random entropy-coded data (CVE-2023-4863 territory)")
    cat.add("webp-alph-garbage.webp", webp([vp8x(16, 16), anim(), anmf(0, 0, 16, 16, payload=riff_chunk(
        b"ALPH", b"\x01" + bytes(range(200))) + riff_chunk(b"VP8L", vp8l_solid(16, 16)))]),
        "any", "ALPH with garbage before a VP8L frame (ALPH only goes with VP8)")
    cat.add("webp-still-lossless.webp", webp([riff_chunk(b"VP8L", vp8l_solid(32, 32))]), "ok", "simple-format still")
    cat.add("webp-still-huge-vp8l.webp", webp([riff_chunk(b"VP8L", vp8l_solid(16384, 16384))]),
            "error", "a still VP8L of 16384x16384 in 30 bytes", "4")
    # Lossy and opaque: small enough inside libwebp to be decoded scaled down (a few rows), so
    # it is opened; its partitions end at once and libwebp stops at the first macroblock.
    tag = (0 | 0 << 1 | 1 << 4 | 16 << 5).to_bytes(3, "little")
    vp8 = tag + b"\x9d\x01\x2a" + (16383).to_bytes(2, "little") + (16383).to_bytes(2, "little") + bytes(16)
    cat.add("webp-still-huge-vp8-truncated.webp", webp([riff_chunk(b"VP8 ", vp8)]),
            "any", "a lossy still of 16383x16383 with 16 bytes of data (opened scaled down; its frame fails fast)")
    atlases(cat)
    return cat


def atlas_frame(x, y, w, h, **extra):
    record = {"frame": {"x": x, "y": y, "w": w, "h": h}, "rotated": False, "trimmed": False,
              "spriteSourceSize": {"x": 0, "y": 0, "w": w, "h": h}, "sourceSize": {"w": w, "h": h}}
    record.update(extra)
    return record


def atlas_json(frames, meta=None):
    import json
    doc = {"frames": frames, "meta": meta or {"app": "hostile", "image": "atlas-sheet.png", "size": {"w": 64, "h": 64}}}
    return json.dumps(doc, separators=(",", ":")).encode()


def atlases(cat):
    """Sprite-atlas JSON (TexturePacker/Aseprite) over a 64x64 sheet."""
    sheet = PNG_SIG + ihdr(64, 64) + idat(64, 64, 3) + IEND
    cat.add("atlas-sheet.png", sheet, "ok", "the 64x64 sheet the atlas fixtures cut")
    quads = {f"f{i}": atlas_frame(32 * (i % 2), 32 * (i // 2), 32, 32, duration=100) for i in range(4)}
    valid = atlas_json(quads)
    tags = {"app": "http://www.aseprite.org/", "image": "atlas-sheet.png",
            "frameTags": [{"name": "walk", "from": 0, "to": 3, "direction": "pingpong"}]}

    def add(name, data, expect, note, exits="-"):
        cat.add(name, data, expect, note, exits)
        cat.rows[-1] = cat.rows[-1][:1] + ("atlas",) + cat.rows[-1][2:]

    add("atlas-valid.json", valid, "ok", "four 32x32 frames with durations")
    add("atlas-empty.json", b"", "error", "zero-length atlas", "3")
    add("atlas-truncated.json", valid[: len(valid) // 2], "error", "valid atlas cut in half", "3")
    add("atlas-not-json.json", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "error", "a PNG signature in the atlas", "3")
    add("atlas-deep-nesting.json", b"[" * 100000 + b"]" * 100000, "error", "arrays nested 100 000 deep", "3,4")
    add("atlas-deep-objects.json", b'{"a":' * 40000 + b"1" + b"}" * 40000, "error", "objects nested 40 000 deep", "3,4")
    add("atlas-invalid-utf8.json", b'{"frames":{"\xff\xfe":' + valid[11:], "any", "invalid UTF-8 in a key")
    add("atlas-lone-surrogate.json", valid.replace(b'"f0"', b'"\\ud800"'), "any", "a lone UTF-16 surrogate escape as a frame name")
    add("atlas-duplicate-keys.json", valid.replace(b'"f1"', b'"f0"'), "any", "two frames with the same key")
    add("atlas-huge-numbers.json", atlas_json({"a": atlas_frame(0, 0, 32, 32)}).replace(b'"w":32', b'"w":1e308', 1),
        "error", "a frame width of 1e308", "3,4")
    add("atlas-big-integer.json", atlas_json({"a": atlas_frame(0, 0, 32, 32)}).replace(b'"x":0', b'"x":99999999999999999999999', 1),
        "error", "an x beyond 64-bit integers", "3,4")
    add("atlas-negative.json", atlas_json({"a": atlas_frame(-5, 0, 32, 32)}), "error", "a negative x", "3")
    add("atlas-zero-size.json", atlas_json({"a": atlas_frame(0, 0, 0, 0)}), "error", "a 0x0 frame", "3")
    add("atlas-outside-sheet.json", atlas_json({"a": atlas_frame(60, 60, 32, 32), "b": atlas_frame(5000, 5000, 8, 8)}),
        "any", "frames reaching and lying outside the 64x64 sheet")
    add("atlas-huge-source-size.json",
        atlas_json({"a": dict(atlas_frame(0, 0, 8, 8), trimmed=True, sourceSize={"w": 16000000, "h": 16000000})}),
        "error", "a trimmed frame in a 16000000x16000000 source image (the canvas size)", "3,4")
    add("atlas-huge-offset.json",
        atlas_json({"a": dict(atlas_frame(0, 0, 8, 8), trimmed=True, spriteSourceSize={"x": 16000000, "y": 16000000, "w": 8, "h": 8})}),
        "any", "a trimmed frame placed 16 million pixels into an 8x8 source")
    add("atlas-rotated.json", atlas_json({"a": atlas_frame(0, 0, 16, 48, rotated=True)}), "ok", "a rotated 16x48 frame (48x16 on the sheet)")
    add("atlas-huge-duration.json", atlas_json({"a": atlas_frame(0, 0, 8, 8, duration=1e300)}), "error", "duration 1e300", "3")
    add("atlas-tag-out-of-range.json",
        atlas_json(quads, dict(tags, frameTags=[{"name": "walk", "from": 2, "to": 4000000000, "direction": "pingpong"}])),
        "error", "a tag running to frame 4 000 000 000", "3")
    add("atlas-tag-reversed.json", atlas_json(quads, dict(tags, frameTags=[{"name": "w", "from": 3, "to": 1}])),
        "error", "a tag whose from is after its to", "3")
    add("atlas-tags.json", atlas_json(quads, tags), "ok", "a ping-pong tag")
    add("atlas-frames-wrong-type.json", b'{"frames":"lots"}', "error", "frames is a string", "3")
    add("atlas-no-frames.json", b'{"frames":{}}', "error", "no frames", "3")
    add("atlas-20000-frames.json", atlas_json([dict(atlas_frame(i % 64, (i // 64) % 64, 1, 1), filename=f"f{i}")
                                                for i in range(20000)]), "ok", "20 000 one-pixel frames (array form)")
    rng = random.Random("atlas")
    for k in range(3):
        noise = bytes(rng.choice(b'{}[]:,"0123456789.eE-+ \\ntruefalsnul') for _ in range(3000))
        add(f"atlas-random-{k}.json", b'{"frames":' + noise, "error", "JSON punctuation soup", "3,4")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    files = os.path.join(args.out, "files")
    os.makedirs(files, exist_ok=True)
    cat = build()
    for name, data in cat.data.items():
        path = os.path.join(files, name)
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        except OSError:
            pass
        with open(path, "wb") as f:
            f.write(data)
    big = sorted(name for name, data in cat.data.items() if len(data) > IGNORED_SIZE)
    with open(os.path.join(args.out, ".gitignore"), "w") as f:
        f.write("# Written by make.py: fixtures over 256 KiB are regenerated, not committed.\n")
        f.write("/files/" + "\n/files/".join(big) + "\n")
    with open(os.path.join(args.out, "manifest.tsv"), "w") as f:
        f.write("name\tkind\texpect\texits\tcost\tnote\n")
        for row in cat.rows:
            f.write("\t".join(row) + "\n")
    print(f"{len(cat.rows)} fixtures in {files}")


if __name__ == "__main__":
    main()
