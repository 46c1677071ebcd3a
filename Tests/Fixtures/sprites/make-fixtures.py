#!/usr/bin/env python3
"""Writes the sprite-sheet and frame-sequence fixtures next to this script (python3 stdlib only).

Every picture is computed from `pixel(k, x, y)`, so the sheets and the separately written
frames (the cells "cut by hand") hold the same pixels by construction:

  grid/sheet.png          4x3 cells of 6x5 px, margin 1, spacing 2 (32x21); gutters opaque magenta
  grid/sheet.webp         the same sheet as lossless WebP (cwebp -lossless -exact, when cwebp exists)
  grid/frames/frameN.png  cell N-1 of that sheet (N = 1..12, unpadded: natural order matters),
                          plus notes.txt, which a folder listing must skip
  mixed/a1.png a2.png a10.png   4x4, 7x3 and 2x6 images (canvas 7x6, each centred)
  atlas/tp-sheet.png      four 8x6 sprites packed: plain, trimmed, rotated, rotated+trimmed
  atlas/tp-hash.json, atlas/tp-array.json   TexturePacker JSON (hash and array) for it
  atlas/tp-expected-K.png the untrimmed, unrotated sprite K (what frame K must show)
  atlas/ase-sheet.png     six 5x4 frames in a row; atlas/ase.json: Aseprite hash JSON with
                          durations and tags in all four directions
"""
import json, os, shutil, struct, subprocess, zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def png(path, w, h, px):
    """px: list of rows of (r, g, b, a)."""
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in px)
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def pixel(k, x, y):
    """Distinct for every (k, x, y) in the fixtures; some translucent and clear pixels."""
    a = 255 if (x + y + k) % 4 else (0 if (x * y) % 2 else 128)
    return ((20 * k + 3 * x + 1) % 256, (40 + 7 * y + 5 * k) % 256, (x * 13 + y * 29 + k * 11) % 256, a)


def image(k, w, h):
    return [[pixel(k, x, y) for x in range(w)] for y in range(h)]


def blank(w, h, fill):
    return [[fill for _ in range(w)] for _ in range(h)]


def paste(dst, src, x0, y0):
    for y, row in enumerate(src):
        for x, p in enumerate(row):
            dst[y0 + y][x0 + x] = p


def crop(img, x, y, w, h):
    return [row[x:x + w] for row in img[y:y + h]]


def rotate_cw(img):
    """90 degrees clockwise: the top row becomes the right column."""
    h, w = len(img), len(img[0])
    return [[img[h - 1 - xr][yr] for xr in range(h)] for yr in range(w)]


MAGENTA = (255, 0, 255, 255)
CLEAR = (0, 0, 0, 0)


