#!/usr/bin/env bash
# Lints every Kestrel RTL file with Verilator -Wall, each as its own top
# (submodules found through -y), so a unit that is not yet instantiated
# anywhere is still checked.  rtl/fpu units are found through -y (their own
# per-file lint is rtl/scripts/fpu_lint.sh).  Exits non-zero on the first warning.
set -euo pipefail
rtl_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
search=()
for d in prim fpu core mem top; do search+=(-y "$rtl_dir/$d"); done
status=0
count=0
for file in "$rtl_dir"/{prim,core,mem,top}/*.sv; do
  [ -e "$file" ] || continue
  top="$(basename "$file" .sv)"
  if ! verilator --lint-only -Wall --assert -I"$rtl_dir/include" "${search[@]}" "$rtl_dir/pkg/kestrel_pkg.sv" "$rtl_dir/fpu/kestrel_fpu_pkg.sv" "$file" \
      --top-module "$top"; then
    echo "lint: $top FAILED"
    status=1
  fi
  count=$((count + 1))
done
echo "lint: $count files checked with verilator -Wall"
exit $status
