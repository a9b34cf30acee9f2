#!/usr/bin/env bash
# ctest `headers`: every header of lib/icl compiles on its own (what an installed package promises).
#   - a header with a sibling .cpp: that .cpp must include it before anything else, so the normal build
#     compiles it on its own;
#   - a header-only header: compiled alone in its own translation unit (target icl_header_check).
#   tests/headers/check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
status=0
while IFS= read -r cpp; do
  hpp=${cpp%.cpp}.hpp
  [ -f "$hpp" ] || continue
  want="#include \"${hpp#"$src"/lib/}\""
  first=$(grep -m1 '^#include' "$cpp" || true)
  if [ "$first" != "$want" ]; then
    echo "${cpp#"$src"/}: the first include must be $want (found: $first)" >&2
    status=1
  fi
done < <(find "$src/lib/icl" -name '*.cpp' | sort)
cmake --build "$build" --target icl_header_check -j"$(nproc)" >/dev/null || { echo "a header-only header does not compile on its own" >&2; exit 1; }
exit $status
