#!/usr/bin/env bash
# ctest `latex`: the LaTeX tables compile unedited in a plain article with exactly the packages all.tex names,
# every table fits the text width, and every citation and reference resolves. Uses the committed standard
# reports (reports/latest/*.json), rebuilt with `icl-verify report` in a scratch folder. Skipped (exit 77)
# without a TeX installation.
#   tests/paper/latex.sh ICL_VERIFY_BINARY SOURCE_DIR
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
for tool in pdflatex bibtex; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipped: no TeX installation ($tool not found; Debian: texlive-latex-base texlive-latex-recommended" \
         "texlive-latex-extra texlive-science)"
    exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/reports/latest/*.json "$work"/
"$bin" report --from "$work" >/dev/null
cd "$work"
for f in all.tex preview.tex icl-verify.bib; do [ -s "$f" ] || { echo "missing $f" >&2; exit 1; }; done
# every table is \input by all.tex
for j in *.json; do
  c=${j%.json}
  grep -q "\\\\input{$c.tex}" all.tex || { echo "all.tex does not input $c.tex" >&2; exit 1; }
done
run() { "$@" >/dev/null 2>&1 || true; }
status=0
# preview.tex of the current folder: compiles, every citation and reference resolves, every table fits.
compile() {
  run pdflatex -interaction=nonstopmode -halt-on-error preview
  run bibtex preview
  run pdflatex -interaction=nonstopmode -halt-on-error preview
  pdflatex -interaction=nonstopmode -halt-on-error preview >/dev/null 2>&1 || { grep -A3 '^!' preview.log >&2; exit 1; }
  [ -s preview.pdf ] || { echo "no PDF" >&2; exit 1; }
  if grep -n '^!' preview.log >&2; then status=1; fi
  if grep -n 'Overfull \\hbox' preview.log >&2; then echo "$1: a table is wider than the text" >&2; status=1; fi
  if grep -n -E 'Citation .* undefined|Reference .* undefined' preview.log >&2; then status=1; fi
  # What a paper's author would not paste: a confidence level with more than two decimals ("99.9955\%"), a
  # parameter in typewriter type, a table that sends the reader to summary.md.
  if grep -n -E '[0-9]\.[0-9]{3,}\\%' ./*.tex >&2; then echo "$1: a level with more than two decimals" >&2; status=1; fi
  if grep -n 'summary\.md' ./*.tex >&2; then echo "$1: a table refers to summary.md" >&2; status=1; fi
  if grep -n -E '^(\\texttt\{|.* & \\texttt\{).*\\\\$' ./*.tex >&2; then echo "$1: a code name as a column head" >&2; status=1; fi
  pages=$(grep -o 'Output written on preview.pdf ([0-9]* pages' preview.log | grep -o '[0-9]* pages')
  echo "$1: preview.pdf: $pages, every table within the text width"
}
compile "reports/latest"
# The level of sja.thm2's intervals (99.9955%) reads as at most two decimals.
grep -q 'at level at least 99\.99\\%' sja.thm2.tex || { echo "sja.thm2.tex: no 'at level at least 99.99\\%'" >&2; status=1; }

# A --quick run of a few claims (an equality with a correction, a training experiment, a coded parameter): the same
# checks, and each caption says it is a quick run in its text.
mkdir "$work/quick"
cd "$work/quick"
"$bin" run sja.thm2 acds.exp43 sja.lemma12 --quick --out . >/dev/null
for t in sja.thm2 acds.exp43 sja.lemma12; do
  grep -q '^\\caption\[.*\]{.*Quick run (a first look' "$t.tex" || { echo "$t.tex: the caption does not say 'Quick run'" >&2; status=1; }
done
compile "a --quick run"
exit $status
