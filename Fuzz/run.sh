#!/usr/bin/env bash
# Builds the libFuzzer harnesses (AddressSanitizer, -O) with SwiftPM (the package Fuzz/Package.swift,
# its own scratch path .build-fuzz) and runs them.
#
#   Fuzz/run.sh                    every harness, 1 000 000 executions each
#   Fuzz/run.sh gif [RUNS]         one harness (gif, apng, webp, atlas, terminal)
#   Fuzz/run.sh smoke              every harness for 12 s (CI: 60 s of fuzzing in all)
#   Fuzz/run.sh build              build only
#   Fuzz/run.sh repro gif FILE...  run inputs once (a crash file, a regression fixture)
#
# The build goes to .build-fuzz (FUZZ_BUILD moves it); everything else to Fuzz/out (gitignored): a log per run, crash
# artifacts (out/crashes/HARNESS-crash-*), and the corpus libFuzzer grows (Fuzz/corpus-HARNESS,
# also gitignored), with the tokens in Fuzz/dict/HARNESS.dict. Seeds: Tests/Fixtures (corpus inputs, hostile fixtures, sprite atlases), cut to 16 KiB.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS; FUZZ_OUT moves Fuzz/out elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
ROOT=$PWD
OUT=${FUZZ_OUT:-$ROOT/Fuzz/out}
HARNESSES=(gif apng webp atlas terminal)
export SWIFT_BACKTRACE=enable=no          # let libFuzzer/ASan report crashes, not the Swift backtracer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}

check_harness() {
  case " ${HARNESSES[*]} " in *" $1 "*) ;; *) echo "unknown harness '$1' (one of: ${HARNESSES[*]})" >&2; exit 64 ;; esac
}

# Every harness in one SwiftPM build of the package Fuzz/ (it uses the main package by path):
# --sanitize instruments every target, C included, and links libFuzzer into each harness; SwiftPM
# rebuilds what changed. -enable-testing: fuzz-terminal reaches `package` parsers through @testable.
BUILD=${FUZZ_BUILD:-$ROOT/.build-fuzz}
build_all() {
  echo "fuzz: swift build -c release --sanitize fuzzer --sanitize address (scratch path $BUILD)" >&2
  swift build -c release --package-path "$ROOT/Fuzz" --scratch-path "$BUILD" \
    --sanitize fuzzer --sanitize address -Xswiftc -enable-testing \
    2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2) | grep -E 'error|warning: |Build complete' >&2
  mkdir -p "$OUT"
}

# Seeds for one harness: the files of its kind under Tests/Fixtures (up to 256 KiB each).
seed_dir() {
  local h=$1 dir=$OUT/seeds-$1 pattern
  case $h in
    gif) pattern='*.gif' ;; apng) pattern='*.png' ;; webp) pattern='*.webp' ;; atlas) pattern='*.json' ;;
    terminal) pattern='*.replies' ;;   # Tests/Fixtures/terminal: kitty, xterm and tmux answers
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
  local corpus=$ROOT/Fuzz/corpus-$h seeds log=$OUT/fuzz-$h${LOG_SUFFIX:-}.log
  seeds=$(seed_dir "$h")
  mkdir -p "$corpus" "$OUT/crashes"
  echo "fuzz: $h $* (log: $log)" >&2
  local status=0
  # shellcheck disable=SC2086
  "$BUILD/release/fuzz-$h" "$corpus" "$seeds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
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
    build_all ;;
  smoke)
    build_all
    for h in "${HARNESSES[@]}"; do LOG_SUFFIX=-smoke run "$h" -max_total_time=12 -runs=100000000; done ;;
  all)
    runs=${2:-1000000}
    build_all
    for h in "${HARNESSES[@]}"; do run "$h" -runs="$runs"; done ;;
  repro)
    h=${2:?harness}; shift 2; check_harness "$h"
    build_all
    "$BUILD/release/fuzz-$h" -runs=1 "$@" ;;
  *)
    check_harness "$cmd"
    build_all
    run "$cmd" -runs="${2:-1000000}" ;;
esac
