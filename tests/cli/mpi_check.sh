#!/usr/bin/env bash
# ctest `mpi` (only where icl-verify was built with MPI): the same claims run as one process and under
# `mpirun -n 2` give bitwise the same reports (reports/compare_reports.py: every number and word, the
# timing and provenance aside), the 2-rank reports say "ranks": 2 in their provenance, and only rank 0
# wrote (one summary line per claim on stdout). acds.exp43 trains: under 2 ranks each minibatch is split between
# them (data parallel, execute/chunks.hpp), and every training run of its report says "ranks": 2.
#   tests/cli/mpi_check.sh ICL_VERIFY MPIRUN SOURCE_DIR
set -euo pipefail
bin=$1
mpirun=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
claims=(sja.thm2 sja.lemma3 acds.exp43)
"$bin" run "${claims[@]}" --quick --threads 1 --out "$tmp/one" >"$tmp/one.log"
# Root (CI containers) needs --allow-run-as-root; --oversubscribe lets 2 ranks start on fewer cores.
extra=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && extra+=(--allow-run-as-root)
# A machine whose MPI runtime cannot start two processes at all (a container without the shared memory or the
# network it wants) is a machine without MPI: skip (exit 77), saying why. Our own runs below must then work.
if ! OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 "$mpirun" "${extra[@]}" -n 2 true >"$tmp/probe.log" 2>&1; then
  echo "skipped: $mpirun cannot start 2 processes here ($(grep -m1 -v '^[[:space:]-]*$' "$tmp/probe.log" || echo 'no message'))"
  exit 77
fi
OMPI_MCA_rmaps_base_oversubscribe=1 timeout 300 "$mpirun" "${extra[@]}" -n 2 "$bin" run "${claims[@]}" --quick --threads 1 \
  --out "$tmp/two" >"$tmp/two.log"
python3 "$src/reports/compare_reports.py" "$tmp/one" "$tmp/two"
for c in "${claims[@]}"; do
  python3 - "$tmp/two/$c.json" "$tmp/one/$c.json" <<'PY'
import json, sys
two, one = (json.load(open(p)) for p in sys.argv[1:])
assert two["provenance"]["ranks"] == 2, two["provenance"]["ranks"]
assert one["provenance"]["ranks"] == 1, one["provenance"]["ranks"]
def runs(j):  # every training run's block (it has steps_done)
    if isinstance(j, dict):
        if "steps_done" in j:
            yield j
        for v in j.values():
            yield from runs(v)
    elif isinstance(j, list):
        for v in j:
            yield from runs(v)
r2, r1 = list(runs(two)), list(runs(one))
assert len(r2) == len(r1), (len(r2), len(r1))
assert all(r["ranks"] == 2 for r in r2), [r.get("ranks") for r in r2]
assert all(r["ranks"] == 1 for r in r1), [r.get("ranks") for r in r1]
if two["claim"] == "acds.exp43":
    assert len(r2) > 0, "acds.exp43 reported no training run"
PY
done
lines=$(grep -c -E '^(sja\.thm2|sja\.lemma3|acds\.exp43) ' "$tmp/two.log" || true)
[ "$lines" -eq "${#claims[@]}" ] || { echo "expected one line per claim from rank 0 only, got $lines" >&2; cat "$tmp/two.log" >&2; exit 1; }
echo "mpi: 2 ranks bitwise equal to 1 process for ${claims[*]} (acds.exp43's minibatches split between the ranks)"
