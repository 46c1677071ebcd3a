#!/usr/bin/env bash
# Generates the benchmark inputs into Benchmarks/data/ (gitignored) from ffmpeg's testsrc2
# pattern: GIF, APNG and WebP at 640x360x150 and 1280x720x300 frames (25 fps), plus a 10-frame
# 1280x720 GIF (the baseline for peak-memory comparisons). Existing files are kept.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v ffmpeg >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ffmpeg >/dev/null
fi
mkdir -p data

gen() { # SIZE FRAMES EXT ffmpeg-output-options...
  local size=$1 frames=$2 ext=$3; shift 3
  local out="data/testsrc2-${size}x${frames}.${ext}"
  [ -s "$out" ] && return 0
  echo "making $out" >&2
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=${size}:rate=25" -frames:v "$frames" \
    "$@" "$out.tmp" && mv "$out.tmp" "$out"
}

for spec in 640x360:150 1280x720:300; do
  size=${spec%:*} frames=${spec#*:}
  gen "$size" "$frames" gif -f gif
  gen "$size" "$frames" apng -plays 0 -f apng
  gen "$size" "$frames" webp -c:v libwebp -loop 0 -f webp
done
gen 1280x720 10 gif -f gif
