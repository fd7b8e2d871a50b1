#!/usr/bin/env bash
# Lints every file of rtl/fpu with Verilator -Wall --assert, each as its own
# top, after the FPU package.  Exits non-zero if any file warns.
set -euo pipefail
fpu_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fpu" && pwd)"
inc_dir="$fpu_dir/../include"  # kestrel_assert.svh
pkg="$fpu_dir/kestrel_fpu_pkg.sv"
status=0
count=0
for file in "$fpu_dir"/*.sv; do
  [ "$file" = "$pkg" ] && continue
  top="$(basename "$file" .sv)"
  if ! verilator --lint-only -Wall --assert -I"$inc_dir" -y "$fpu_dir" "$pkg" "$file" --top-module "$top"; then
    echo "lint: $top FAILED"
    status=1
  fi
  count=$((count + 1))
done
# Parameter sets whose generate branches the defaults do not reach.
for config in "kestrel_fpu_lane -GXlen=32 -GStages=1" "kestrel_fpu_lane -GStages=2" "kestrel_fpu_lane -GStages=5" \
    "kestrel_fpu_divsqrt -GBitsPerCycle=1" "kestrel_fpu_divsqrt -GBitsPerCycle=13"; do
  read -r top params <<<"$config"
  # shellcheck disable=SC2086
  if ! verilator --lint-only -Wall --assert -I"$inc_dir" -y "$fpu_dir" $params "$pkg" "$fpu_dir/$top.sv" --top-module "$top"; then
    echo "lint: $config FAILED"
    status=1
  fi
  count=$((count + 1))
done
echo "lint: $count rtl/fpu files and configurations checked with verilator -Wall"
exit $status
