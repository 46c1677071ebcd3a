"""A minimal APNG writer for test inputs: RGBA frames of one size, each replacing the last
(or blended over it)."""
import struct, zlib


def _chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_apng(path, w, h, frames, delay_ms=100, plays=0, over=False, depth=8, colour_type=6, trns=None):
    """frames: lists of w*h pixels, each a tuple of the colour type's samples ((r, g, b, a) for
    the default, 6; (grey,) for 0), of `depth` bits (8 or 16). over: frames after the first
    blend OVER the canvas (blend_op 1) instead of replacing it. trns: a tRNS chunk's payload."""
    def raw(f):
        rows = bytearray()
        for y in range(h):
            rows.append(0)
            for p in f[y * w:(y + 1) * w]:
                rows += bytes(p) if depth == 8 else struct.pack('>' + 'H' * len(p), *p)
        return zlib.compress(bytes(rows))
    out = b'\x89PNG\r\n\x1a\n' + _chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, colour_type, 0, 0, 0))
    if trns is not None:
        out += _chunk(b'tRNS', trns)
    out += _chunk(b'acTL', struct.pack('>II', len(frames), plays))
    seq = 0
    for i, f in enumerate(frames):
        # dispose 0 (none); blend 0 (source: the frame replaces the canvas) or 1 (over).
        out += _chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, w, h, 0, 0, delay_ms, 1000, 0, 1 if over and i else 0))
        seq += 1
        if i == 0:
            out += _chunk(b'IDAT', raw(f))
        else:
            out += _chunk(b'fdAT', struct.pack('>I', seq) + raw(f))
            seq += 1
    out += _chunk(b'IEND', b'')
    with open(path, 'wb') as fh:
        fh.write(out)
