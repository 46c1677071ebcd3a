#!/bin/sh
# Regenerates the WebP decoder fixtures (WebPDecoderTests) with libwebp's tools
# (Debian package `webp`: cwebp, webpmux; made with 1.2.4). The tests recompute the same
# patterns, so keep the two in step.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pam NAME W H EXPR: writes $tmp/NAME.pam, RGBA, EXPR = python expression of x, y giving (r,g,b,a).
pam() {
    python3 - "$tmp/$1.pam" "$2" "$3" "$4" <<'PY'
import sys
path, w, h, expr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
px = bytearray()
for y in range(h):
    for x in range(w):
        px += bytes(eval(expr))
with open(path, "wb") as f:
    f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (w, h))
    f.write(px)
PY
}
quadrants='((220,30,30) if x < 16 else (30,200,60)) if y < 12 else ((40,60,210) if x < 16 else (128,128,128))'

# Stills: a lossless gradient (VP8L), the same with alpha, lossy quadrants (VP8), lossy with alpha (VP8X+ALPH+VP8).
pam gradient 16 16 '(x*15 % 256, y*15 % 256, (x*7 + y*11) % 256, 255)'
pam gradient_alpha 16 16 '(x*15 % 256, y*15 % 256, (x*7 + y*11) % 256, 16 + (x + y) * 7 % 240)'
pam quadrants 32 24 "($quadrants) + (255,)"
pam quadrants_alpha 32 24 "($quadrants) + ((255,) if x < 16 else (96,))"
cwebp -quiet -lossless -exact "$tmp/gradient.pam" -o still_lossless.webp
cwebp -quiet -lossless -exact "$tmp/gradient_alpha.pam" -o still_lossless_alpha.webp
cwebp -quiet -q 90 "$tmp/quadrants.pam" -o still_lossy.webp
cwebp -quiet -q 90 -alpha_q 100 "$tmp/quadrants_alpha.pam" -o still_lossy_alpha.webp

# Animation on a 24x16 canvas, loop count 2, ANIM background opaque yellow (ignored):
#  0: opaque red 24x16, 100 ms, dispose none, blend
#  1: (0,0,255,128) 8x8 at (4,4), 50 ms, dispose background, blend
#  2: (0,255,0,100) 8x8 at (16,8), 0 ms, dispose none, no-blend
#  3: lossy opaque white 8x8 at (0,8), 40 ms, dispose none, blend (no alpha: decodes into the canvas)
pam red 24 16 '(255, 0, 0, 255)'
pam blue 8 8 '(0, 0, 255, 128)'
pam green 8 8 '(0, 255, 0, 100)'
pam white 8 8 '(255, 255, 255, 255)'
for f in red blue green; do cwebp -quiet -lossless -exact "$tmp/$f.pam" -o "$tmp/$f.webp"; done
cwebp -quiet -q 90 "$tmp/white.pam" -o "$tmp/white.webp"
webpmux -frame "$tmp/red.webp" +100+0+0+0+b -frame "$tmp/blue.webp" +50+4+4+1+b \
        -frame "$tmp/green.webp" +0+16+8+0-b -frame "$tmp/white.webp" +40+0+8+0+b \
        -loop 2 -bgcolor 255,255,0,255 -o animated.webp >/dev/null

# The animation cut in the middle of its last frame: three complete frames remain.
python3 - <<'PY'
data = open("animated.webp", "rb").read()
last = data.rindex(b"ANMF")
open("truncated.webp", "wb").write(data[: last + (len(data) - last) // 2])
PY

# Stacked semi-transparent frames (libwebp's and Chromium's integer blend round down: the
# difference from exact OVER grows with every layer). 16x8 canvas, loop forever:
#  0: (200,100,50,60) 16x8, dispose none, blend
#  1..10: gradient patches with partial alpha, 8x6 at varying offsets, blend; frames 4 and 7 are
#         disposed to background (the next frame is copied inside that rect, blended outside)
pam base 16 8 '(200, 100, 50, 60)'
cwebp -quiet -lossless -exact "$tmp/base.pam" -o "$tmp/base.webp"
args="-frame $tmp/base.webp +40+0+0+0+b"
for i in 1 2 3 4 5 6 7 8 9 10; do
  pam "p$i" 8 6 "((x*29 + $i*13) % 256, (y*41 + $i*7) % 256, ($i*23) % 256, (x*9 + y*13 + $i*5) % 250 + 3)"
  cwebp -quiet -lossless -exact "$tmp/p$i.pam" -o "$tmp/p$i.webp"
  dispose=0; [ "$i" = 4 ] && dispose=1; [ "$i" = 7 ] && dispose=1
  args="$args -frame $tmp/p$i.webp +40+$(( (i * 2) % 8 ))+$(( (i % 2) * 2 ))+$dispose+b"
done
webpmux $args -loop 0 -o stacked_alpha.webp >/dev/null
