#!/usr/bin/env bash
# The layering rule of the tree (README, "Where things live"): the product
# folders (driver, runtime, model, tools, include) never include or link
# anything under verif/ or tests/, and the runtime takes nothing from the
# device SDK (sw_kernels/).  Verification depends on the product, never the
# reverse.  Prints each offending line and exits 1; exits 0 when clean.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
product=(driver runtime model tools include)
sources=(--include=*.c --include=*.cpp --include=*.h --include=*.hpp)
status=0
report() {  # report <what> <grep output>
  if [ -n "$2" ]; then
    echo "layering: $1:"
    echo "$2"
    status=1
  fi
}
report "product code includes verification or test code" \
  "$(grep -rEn "${sources[@]}" '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?(verif|tests)/' "${product[@]}")"
report "product CMake files reach into verif/ or tests/" \
  "$(grep -rEn --include=CMakeLists.txt --include=*.cmake '(SOURCE_DIR|BINARY_DIR)\}?/(verif|tests)\b|kestrel(::|_)lockstep' "${product[@]}" | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')"
report "the runtime includes headers of the device SDK" \
  "$(grep -rEn "${sources[@]}" '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*sw_kernels/' runtime include
     grep -rEn --include=CMakeLists.txt --include=*.cmake 'include_directories\(.*sw_kernels' runtime)"
[ $status -eq 0 ] && echo "layering: ${product[*]} depend on nothing under verif/ or tests/; runtime/ on nothing in sw_kernels/"
exit $status
