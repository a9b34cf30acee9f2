#!/usr/bin/env bash
# ctest `python_install`: `pip install .` as the README gives it, in a fresh virtual environment, offline.
#   tests/install/pip_install.sh BUILD_DIR SOURCE_DIR [PYTHON]
# Copies the source as git sees it (tracked files and untracked ones that are not ignored) to a fixed folder under
# the build, so that nothing is written into the checkout; runs the README's Python lines there verbatim (the venv,
# `pip install --no-build-isolation .` with no package index, examples/python_claim.py and the one-liner); then
# checks the installed module from outside the source: its __version__ is the package's, it is the venv's copy, it
# computes, and `pip uninstall` removes it. setup.py builds in <copy>/build, the build folder ./verify and ./test use
# (the same path relative to the source as ./test's build/, so that ccache, where installed, serves the library's
# objects from ./test's build); the install leaves the command line <copy>/build/icl-verify there, and a second
# install compiles nothing. Where `script` (util-linux) gives the install a terminal, as a user's has, its progress
# line must show there (the build's steps, "[k/n]"), not pip's silent spinner. Exit 77 (skipped) without python3-venv.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
python=${3:-/usr/bin/python3}

if ! "$python" -c "import venv, ensurepip" 2>/dev/null; then
  echo "SKIP: $python has no venv/ensurepip (Debian: apt-get install python3-venv)"
  exit 77
fi
for m in setuptools wheel numpy; do
  "$python" -c "import $m" 2>/dev/null || { echo "$python lacks $m (Debian: python3-setuptools python3-wheel python3-numpy)" >&2; exit 1; }
done

tmp=$build/pip_install
rm -rf "$tmp"
mkdir -p "$tmp/src"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
    tar -xf - -C "$tmp/src"
else
  (cd "$src" && tar --exclude='./build*' --exclude=./.venv -cf - .) | tar -xf - -C "$tmp/src"
fi
[ -f "$tmp/src/pyproject.toml" ] || { echo "the copy of the source has no pyproject.toml" >&2; exit 1; }

# The README's Python lines (the indented commands of "A claim of your own" that use .venv), as written, with
# Debian's interpreter where they say /usr/bin/python3 (PYTHON when another is under test).
mapfile -t lines < <(awk '/^## A claim of your own/{on=1; next} /^## /{on=0} on && /^    / && /\.venv/' "$tmp/src/README.md" |
                     sed 's/^    //')
