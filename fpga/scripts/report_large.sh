#!/usr/bin/env bash
# Large-FPGA utilization of kestrel_gpu (1 SM): Yosys 0.23 synth_xilinx
# (UltraScale+, the Alveo U55C's family) and synth_ecp5, of the default preset
# (RV64, 8 warps x 32 lanes) and of 16 warps x 16 lanes, each synthesized as a
# hierarchy (every module mapped once per parameter set: far faster than a
# flat run, and a few percent above it because nothing is optimized across
# module boundaries).  One run at a time, nice'd; hours of CPU in all.
# Usage: report_large.sh OUTDIR [FAMILY...]   (default families: xilinx ecp5)
# Writes OUTDIR/<family>_<preset>.log and OUTDIR/summary.md (LUT, FF, DSP,
# block RAM, and LUTs and FFs per lane).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: report_large.sh OUTDIR [FAMILY...]}"
shift
families=("$@")
[ ${#families[@]} -gt 0 ] || families=(xilinx ecp5)
mkdir -p "$out"
presets=("w8l32:Xlen=64 Lanes=32 Warps=8 NumSms=1" "w16l16:Xlen=64 Lanes=16 Warps=16 NumSms=1")
for fam in "${families[@]}"; do
  for p in "${presets[@]}"; do
    name="${p%%:*}"
    params="${p#*:}"
    log="$out/${fam}_${name}.log"
    if [ -s "$log.done" ]; then echo "report_large: $fam $name already done ($log)"; continue; fi
    echo "report_large: $fam $name ($params) ..."
    start=$(date +%s)
    # shellcheck disable=SC2086
    if SYNTH_LOG="$log" nice -n 15 "$here/synth.sh" --hierarchy "$fam" kestrel_gpu $params >"$out/${fam}_${name}.txt" 2>&1; then
      echo $(( $(date +%s) - start )) >"$log.done"
    else
      cat "$out/${fam}_${name}.txt"
      echo "report_large: $fam $name FAILED"
    fi
  done
done
python3 "$here/summarize_large.py" "$out" | tee "$out/summary.md"