def grid():
    cols, rows, cw, ch, margin, spacing = 4, 3, 6, 5, 1, 2
    w = 2 * margin + cols * cw + (cols - 1) * spacing
    h = 2 * margin + rows * ch + (rows - 1) * spacing
    sheet = blank(w, h, MAGENTA)
    for k in range(cols * rows):
        cell = image(k, cw, ch)
        paste(sheet, cell, margin + (k % cols) * (cw + spacing), margin + (k // cols) * (ch + spacing))
        png(f"{HERE}/grid/frames/frame{k + 1}.png", cw, ch, cell)
    png(f"{HERE}/grid/sheet.png", w, h, sheet)
    if shutil.which("cwebp"):      # -exact keeps the colour of fully transparent pixels
        subprocess.run(["cwebp", "-quiet", "-lossless", "-exact", f"{HERE}/grid/sheet.png",
                        "-o", f"{HERE}/grid/sheet.webp"], check=True)
    with open(f"{HERE}/grid/frames/notes.txt", "w") as f:
        f.write("not an image: the folder listing skips it\n")


def mixed():
    for name, k, (w, h) in (("a1", 1, (4, 4)), ("a2", 2, (7, 3)), ("a10", 3, (2, 6))):
        png(f"{HERE}/mixed/{name}.png", w, h, image(k, w, h))


def texture_packer():
    sw, sh = 8, 6
    sprites = []
    for k in range(4):
        full = image(k + 20, sw, sh)
        trimmed = k in (1, 3)
        if trimmed:        # clear a border, as trimming would remove it
            tx, ty, tw, th = (2, 1, 4, 4) if k == 1 else (1, 2, 5, 3)
            full = [[p if tx <= x < tx + tw and ty <= y < ty + th else CLEAR for x, p in enumerate(row)]
                    for y, row in enumerate(full)]
        else:
            tx, ty, tw, th = 0, 0, sw, sh
        sprites.append((full, trimmed, k in (2, 3), (tx, ty, tw, th)))
    sheet = blank(30, 10, MAGENTA)
    x = 0
    frames = []
    for k, (full, trimmed, rotated, (tx, ty, tw, th)) in enumerate(sprites):
        content = crop(full, tx, ty, tw, th)
        stored = rotate_cw(content) if rotated else content
        paste(sheet, stored, x, 1)
        frames.append((f"sprite{k}.png", {
            "frame": {"x": x, "y": 1, "w": tw, "h": th},
            "rotated": rotated, "trimmed": trimmed,
            "spriteSourceSize": {"x": tx, "y": ty, "w": tw, "h": th},
            "sourceSize": {"w": sw, "h": sh},
            "pivot": {"x": 0.5, "y": 0.5}}))
        x += len(stored[0]) + 1
        png(f"{HERE}/atlas/tp-expected-{k}.png", sw, sh, full)
    png(f"{HERE}/atlas/tp-sheet.png", 30, 10, sheet)
    meta = {"app": "https://www.codeandweb.com/texturepacker", "version": "1.0", "image": "tp-sheet.png",
            "format": "RGBA8888", "size": {"w": 30, "h": 10}, "scale": "1"}
    with open(f"{HERE}/atlas/tp-hash.json", "w") as f:
        json.dump({"frames": dict(frames), "meta": meta}, f, indent="\t")
    with open(f"{HERE}/atlas/tp-array.json", "w") as f:
        json.dump({"frames": [dict(filename=n, **v) for n, v in frames], "meta": meta}, f, indent="\t")


def aseprite():
    fw, fh, n = 5, 4, 6
    sheet = blank(fw * n, fh, CLEAR)
    frames = {}
    for k in range(n):
        paste(sheet, image(k + 40, fw, fh), k * fw, 0)
        frames[f"walk {k}.aseprite"] = {
            "frame": {"x": k * fw, "y": 0, "w": fw, "h": fh}, "rotated": False, "trimmed": False,
            "spriteSourceSize": {"x": 0, "y": 0, "w": fw, "h": fh}, "sourceSize": {"w": fw, "h": fh},
            "duration": 100 + 20 * k}
    png(f"{HERE}/atlas/ase-sheet.png", fw * n, fh, sheet)
    meta = {"app": "https://www.aseprite.org/", "version": "1.3.7-x64", "image": "ase-sheet.png",
            "format": "RGBA8888", "size": {"w": fw * n, "h": fh}, "scale": "1",
            "frameTags": [
                {"name": "walk", "from": 0, "to": 3, "direction": "forward", "color": "#000000ff"},
                {"name": "back", "from": 0, "to": 3, "direction": "reverse", "color": "#000000ff"},
                {"name": "bounce", "from": 1, "to": 4, "direction": "pingpong", "color": "#000000ff"},
                {"name": "bounce-back", "from": 2, "to": 5, "direction": "pingpong_reverse", "color": "#000000ff"},
                {"name": "still", "from": 5, "to": 5, "direction": "pingpong", "color": "#000000ff"}],
            "layers": [{"name": "Layer 1", "opacity": 255, "blendMode": "normal"}], "slices": []}
    with open(f"{HERE}/atlas/ase.json", "w") as f:
        json.dump({"frames": frames, "meta": meta}, f, indent=1)


if __name__ == "__main__":
    grid()
    mixed()
    texture_packer()
    aseprite()
