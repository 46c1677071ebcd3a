#!/usr/bin/env python3
"""Rewrites expected/<case>/frame-NNNN.png of the named WebP cases with the frames of libwebp's own
WebPAnimDecoder (RGBA, non-premultiplied): the browser's reference, since Chromium composites
animated WebP with the same integer blend. Needs libwebpdemux (Debian libwebpdemux2).

Usage: python3 webp-expected.py CASE-ID...
"""
import ctypes, ctypes.util, csv, os, struct, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
lib = ctypes.CDLL(ctypes.util.find_library("webpdemux") or "libwebpdemux.so.2")
ABI = 0x0107                      # WEBP_DEMUX_ABI_VERSION of libwebp 1.x
MODE_RGBA = 1

class WebPData(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_void_p), ("size", ctypes.c_size_t)]
class Options(ctypes.Structure):
    _fields_ = [("color_mode", ctypes.c_int), ("use_threads", ctypes.c_int), ("padding", ctypes.c_uint32 * 7)]
class AnimInfo(ctypes.Structure):
    _fields_ = [("canvas_width", ctypes.c_uint32), ("canvas_height", ctypes.c_uint32),
                ("loop_count", ctypes.c_uint32), ("bgcolor", ctypes.c_uint32),
                ("frame_count", ctypes.c_uint32), ("pad", ctypes.c_uint32 * 4)]

lib.WebPAnimDecoderNewInternal.restype = ctypes.c_void_p
lib.WebPAnimDecoderNewInternal.argtypes = [ctypes.POINTER(WebPData), ctypes.POINTER(Options), ctypes.c_int]
lib.WebPAnimDecoderGetNext.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), ctypes.POINTER(ctypes.c_int)]
lib.WebPAnimDecoderGetInfo.argtypes = [ctypes.c_void_p, ctypes.POINTER(AnimInfo)]
lib.WebPAnimDecoderHasMoreFrames.argtypes = [ctypes.c_void_p]
lib.WebPAnimDecoderDelete.argtypes = [ctypes.c_void_p]


def frames(path):
    raw = open(path, "rb").read()
    buf = ctypes.create_string_buffer(raw, len(raw))
    data = WebPData(ctypes.cast(buf, ctypes.c_void_p), len(raw))
    opts = Options()
    assert lib.WebPAnimDecoderOptionsInitInternal(ctypes.byref(opts), ABI)
    opts.color_mode = MODE_RGBA
    dec = lib.WebPAnimDecoderNewInternal(ctypes.byref(data), ctypes.byref(opts), ABI)
    if not dec:
        raise SystemExit(f"{path}: WebPAnimDecoderNew failed")
    info = AnimInfo()
    lib.WebPAnimDecoderGetInfo(dec, ctypes.byref(info))
    w, h = info.canvas_width, info.canvas_height
    out = []
    while lib.WebPAnimDecoderHasMoreFrames(dec):
        px = ctypes.POINTER(ctypes.c_uint8)()
        ts = ctypes.c_int()
        if not lib.WebPAnimDecoderGetNext(dec, ctypes.byref(px), ctypes.byref(ts)):
            raise SystemExit(f"{path}: frame {len(out)} failed")
        out.append(ctypes.string_at(px, w * h * 4))
    lib.WebPAnimDecoderDelete(dec)
    return w, h, out


def png(path, w, h, rgba):
    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)
    rows = b"".join(b"\0" + rgba[y * w * 4:(y + 1) * w * 4] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main():
    cases = {r["id"]: r for r in csv.DictReader(open(os.path.join(HERE, "cases.tsv")), delimiter="\t")}
    for cid in sys.argv[1:]:
        c = cases[cid]
        assert c["format"] == "webp" and c["check"] == "all-frames", cid
        w, h, fr = frames(os.path.join(HERE, c["input"]))
        d = os.path.join(HERE, "expected", cid)
        for name in os.listdir(d):
            if name.endswith(".png"):
                os.remove(os.path.join(d, name))
        for i, rgba in enumerate(fr):
            png(os.path.join(d, "frame-%04d.png" % i), w, h, rgba)
        print(f"{cid}: {len(fr)} frames from WebPAnimDecoder")


if __name__ == "__main__":
    main()
