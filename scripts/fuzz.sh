#!/usr/bin/env bash
# Fuzzes every parser pith runs on a runner's output (fuzz/, cargo-fuzz + libFuzzer) for a
# bounded time: builds all targets, then runs each for SECONDS (default 20), two at a time on a
# 2-core machine. One line per target with its executions and coverage; exits non-zero on any
# crash, hang (one input over 5 s) or memory blow-up (over 512 MB), printing where libFuzzer
# wrote the input. Minimize such an input with `cargo +nightly fuzz tmin TARGET FILE` and keep it
# under fuzz/regressions/TARGET/: `cargo test -p pith-runner fuzzing` replays it on stable.
#
#   scripts/fuzz.sh [SECONDS]
#   PITH_FUZZ_JOBS=N      targets run at once (default: 2, or 1 on a 1-core machine)
#   PITH_FUZZ_MAX_LEN=N   longest input libFuzzer makes (default 16384 bytes)
#   PITH_SAMPLES=DIR      real reports read as extra seeds (read-only, never copied)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

seconds="${1:-20}"
case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac
if [ "$seconds" -eq 0 ]; then
    # libFuzzer reads 0 as "no limit": zero means no fuzzing at all.
    echo "fuzz: skipped (0 seconds)" >&2
    exit 0
fi
cores="$(nproc 2>/dev/null || echo 1)"
jobs="${PITH_FUZZ_JOBS:-$((cores >= 2 ? 2 : 1))}"
max_len="${PITH_FUZZ_MAX_LEN:-16384}"
started=$SECONDS

bash scripts/setup/fuzz.sh
targets=()
for f in fuzz/fuzz_targets/*.rs; do
    t="${f##*/}"
    targets+=("${t%.rs}")
done

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

echo "fuzz: building ${#targets[@]} targets" >&2
# cargo-fuzz sets the sanitizer and coverage flags itself; inherited ones would fight them.
unset ASAN_OPTIONS RUSTFLAGS
if ! cargo +nightly fuzz build -O >"$logs/build.log" 2>&1; then
    tail -40 "$logs/build.log" >&2
    echo "fuzz: build failed" >&2
    exit 1
fi
built=$SECONDS
# cargo builds into CARGO_TARGET_DIR when the caller set one, else beside the fuzz crate.
bin="${CARGO_TARGET_DIR:-fuzz/target}/x86_64-unknown-linux-gnu/release"

# The fixture files that are reports or streams, read as seeds by every target (a report of one
# format is hostile input to the others); fuzz/fixture-seeds.txt lists them.
fixture_seeds() {
    local path
    while read -r path; do
        case "$path" in '' | '#'*) continue ;; esac
        if [ -e "$path" ]; then find "$path" -type f -size -64k; fi
    done <fuzz/fixture-seeds.txt
}

run_target() {
    local t="$1" corpus="fuzz/corpus/$1" extra=()
    mkdir -p "$corpus" "fuzz/artifacts/$t"
    # Seeds join the working corpus by content hash, so a re-run adds nothing twice.
    local seeds=("fuzz/seeds/$t")
    [ -d "fuzz/regressions/$t" ] && seeds+=("fuzz/regressions/$t")
    # `--report` reads every format: every seed and every crash is its input too.
    [ "$t" = report_sniff ] && seeds=(fuzz/seeds) && [ -d fuzz/regressions ] && seeds+=(fuzz/regressions)
    { find "${seeds[@]}" -type f; fixture_seeds; } | while read -r f; do
        cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-40)"
    done
    if [ -n "${PITH_SAMPLES:-}" ] && [ -d "$PITH_SAMPLES" ]; then
        extra+=("$PITH_SAMPLES")
    fi
    local rc=0
    # A small quarantine: ASan's default 256 MB of freed memory would count against the limit.
    ASAN_OPTIONS=quarantine_size_mb=16:malloc_context_size=10 "$bin/$t" "$corpus" "${extra[@]}" \
        -max_total_time="$seconds" -timeout=5 -rss_limit_mb=512 -malloc_limit_mb=512 \
        -max_len="$max_len" -dict=fuzz/pith.dict -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" \
        >"$logs/$t.log" 2>&1 || rc=$?
    echo "$rc" >"$logs/$t.rc"
}

running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_target "$t" &
    running=$((running + 1))
done
wait || true

failed=0
for t in "${targets[@]}"; do
    log="$logs/$t.log"
    rc="$(cat "$logs/$t.rc" 2>/dev/null || echo '?')"
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
    cov="$({ grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" || true; } | tail -1)"
    if [ "$rc" = 0 ]; then
        printf 'fuzz: %-15s ok     runs=%-9s %s rss=%sMB\n' "$t" "${runs:-?}" "${cov:-}" "${rss:-?}"
    else
        failed=1
        printf 'fuzz: %-15s FAILED (exit %s) runs=%s %s\n' "$t" "$rc" "${runs:-?}" "${cov:-}"
        # libFuzzer's own words: the panic and its message, the report's first frames in pith,
        # and the file the input was written to.
        {
            grep -A1 -m1 'panicked at' "$log" || true
            grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer)' "$log" || true
            grep -E '#[0-9]+ .* in (pith_runner|pith_model)' "$log" | head -6 || true
            grep -E 'Test unit written to' "$log" || true
        } | sed 's/^/    /'
    fi
done
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time: build $((built - started))s, total $((SECONDS - started))s" >&2
exit "$failed"
