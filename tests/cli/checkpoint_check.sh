#!/usr/bin/env bash
# ctest `checkpoint`: a training claim interrupted by SIGTERM mid-training and resumed writes bitwise the report of
# an uninterrupted run, at the quick budget (acds.exp43) and at the deciding budget with reduced training (sja.fig1:
# the paired decisions of the deciding and paper budgets) (reports/compare_reports.py: every number and word; timings and provenance aside). The
# interrupted run exits 4 and leaves no report and no half-written file; the checkpoint folder refuses another run.
#   tests/cli/checkpoint_check.sh ICL_VERIFY SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_resume() {  # CLAIM ARGS...: the run; `other` holds another run's arguments
  local claim=$1
  args=("$@")
  rm -rf "$tmp"/*
  "$bin" run "${args[@]}" --out "$tmp/whole" >"$tmp/whole.log" 2>&1

  "$bin" run "${args[@]}" --out "$tmp/resumed" --checkpoint "$tmp/ck" --checkpoint-every 0.2 >"$tmp/first.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do  # until the first training run has saved a state (at most 60 s)
    compgen -G "$tmp/ck/train-*.state" >/dev/null && break
    sleep 0.1
  done
  compgen -G "$tmp/ck/train-*.state" >/dev/null || { echo "no training state was saved" >&2; cat "$tmp/first.log" >&2; exit 1; }
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  [ "$status" -eq 4 ] || { echo "the interrupted run exited $status, expected 4" >&2; cat "$tmp/first.log" >&2; exit 1; }
  grep -q "stopped on request" "$tmp/first.log" || { echo "no 'stopped on request' line" >&2; cat "$tmp/first.log" >&2; exit 1; }
  [ ! -e "$tmp/resumed/$claim.json" ] || { echo "the interrupted run wrote a report" >&2; exit 1; }
  ! compgen -G "$tmp/resumed/*.tmp" >/dev/null && ! compgen -G "$tmp/ck/*.tmp" >/dev/null ||
    { echo "a half-written file was left" >&2; exit 1; }

  # Another run on the same folder is refused (exit 2, nothing written).
  status=0
  "$bin" run "${other[@]}" --out "$tmp/other" --checkpoint "$tmp/ck" >"$tmp/other.log" 2>&1 ||
    status=$?
  [ "$status" -eq 2 ] && grep -q "holds the state of another run" "$tmp/other.log" && [ ! -e "$tmp/other" ] ||
    { echo "another run on the checkpoint folder: exit $status" >&2; cat "$tmp/other.log" >&2; exit 1; }

  # Resumed (with another thread count: the numbers do not depend on it).
  "$bin" run "${args[@]/--threads=1/--threads=2}" --out "$tmp/resumed" --resume "$tmp/ck" \
    >"$tmp/second.log" 2>&1 || { echo "the resumed run failed" >&2; cat "$tmp/second.log" >&2; exit 1; }
  python3 "$src/reports/compare_reports.py" "$tmp/whole" "$tmp/resumed"
  echo "checkpoint: $claim ${args[*]:1}: interrupted by SIGTERM, resumed, bitwise the uninterrupted report"
}

# acds.exp43's form (8) trains on the cpu executor's label-row kernels (lib/icl/execute/label_row.hpp), about 50 times
# faster than on the layers: 20000 steps keep a training run long enough (a few seconds) to be interrupted mid-run.
other=(acds.exp43 --quick --set steps=20100 --threads=1)
check_resume acds.exp43 --quick --set steps=20000 --threads=1
other=(sja.fig1 --budget deciding --set d=3 --set L=2 --set steps=250 --set batch=16 --samples 200 --threads=1)
check_resume sja.fig1 --budget deciding --set d=3 --set L=2 --set steps=240 --set batch=16 --samples 200 --threads=1