[ ${#lines[@]} -ge 2 ] || { echo "README: no Python lines with .venv under 'A claim of your own'" >&2; exit 1; }
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset ICL_VERIFY_BUILD_DIR
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
# Without ccache (or with CCACHE_DISABLE set) the copy's CMake build would compile the whole library again (about
# 12 CPU-minutes, most of a cold ./test): there pip installs the module ./test's build made for this interpreter
# (setup.py's ICL_VERIFY_PREBUILT_MODULE), and everything else (pyproject.toml, setuptools, the venv, the README's
# lines) is tested the same way. With ccache the module is built by setup.py from the copy, as a user's pip does.
suffix=$("$python" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX') or '.so')")
if { ! command -v ccache >/dev/null || [ -n "${CCACHE_DISABLE:-}" ]; } && [ -f "$build/python/icl_verify$suffix" ]; then
  export ICL_VERIFY_PREBUILT_MODULE="$build/python/icl_verify$suffix"
  echo "no ccache (or CCACHE_DISABLE): pip installs the module of $build (ICL_VERIFY_PREBUILT_MODULE) instead of rebuilding the library"
fi
cd "$tmp/src"
t0=$(date +%s)
tty_run=
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then tty_run=1; fi
installed=
for line in "${lines[@]}"; do
  line=${line//\/usr\/bin\/python3/$python}
  echo "+ $line"
  t_line=$(date +%s)
  if [ -n "$tty_run" ] && [[ $line == *"pip install"* ]]; then
    # At a terminal (a pseudo-terminal from script), as a user runs it.
    script -qec "$line" /dev/null < /dev/null > "$tmp/line.log" 2>&1 ||
      { tail -n 40 "$tmp/line.log"; echo "README line failed: $line" >&2; exit 1; }
  else
    bash -c "$line" > "$tmp/line.log" 2>&1 || { tail -n 40 "$tmp/line.log"; echo "README line failed: $line" >&2; exit 1; }
  fi
  tail -n 3 "$tmp/line.log" | tr '\r' '\n' | tail -n 3
  if [[ $line == *"pip install"* ]]; then
    installed=1
    echo "pip install: $(( $(date +%s) - t_line )) s"
    if [ -n "$tty_run" ] && [ -z "${ICL_VERIFY_PREBUILT_MODULE:-}" ]; then
      # The progress line on the terminal: the build's steps with their count, and the end.
      tr '\r' '\n' < "$tmp/line.log" | grep -Eq 'icl-verify build \([0-9]+:[0-9]{2}\): \[[0-9]+/[0-9]+\] [0-9]+%' ||
        { tr '\r' '\n' < "$tmp/line.log" | tail -n 20; echo "pip install showed no build progress at the terminal" >&2; exit 1; }
      tr '\r' '\n' < "$tmp/line.log" | grep -q 'icl-verify build ([0-9:]*): done in' ||
        { echo "pip install's progress line did not end with 'done'" >&2; exit 1; }
      echo "the build's progress showed at the terminal"
    fi
  fi
done
echo "README lines: $(( $(date +%s) - t0 )) s"
[ -n "$installed" ] || { echo "README: no pip install line" >&2; exit 1; }
[ -f python-claim-report/oswald.gd_loss.json ] || { echo "examples/python_claim.py wrote no report" >&2; exit 1; }
# The command line beside the module (README: "pip install . builds ... build/icl-verify"), and a second install
# that finds everything built: nothing compiled, seconds.
if [ -z "${ICL_VERIFY_PREBUILT_MODULE:-}" ]; then
  build/icl-verify --version > "$tmp/version.log" || { echo "pip install left no working build/icl-verify" >&2; exit 1; }
  head -n 1 "$tmp/version.log"
  t_again=$(date +%s)
  .venv/bin/pip install --no-build-isolation -v . > "$tmp/again.log" 2>&1 || { tail -n 40 "$tmp/again.log"; exit 1; }
  if grep -E 'icl-verify build: \[[0-9]+/[0-9]+\] [0-9]+% .*\.(cpp|cu|cxx)\.o$' "$tmp/again.log"; then
    echo "a second pip install compiled again (above)" >&2
    exit 1
  fi
  grep -q 'icl-verify build: configure:' "$tmp/again.log" || { echo "pip install -v printed no build steps" >&2; exit 1; }
  echo "second pip install (-v): $(( $(date +%s) - t_again )) s, nothing compiled"
fi

# From outside the source: the installed copy, its version, a computation; then uninstall.
cd "$tmp"
venv_python() { "$tmp/src/.venv/bin/python" "$@"; }
venv_python - "$tmp/src/.venv" <<'PY'
import importlib.metadata as md
import sys

import numpy as np

import icl_verify as iv

venv = sys.argv[1]
assert iv.__file__.startswith(venv), (iv.__file__, venv)
assert iv.__version__ == md.version("icl-verify"), (iv.__version__, md.version("icl-verify"))
d, n = 2, 10
W = np.zeros((1, 1, 2, d, d))
W[0, 0, 0] = np.eye(d)
W[0, 0, 1] = iv.optimal_gamma(np.eye(d), n)
r = iv.eval_weights(W, n=n, samples=4096, threads=1)
assert r["verdict"] == "confirmed", r["summary"]
assert abs(r["cases"][0]["quantities"]["exact"]["value"] - d * (d + 1) / (n + d + 1)) < 1e-12
print("installed:", iv.__file__, iv.__version__)
PY
"$tmp/src/.venv/bin/pip" uninstall -y -q icl-verify
if venv_python -c "import icl_verify" 2>/dev/null; then
  echo "icl_verify is still importable after pip uninstall" >&2
  exit 1
fi
echo "pip install . in a fresh venv: ok"
