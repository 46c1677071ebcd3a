#!/usr/bin/env python3
"""Partly transparent pixels over a background, as Chromium shows them.

Writes `input.png`: 256x8 RGBA, row r in colour COLOURS[r], column x with alpha x (0-255). Then
headless Chromium (Debian's `chromium`) draws it with a 2D canvas over each of BACKGROUNDS
(fillRect, then drawImage: a page background under an <img>, composited by Skia in sRGB with
straight-alpha source-over, no colour management) and reads the pixels back: `over-RRGGBB.png`
(256x8, opaque). `RenderBackgroundTests` holds animplay's blending to these.

    python3 Tests/Fixtures/browser/blend/make.py      # needs chromium
"""
import base64, os, re, subprocess, sys, tempfile, zlib, struct

HERE = os.path.dirname(os.path.abspath(__file__))
COLOURS = [(255, 255, 255), (208, 208, 208), (255, 204, 51), (255, 0, 0), (0, 255, 0), (40, 90, 220),
           (128, 64, 32), (0, 0, 0)]
BACKGROUNDS = ['000000', 'ffffff', '1e1e2e', '336699']


def png(path, w, h, rgba):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    raw = b''.join(b'\0' + bytes(rgba[y * w * 4:(y + 1) * w * 4]) for y in range(h))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


PAGE = '''<!doctype html><body><script>
const img = new Image();
img.onload = () => {
  const out = [];
  for (const bg of %s) {
    const c = document.createElement('canvas'); c.width = 256; c.height = 8;
    const g = c.getContext('2d', {colorSpace: 'srgb'});
    g.fillStyle = '#' + bg; g.fillRect(0, 0, 256, 8);
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, 256, 8).data;
    let hex = '';
    for (let i = 0; i < d.length; i++) hex += d[i].toString(16).padStart(2, '0');
    out.push(bg + ':' + hex);
  }
  document.body.textContent = 'RESULT ' + out.join(' ') + ' END';
};
img.src = 'data:image/png;base64,%s';
</script></body>'''


if __name__ == '__main__':
    rgba = []
    for c in COLOURS:
        for a in range(256):
            rgba += [c[0], c[1], c[2], a]
    inp = os.path.join(HERE, 'input.png')
    png(inp, 256, 8, rgba)
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, 'blend.html')
        with open(page, 'w') as f:
            f.write(PAGE % (BACKGROUNDS, base64.b64encode(open(inp, 'rb').read()).decode()))
        dom = subprocess.run(['chromium', '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
                              f'--user-data-dir={d}/profile', '--virtual-time-budget=10000', '--dump-dom',
                              'file://' + page], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'RESULT (.*) END', dom)
    if not m:
        sys.exit('chromium gave no result')
    print(subprocess.run(['chromium', '--version'], capture_output=True, text=True).stdout.strip())
    for item in m.group(1).split():
        bg, hexdata = item.split(':')
        png(os.path.join(HERE, f'over-{bg}.png'), 256, 8, list(bytes.fromhex(hexdata)))
