"""A minimal GIF89a writer for test inputs: global palette, uncompressed LZW (a clear code
every 250 literals keeps codes 9 bits wide), per-frame delay and transparency, NETSCAPE loops."""
import struct


def _lzw_uncompressed(indices):
    clear, eoi, width = 256, 257, 9
    bits, nbits, out = 0, 0, bytearray()

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF); bits >>= 8; nbits -= 8

    emit(clear)
    for i, v in enumerate(indices):
        if i and i % 250 == 0:
            emit(clear)
        emit(v)
    emit(eoi)
    if nbits:
        out.append(bits & 0xFF)
    blocks = bytearray([8])                       # minimum code size
    for i in range(0, len(out), 255):
        chunk = out[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b'\x00')


def write_gif(path, width, height, frames, delay_cs=5, loops=None, transparent=None):
    """frames: lists of (r, g, b) per pixel, row-major. `transparent`: a colour drawn as
    fully transparent (it gets the transparent index)."""
    palette = []
    index = {}
    for f in frames:
        for c in f:
            if c not in index:
                index[c] = len(palette); palette.append(c)
    assert len(palette) <= 256, 'too many colours'
    palette += [(0, 0, 0)] * (256 - len(palette))
    out = bytearray(b'GIF89a')
    out += struct.pack('<HHBBB', width, height, 0xF7, 0, 0)   # global table, 256 entries
    for c in palette:
        out += bytes(c)
    if loops is not None:
        out += b'\x21\xFF\x0BNETSCAPE2.0\x03\x01' + struct.pack('<H', loops) + b'\x00'
    for f in frames:
        flags = 0x04                               # dispose: do not dispose
        tindex = 0
        if transparent is not None and transparent in index:
            flags |= 0x01; tindex = index[transparent]
        out += b'\x21\xF9\x04' + struct.pack('<BHB', flags, delay_cs, tindex) + b'\x00'
        out += b'\x2C' + struct.pack('<HHHHB', 0, 0, width, height, 0)
        out += _lzw_uncompressed([index[c] for c in f])
    out += b'\x3B'
    with open(path, 'wb') as fh:
        fh.write(out)
