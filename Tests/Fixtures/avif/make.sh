#!/usr/bin/env bash
# Makes the AVIF fixtures with ImageMagick (frames) and avifenc 0.11.1 (libavif-bin); committed, so
# this only runs to change them. libavif/ holds small files from libavif's own tests/data
# (BSD-2-Clause, the licence of libavif: libavif/LICENSE), copied unchanged.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for i in 0 1 2 3 4 5; do
  convert -size 64x48 xc:none -fill "rgba($((i*40)),$((200-i*30)),120,0.$((i+3)))" \
    -draw "circle $((10+i*8)),24 $((10+i*8)),34" -fill '#2050d0' -draw "rectangle 0,40 $((i*10+10)),47" "$tmp/f$i.png"
  convert "$tmp/f$i.png" -background '#f0e0c0' -flatten -alpha off "$tmp/o$i.png"
done
A=(-s 8 -j 1 --timescale 1000)
avifenc "${A[@]}" -y 444 --min 10 --max 30 --duration 100 "$tmp"/f0.png "$tmp"/f1.png --duration 250 "$tmp"/f2.png \
  "$tmp"/f3.png --duration 40 "$tmp"/f4.png "$tmp"/f5.png anim-alpha-444.avif >/dev/null
avifenc "${A[@]}" -l --duration 120 "$tmp"/o0.png "$tmp"/o1.png "$tmp"/o2.png "$tmp"/o3.png anim-lossless.avif >/dev/null
avifenc "${A[@]}" -y 420 --duration 80 "$tmp"/o0.png "$tmp"/o1.png "$tmp"/o2.png anim-420.avif >/dev/null
avifenc -s 8 -j 1 -y 444 "$tmp"/o4.png still-444.avif >/dev/null
avifenc -s 8 -j 1 -l "$tmp"/o3.png still-lossless.avif >/dev/null
avifenc -s 8 -j 1 -y 400 "$tmp"/o1.png still-grey.avif >/dev/null
avifenc -s 8 -j 1 -y 444 "$tmp"/f2.png still-alpha-444.avif >/dev/null
head -c 1500 anim-lossless.avif > truncated.avif
# More than 8 bits a sample (AVIFHighDepth): seeded plasma (smooth colours, every rounding shows)
# under a radial alpha (every alpha value), 10 and 12 bits, the subsamplings whose conversion
# Chromium does its own way.
for i in 0 1 2; do
  convert -seed $((7 + i)) -size 64x48 plasma: \( -size 64x48 radial-gradient:white-black \) -alpha off \
    -compose copy_opacity -composite "$tmp/p$i.png"
  convert "$tmp/p$i.png" -alpha off "$tmp/q$i.png"
done
avifenc -s 8 -j 1 --depth 10 -y 420 "$tmp"/p0.png still-10bit-alpha-420.avif >/dev/null
avifenc -s 8 -j 1 --depth 12 -y 444 "$tmp"/p1.png still-12bit-alpha-444.avif >/dev/null
avifenc -s 8 -j 1 --depth 12 -y 422 "$tmp"/q2.png still-12bit-422.avif >/dev/null
avifenc -s 8 -j 1 --depth 10 -y 400 "$tmp"/p2.png still-10bit-grey-alpha.avif >/dev/null
avifenc -s 8 -j 1 --depth 10 -y 444 -p "$tmp"/p1.png still-10bit-premultiplied-444.avif >/dev/null
avifenc "${A[@]}" --depth 12 -y 444 --duration 100 "$tmp"/p0.png "$tmp"/p1.png "$tmp"/p2.png anim-12bit-alpha-444.avif >/dev/null
