#!/usr/bin/env bash
# Yosys 0.23 synthesis of a Kestrel top for an FPGA family, with the same file
# list as rtl/scripts/rtl_synth.sh (the packages first, then prim fpu core mem
# top board) plus any extra files given with -f (a pin-level top).
# Usage: synth.sh [-f FILE]... [-o OUT.json] [--hierarchy] FAMILY TOP [param=value ...]
#   FAMILY: ice40 (synth_ice40 -dsp -spram, the UP5K), ice40-hx (synth_ice40, no
#   DSP/SPRAM), xilinx (synth_xilinx), ecp5 (synth_ecp5).
#   --hierarchy: no flattening; the statistics are per module plus the
#   hierarchy's totals (each module mapped once per parameter set).
# Prints Yosys' final statistics; the whole log is kept in $SYNTH_LOG if set.
set -euo pipefail
rtl_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../rtl" && pwd)"
extra=()
out=""
hier=0
while [ $# -gt 0 ]; do
  case "$1" in
    -f) extra+=("$(realpath "$2")"); shift 2 ;;
    -o) out="$2"; shift 2 ;;
    --hierarchy) hier=1; shift ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: synth.sh [-f FILE]... [-o OUT.json] [--hierarchy] FAMILY TOP [param=value ...]" >&2
  exit 2
fi
family="$1"
top="$2"
shift 2
chparams=""
for kv in "$@"; do chparams+=" -set ${kv%%=*} ${kv#*=}"; done
# The packages first (the SM's texture unit, in rtl/tex, is read even when
# the preset leaves it out: TexUnit=0).
files=("$rtl_dir/pkg/kestrel_pkg.sv" "$rtl_dir/fpu/kestrel_fpu_pkg.sv" "$rtl_dir/board/kestrel_board_pkg.sv"
  "$rtl_dir/tex/kestrel_tex_pkg.sv")
for d in prim fpu core mem top board tex; do
  for f in "$rtl_dir/$d"/*.sv; do
    [ -e "$f" ] && [ "$f" != "$rtl_dir/fpu/kestrel_fpu_pkg.sv" ] && [ "$f" != "$rtl_dir/board/kestrel_board_pkg.sv" ] &&
      [ "$f" != "$rtl_dir/tex/kestrel_tex_pkg.sv" ] && files+=("$f")
  done
done
files+=("${extra[@]}")
case "$family" in
  ice40) cmd="synth_ice40 -dsp -spram" ;;
  ice40-hx) cmd="synth_ice40" ;;
  xilinx) cmd="synth_xilinx -family xcup" ;;
  ecp5) cmd="synth_ecp5" ;;
  *) echo "synth.sh: unknown family '$family' (ice40, ice40-hx, xilinx, ecp5)" >&2; exit 2 ;;
esac
if [ "$hier" = 1 ]; then
  case "$family" in
    ice40*) cmd+=" -noflatten" ;;
    *) ;;  # synth_xilinx and synth_ecp5 keep the hierarchy unless -flatten
  esac
else
  case "$family" in
    xilinx|ecp5) cmd+=" -flatten" ;;
    *) ;;
  esac
fi
cmd+=" -top $top"
if [ -n "$out" ]; then cmd+=" -json $out"; fi
log="${SYNTH_LOG:-$(mktemp)}"
script="read_verilog -defer -sv -DSYNTHESIS -I$rtl_dir/include ${files[*]}; "
if [ -n "$chparams" ]; then script+="chparam$chparams $top; "; fi
script+="$cmd; stat -top $top"
start=$(date +%s)
if ! yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
  grep -E "ERROR|rror:" "$log" | head -20
  echo "synth.sh: $family $top FAILED (log: $log)"
  exit 1
fi
if grep -E "implicitly declared|has no driver|^Latch inferred|\$(dlatch|_DLATCH)" "$log"; then
  echo "synth.sh: $family $top has warnings that indicate a mis-parse or latch (log: $log)"
  exit 1
fi
last="$(grep -n "Printing statistics" "$log" | tail -1 | cut -d: -f1)"
if [ "$hier" = 1 ] && grep -q "=== design hierarchy ===" "$log"; then
  last="$(grep -n "=== design hierarchy ===" "$log" | tail -1 | cut -d: -f1)"
fi
tail -n +"${last:-1}" "$log" | grep -E "Number of cells|Number of wires|^ +(SB_|LUT|FD|CARRY|MUX|DSP|RAMB|SRL|TRELLIS|DP16|MULT|CCU2|L6MUX|PFUMX|\\\$)|kestrel" | head -60
echo "synth.sh: $family $top OK in $(( $(date +%s) - start )) s (${*:-default parameters})"
