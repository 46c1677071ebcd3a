#!/usr/bin/env bash
# Builds the libFuzzer harnesses (AddressSanitizer, -O) outside the package build and runs them.
#
#   Fuzz/run.sh                    every harness, 1 000 000 executions each
#   Fuzz/run.sh gif [RUNS]         one harness (gif, apng, webp, jpeg, avif, atlas, terminal, encode)
#   Fuzz/run.sh smoke              every harness for 12 s (CI: 60 s of fuzzing in all)
#   Fuzz/run.sh build              build only
#   Fuzz/run.sh repro gif FILE...  run inputs once (a crash file, a regression fixture)
#
# Everything goes to Fuzz/out (gitignored): the harness binaries, a log per run, crash
# artifacts (out/crashes/HARNESS-crash-*), and the corpus libFuzzer grows (Fuzz/corpus-HARNESS,
# also gitignored), with the tokens in Fuzz/dict/HARNESS.dict. Seeds: Tests/Fixtures (corpus inputs, hostile fixtures, sprite atlases), cut to 16 KiB.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS; FUZZ_OUT moves Fuzz/out elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${FUZZ_OUT:-$ROOT/Fuzz/out}
HARNESSES=(gif apng webp jpeg avif atlas terminal encode)
export SWIFT_BACKTRACE=enable=no          # let libFuzzer/ASan report crashes, not the Swift backtracer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}

harness_file() {
  case $1 in
    gif) echo FuzzGIF.swift ;; apng) echo FuzzAPNG.swift ;; webp) echo FuzzWebP.swift ;; jpeg) echo FuzzJPEG.swift ;; avif) echo FuzzAVIF.swift ;;
    atlas) echo FuzzAtlas.swift ;; terminal) echo FuzzTerminal.swift ;; encode) echo FuzzEncode.swift ;; *) echo "unknown harness '$1' (one of: ${HARNESSES[*]})" >&2; exit 64 ;;
  esac
}

# AnimatedCore once, as a static library with sanitizer coverage; rebuilt when a source changes.
# AnimatedTerminal's sources (the terminal reply parser) go into the same module for the harnesses (the
# terminal files' own `import AnimatedCore` is then ignored with a warning).
build_lib() {
  mkdir -p "$OUT"
  local lib=$OUT/libAnimatedCore.a
  if [ -f "$lib" ] && [ -z "$(find Sources/AnimatedCore Sources/CGIF Sources/CPNG Sources/CJPEG Sources/CAVIF Sources/CWebP Sources/CCurl Sources/CZlib Sources/CSixel Sources/AnimatedTerminal Sources/CImageQuant -newer "$lib" -type f | head -1)" ]; then
    return
  fi
  echo "fuzz: building AnimatedCore with -sanitize=fuzzer,address" >&2
  local srcs=()
  while IFS= read -r f; do srcs+=("$f"); done < <(find Sources/AnimatedCore Sources/AnimatedTerminal -name '*.swift' | sort)
  # The CPNG C target, with the same instrumentation, goes into the same archive.
  clang -O2 -fsanitize=fuzzer-no-link,address -I "$ROOT/Sources/CPNG/include" \
      -c "$ROOT/Sources/CPNG/animplay_png.c" -o "$OUT/animplay_png.o"
  clang -O2 -fsanitize=fuzzer-no-link,address -I "$ROOT/Sources/CPNG/include" \
      -c "$ROOT/Sources/CPNG/animplay_png_write.c" -o "$OUT/animplay_png_write.o"
  clang -O2 -fsanitize=fuzzer-no-link,address -I "$ROOT/Sources/CJPEG/include" \
      -c "$ROOT/Sources/CJPEG/animplay_jpeg.c" -o "$OUT/animplay_jpeg.o"
  (cd "$OUT" && swiftc -O -parse-as-library -sanitize=fuzzer,address -swift-version 6 \
      -module-name AnimatedCore -package-name animplay -emit-module -emit-module-path "$OUT/AnimatedCore.swiftmodule" \
      -emit-library -static -o "$lib" \
      -I "$ROOT/Sources/CGIF" -I "$ROOT/Sources/CPNG/include" -I "$ROOT/Sources/CJPEG/include" -I "$ROOT/Sources/CAVIF" -I "$ROOT/Sources/CWebP" -I "$ROOT/Sources/CCurl" -I "$ROOT/Sources/CZlib" \
      -I "$ROOT/Sources/CSixel" -I "$ROOT/Sources/CImageQuant" -Xcc -I/usr/include/sixel \
      "${srcs[@]/#/$ROOT/}" "$OUT/animplay_png.o" "$OUT/animplay_png_write.o" "$OUT/animplay_jpeg.o")
}

