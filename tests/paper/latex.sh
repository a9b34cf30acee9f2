#!/usr/bin/env bash
# ctest `latex`: the LaTeX tables compile unedited in a plain article with exactly the packages all.tex names,
# every table fits the text width, and every citation and reference resolves. Uses the committed standard
# reports (reports/latest/*.json), rebuilt with `icl-verify report` in a scratch folder. Skipped (exit 77)
# without a TeX installation.
#   tests/paper/latex.sh ICL_VERIFY_BINARY SOURCE_DIR
set -euo pipefail
bin=$1
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
run pdflatex -interaction=nonstopmode -halt-on-error preview
run bibtex preview
run pdflatex -interaction=nonstopmode -halt-on-error preview
pdflatex -interaction=nonstopmode -halt-on-error preview >/dev/null 2>&1 || { grep -A3 '^!' preview.log >&2; exit 1; }
[ -s preview.pdf ] || { echo "no PDF" >&2; exit 1; }
status=0
if grep -n '^!' preview.log >&2; then status=1; fi
if grep -n 'Overfull \\hbox' preview.log >&2; then echo "a table is wider than the text" >&2; status=1; fi
if grep -n -E 'Citation .* undefined|Reference .* undefined' preview.log >&2; then status=1; fi
pages=$(grep -o 'Output written on preview.pdf ([0-9]* pages' preview.log | grep -o '[0-9]* pages')
echo "preview.pdf: $pages, every table within the text width"
exit $status
