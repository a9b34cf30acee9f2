#!/usr/bin/env bash
# ctest `paper_cli`: the parameter listing (statement, paper, parameters with ranges, defaults, quick grids and
# value names), names accepted by --set, the valid keys listed for a wrong one, and the rule that a quick or
# custom run never replaces a standard report.
#   tests/paper/cli_paper.sh ICL_VERIFY_BINARY SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: ${1:0:400}"; }

out=$("$bin" list) || fail "list"
expect_in "$out" "sja: Sun, Jadbabaie and Azizan (2025), *On the Role of Transformer Feed-Forward Layers"
expect_in "$out" "zfb: Zhang, Frei and Bartlett (2024)"

out=$("$bin" list sja.thm2) || fail "list sja.thm2"
for s in "sja.thm2:" "paper: Sun, Jadbabaie and Azizan (2025)" "source:" "statement:" "parameters (--set KEY=V1,V2,...):" \
         "integer in [" "default " "--quick " "parts of the statement:"; do
  expect_in "$out" "$s"
done
out=$("$bin" list acds.thm1) || fail "list acds.thm1"
expect_in "$out" "names (--set cov=NAME): isotropic=0, diagonal=1, rotated=2, rot-k100=3"

err=$("$bin" run acds.thm1 --quick --set foo=1 --out "$work/a" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "--set foo=1 exited $rc"
expect_in "$err" "valid: cov, d, n"
err=$("$bin" run acds.thm1 --quick --set cov=bogus --out "$work/a" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "--set cov=bogus exited $rc"
expect_in "$err" "names: isotropic, diagonal, rotated, rot-k100"
[ ! -e "$work/a" ] || fail "a rejected run wrote $work/a"

# A name is the number: cov=rotated runs cov=2, and the report prints the name beside the number.
"$bin" run acds.thm1 --quick --set cov=rotated --set d=2 --set n=20 --out "$work/b" >/dev/null || fail "cov=rotated"
grep -q '"cov": 2' "$work/b/acds.thm1.json" || fail "cov=rotated did not run cov=2"
grep -q '"run_mode": "quick"' "$work/b/acds.thm1.json" || fail "run_mode quick missing"
grep -qF 'cov=2 (rotated)' "$work/b/summary.md" || fail "summary.md lacks the name of cov=2"
grep -qF 'Quick run' "$work/b/acds.thm1.tex" || fail "the table does not say it is a quick run"

# A quick run never replaces a standard report.
mkdir -p "$work/std"
cp "$src/reports/latest/acds.thm1.json" "$work/std/"
before=$(md5sum "$work/std/acds.thm1.json")
err=$("$bin" run acds.thm1 --quick --out "$work/std" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "a quick run over a standard report exited $rc"
expect_in "$err" "holds the standard report of acds.thm1"
[ "$(md5sum "$work/std/acds.thm1.json")" = "$before" ] || fail "the standard report changed"
echo "ok"
