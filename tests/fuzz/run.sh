#!/usr/bin/env bash
# Runs the fuzz targets of a fuzz build folder (ASCVIZ_FUZZ=ON, docs/robustness.md):
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET…]
# For each target (all when none named): replays every input of regressions/<target>/, then fuzzes for
# SECONDS from the seed corpus corpus/<target>/ (which stays untouched: new inputs go to a scratch folder)
# with one worker. A crash, a leak, a sanitizer report, a timeout (-timeout) or running out of memory
# (-rss_limit_mb) fails the run; its input is kept in BUILD_DIR/fuzz-artifacts/<target>/. Prints one line per
# target: executions, coverage (cov: edges, ft: features), corpus size.
# ASCVIZ_FUZZ_WORK=DIR keeps the scratch corpora in DIR/<target>/ (to resume a longer campaign).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: run.sh BUILD_DIR SECONDS [TARGET…]}"
seconds="${2:?usage: run.sh BUILD_DIR SECONDS [TARGET…]}"
shift 2
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for f in "$here"/fuzz_*.cpp; do t="$(basename "$f" .cpp)"; targets+=("${t#fuzz_}"); done
fi

# Per target: dictionary, largest input (bytes), and the time one input may take (s). Graphviz layout grows
# faster than linearly with the tree, so the pipeline's inputs stay small.
options() {
  case "$1" in
    tokenizer)    echo "-dict=$here/dict/json.dict -max_len=16384 -timeout=10" ;;
    encode)       echo "-max_len=4096 -timeout=10" ;;
    safetensors)  echo "-dict=$here/dict/json.dict -max_len=8192 -timeout=10" ;;
    pickle)       echo "-dict=$here/dict/pickle.dict -max_len=8192 -timeout=10" ;;
    corpus_jsonl) echo "-dict=$here/dict/json.dict -max_len=8192 -timeout=10" ;;
    corpus_csv)   echo "-dict=$here/dict/csv.dict -max_len=8192 -timeout=10" ;;
    pipeline)     echo "-dict=$here/dict/code.dict -max_len=1024 -timeout=20" ;;
    study)        echo "-dict=$here/dict/study.dict -max_len=16384 -timeout=10" ;;
    heads_partial) echo "-dict=$here/dict/json.dict -max_len=16384 -timeout=10" ;;
    galeras_records)    echo "-dict=$here/dict/json.dict -max_len=4096 -timeout=10" ;;
    galeras_treatments) echo "-dict=$here/dict/json.dict -max_len=4096 -timeout=10" ;;
    session)      echo "-dict=$here/dict/json.dict -max_len=16384 -timeout=10" ;;
    prompts)      echo "-dict=$here/dict/json.dict -max_len=4096 -timeout=10" ;;
    *)            echo "-timeout=10" ;;
  esac
}

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# One target: replay its regressions, then fuzz. Its report goes to $scratch/$t.out, its result to $t.status.
fuzz_one() {
  local t="$1" exe="$build/tests/fuzz/fuzz_$1" artifacts="$build/fuzz-artifacts/$1" opts regressions work start
  local result execs cov
  mkdir -p "$artifacts"
  read -r -a opts <<< "$(options "$t")"
  regressions=()
  while IFS= read -r -d '' f; do regressions+=("$f"); done < <(find "$here/regressions/$t" -type f ! -name '.*' -print0 2>/dev/null | sort -z)
  if [ "${#regressions[@]}" -gt 0 ]; then
    if ! "$exe" "${opts[@]}" -rss_limit_mb=2048 "${regressions[@]}" > "$scratch/$t.replay.log" 2>&1; then
      tail -40 "$scratch/$t.replay.log"
      echo "fuzz: $t: a regression input fails again"
      return 1
    fi
  fi
  work="$scratch/$t"
  [ -n "${ASCVIZ_FUZZ_WORK:-}" ] && work="$ASCVIZ_FUZZ_WORK/$t"
  mkdir -p "$work"
  start=$SECONDS
  result=ok
  if ! "$exe" "${opts[@]}" -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
       -artifact_prefix="$artifacts/" "$work" "$here/corpus/$t" > "$scratch/$t.log" 2>&1; then
    result=FAILED
    grep -v -e '^#[0-9]' "$scratch/$t.log" | tail -60
  fi
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t.log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$scratch/$t.log" | tail -1)"
  echo "fuzz: $t: $result, ${execs:-?} inputs in $((SECONDS - start)) s, ${cov:-no coverage line}, ${#regressions[@]} regression inputs replayed"
  [ "$result" = ok ]
}

# ASCVIZ_FUZZ_JOBS targets at a time (default 1; the test command runs one per core), reports in target order.
jobs="${ASCVIZ_FUZZ_JOBS:-1}"
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "fuzz: $build/tests/fuzz/fuzz_$t is missing (cmake --build $build --target ascviz_fuzzers)" >&2; exit 2; }
done
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  ( if fuzz_one "$t" > "$scratch/$t.out" 2>&1; then echo 0; else echo 1; fi > "$scratch/$t.status" ) &
  running=$((running + 1))
done
wait
status=0
for t in "${targets[@]}"; do
  cat "$scratch/$t.out"
  [ "$(cat "$scratch/$t.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
