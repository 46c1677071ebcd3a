#!/usr/bin/env bash
# Builds the libFuzzer harnesses (AddressSanitizer, -O) through SwiftPM (Fuzz/Package.swift, build
# path .build-fuzz) and runs them.
#
#   Fuzz/run.sh                    every harness, 1 000 000 executions each
#   Fuzz/run.sh gif [RUNS]         one harness (gif, apng, webp, jpeg, avif, atlas, terminal, encode)
#   Fuzz/run.sh smoke              every harness for 12 s (CI: 96 s of fuzzing in all)
#   Fuzz/run.sh build              build only
#   Fuzz/run.sh repro gif FILE...  run inputs once (a crash file, a regression fixture)
#
# The harness binaries go to .build-fuzz/release (FUZZ_SCRATCH moves it); everything else to
# Fuzz/out (gitignored): a log per run, crash
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

# The harnesses are a SwiftPM package of their own (Fuzz/Package.swift) with its own build path,
# so the package's normal builds never see the sanitizers. SwiftPM passes `--sanitize fuzzer
# --sanitize address` to swiftc as two `-sanitize=` options, and the Swift driver hands only the
# LAST one to the frontend (checked with `swiftc -driver-print-jobs`): the Swift objects would get
# AddressSanitizer but no coverage counters, and libFuzzer would fuzz blind ("Is the code
# instrumented for coverage?"). `-Xswiftc -sanitize=fuzzer,address` comes last and names both;
# the `--sanitize` options stay for the C targets (clang adds them up) and the link.
# `-enable-testing`: the harnesses `@testable import` the decoders and the reply parser (`package`).
SCRATCH=${FUZZ_SCRATCH:-$ROOT/.build-fuzz}
SWIFTPM=(-c release --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH" --sanitize fuzzer --sanitize address
         -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
BIN=
build_all() {
  [ -n "$BIN" ] && return
  echo "fuzz: building the harnesses (swift build ${SWIFTPM[*]})" >&2
  swift build -q "${SWIFTPM[@]}" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2) >&2
  BIN=$(swift build "${SWIFTPM[@]}" --show-bin-path)
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
  build_all
  local corpus=$ROOT/Fuzz/corpus-$h seeds log=$OUT/fuzz-$h${LOG_SUFFIX:-}.log
  seeds=$(seed_dir "$h")
  mkdir -p "$corpus" "$OUT/crashes"
  echo "fuzz: $h $* (log: $log)" >&2
  local status=0
  # shellcheck disable=SC2086
  "$BIN/fuzz-$h" "$corpus" "$seeds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
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
    # A fixed seed (FUZZ_SEED to change): the smoke mutates the same way on every run, so a
    # finding in CI replays here; only how far it gets in 12 s depends on the machine.
    for h in "${HARNESSES[@]}"; do LOG_SUFFIX=-smoke run "$h" -max_total_time=12 -runs=100000000 -seed="${FUZZ_SEED:-1}"; done ;;
  all)
    runs=${2:-1000000}
    for h in "${HARNESSES[@]}"; do run "$h" -runs="$runs"; done ;;
  repro)
    h=${2:?harness}; shift 2
    build_all
    "$BIN/fuzz-$h" -runs=1 "$@" ;;
  *)
    harness_file "$cmd" >/dev/null
    run "$cmd" -runs="${2:-1000000}" ;;
esac
