#!/usr/bin/env bash
# ctest `install_example`: the CMake package from another project. Installs the already-built library to a
# temporary prefix, configures and builds examples/own_claim against it (find_package(iclverify)), runs the
# program with no arguments in an empty folder and checks what it wrote.
#   tests/install/own_claim.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
# A fixed folder under the build (removed first), so that ccache, where installed, finds the example's
# object file from the last run: the same paths give the same compile command.
tmp=$(cd "$build" && pwd)/install_example
rm -rf "$tmp"
mkdir -p "$tmp"

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in lib/libiclverify.a include/icl/claim/case_json.hpp include/icl/cli/eval.hpp bin/icl-verify \
         lib/cmake/iclverify/iclverifyConfig.cmake lib/cmake/iclverify/iclverifyConfigVersion.cmake; do
  [ -e "$tmp/prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
# Only lib/icl is installed: no claims, no constructions.
if [ -e "$tmp/prefix/include/claims" ] || [ -e "$tmp/prefix/include/constructions" ]; then
  echo "claims or constructions were installed" >&2
  exit 1
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src/examples/own_claim" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" "${launcher[@]}" >/dev/null
cmake --build "$tmp/build" -j"$(nproc)" >/dev/null

mkdir "$tmp/run"
(cd "$tmp/run" && "$tmp/build/own_claim")
for f in oswald.prop1.json oswald.prop1.tex summary.md; do
  [ -s "$tmp/run/$f" ] || { echo "own_claim did not write $f" >&2; exit 1; }
done
python3 - "$tmp/run/oswald.prop1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "icl-verify/report/v1", r["schema"]
assert r["claim"] == "oswald.prop1"
assert len(r["cases"]) == 8, len(r["cases"])
for c in r["cases"]:
    q = c["quantities"]
    assert abs(q["stated"]["value"] - q["exact"]["value"]) <= 1e-9 * q["exact"]["value"], c["params"]
    assert q["mc"]["ci_low"] <= q["mc"]["mean"] <= q["mc"]["ci_high"]
    assert c["verdict"] in ("confirmed", "refuted", "inconclusive")
assert r["verdict"] == "confirmed", (r["verdict"], r["summary"])
print("own_claim:", r["verdict"], "-", r["summary"])
PY
# Bad usage: exit 2, nothing written.
mkdir "$tmp/bad"
rc=0
(cd "$tmp/bad" && "$tmp/build/own_claim" --samples 5 2>/dev/null) || rc=$?
[ "$rc" -eq 2 ] || { echo "own_claim with an argument: exit $rc, expected 2" >&2; exit 1; }
[ -z "$(ls -A "$tmp/bad")" ] || { echo "own_claim wrote files on bad usage" >&2; exit 1; }
echo "install_example: ok"