build_harness() {
  local h=$1 bin=$OUT/fuzz-$1 file
  file=$(harness_file "$h")
  if [ -x "$bin" ] && [ -z "$(find "$OUT/libAnimatedCore.a" Fuzz/Harnesses -newer "$bin" -type f | head -1)" ]; then
    return
  fi
  echo "fuzz: linking $bin" >&2
  swiftc -O -parse-as-library -sanitize=fuzzer,address -swift-version 6 -package-name animplay \
    -I "$OUT" -I Sources/CGIF -I Sources/CPNG/include -I Sources/CJPEG/include -I Sources/CAVIF -I Sources/CWebP -I Sources/CCurl -I Sources/CZlib -I Sources/CSixel -I Sources/CImageQuant -Xcc -I/usr/include/sixel \
    Fuzz/Harnesses/FuzzSupport.swift "Fuzz/Harnesses/$file" \
    -L "$OUT" -lAnimatedCore -lgif -lpng16 -ljpeg -lavif -lwebp -lwebpdemux -lwebpmux -limagequant -lz -lsixel \
    -o "$bin" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
}

# Seeds for one harness: the files of its kind under Tests/Fixtures (up to 256 KiB each).
seed_dir() {
  local h=$1 dir=$OUT/seeds-$1 pattern
  case $h in
    gif) pattern='*.gif' ;; apng) pattern='*.png' ;; webp) pattern='*.webp' ;; jpeg) pattern='*.jpg' ;; avif) pattern='*.avif' ;; atlas) pattern='*.json' ;;
    terminal) pattern='*.replies' ;;   # Tests/Fixtures/terminal: kitty, xterm and tmux answers
    encode) pattern='*.[gpw][ine][fgb]*' ;;   # .gif, .png, .webp: the encoders take whatever decodes
  esac
  rm -rf "$dir"; mkdir -p "$dir"
  find Tests/Fixtures -type f -name "$pattern" -size -256k | while IFS= read -r f; do
    cp "$f" "$dir/$(printf '%s' "$f" | tr '/' '_')"
  done
  if [ "$h" = gif ]; then   # GIF files named otherwise, for the wrong-extension fixtures
    find Tests/Fixtures/hostile/files -type f -name 'gif-*' ! -name '*.gif' -size -256k -exec cp {} "$dir" \;
  fi
  echo "$dir"
}

run() {
  local h=$1; shift
  build_lib; build_harness "$h"
  local corpus=$ROOT/Fuzz/corpus-$h seeds log=$OUT/fuzz-$h${LOG_SUFFIX:-}.log
  seeds=$(seed_dir "$h")
  mkdir -p "$corpus" "$OUT/crashes"
  echo "fuzz: $h $* (log: $log)" >&2
  local status=0
  # shellcheck disable=SC2086
  "$OUT/fuzz-$h" "$corpus" "$seeds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -print_final_stats=1 -artifact_prefix="$OUT/crashes/$h-" -dict="$ROOT/Fuzz/dict/$h.dict" \
    "$@" ${FUZZ_FLAGS:-} >"$log" 2>&1 || status=$?
  local done cov
  done=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  if [ $status -ne 0 ]; then
    echo "fuzz: $h FAILED (exit $status):" >&2
    grep -E 'ERROR|SUMMARY|Fatal error|Test unit written|precondition' "$log" | head -10 >&2
    return $status
  fi
  echo "fuzz: $h ok: ${done:-no stats} ($cov)"
}

cmd=${1:-all}
case $cmd in
  build)
    build_lib; for h in "${HARNESSES[@]}"; do build_harness "$h"; done ;;
  smoke)
    build_lib; for h in "${HARNESSES[@]}"; do build_harness "$h"; done
    for h in "${HARNESSES[@]}"; do LOG_SUFFIX=-smoke run "$h" -max_total_time=12 -runs=100000000; done ;;
  all)
    runs=${2:-1000000}
    for h in "${HARNESSES[@]}"; do run "$h" -runs="$runs"; done ;;
  repro)
    h=${2:?harness}; shift 2
    build_lib; build_harness "$h"
    "$OUT/fuzz-$h" -runs=1 "$@" ;;
  *)
    harness_file "$cmd" >/dev/null
    run "$cmd" -runs="${2:-1000000}" ;;
esac
