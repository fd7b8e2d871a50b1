#!/usr/bin/env bash
# Regenerates the SFU coefficient tables into a scratch tree and compares
# them with the committed RTL ROM and model table, so that neither drifts
# from gen_sfu_tables.py (nor from each other).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/rtl/fpu" "$scratch/model"
python3 "$root/rtl/scripts/gen_sfu_tables.py" "$scratch"
status=0
for file in rtl/fpu/kestrel_sfu_table.sv model/sfu_tables.inc; do
  if ! cmp -s "$scratch/$file" "$root/$file"; then
    echo "sfu tables: $file differs from gen_sfu_tables.py's output"
    status=1
  fi
done
[ $status -eq 0 ] && echo "sfu tables: up to date"
exit $status
