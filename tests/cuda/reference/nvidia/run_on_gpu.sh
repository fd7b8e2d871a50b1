#!/bin/sh
# Builds every CUDA program of this folder with nvcc for sm_90 and runs it on
# the NVIDIA GPU of this machine, writing its stdout to <name>.expected (and
# its stderr to <name>.stderr, kept for reading, not compared).  Kestrel's
# CTest (reference.nvidia.*) compiles the same sources with kestrel-cc, runs
# them on the functional model and compares their stdout with these files.
#
#   tests/cuda/reference/nvidia/run_on_gpu.sh [nvcc]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${1:-nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
for source in *.cu; do
  name=${source%.cu}
  # Compiled from this folder by its plain name, so __FILE__ in assert
  # messages is "<name>.cu", as the comparison expects.
  "$nvcc" -arch=sm_90 -O2 -o "$work/$name" "$source"
  # A program may end with a device error (assert_message does): its output
  # is what matters, not its status.
  "$work/$name" >"$name.expected" 2>"$name.stderr" || true
  echo "$name: $(wc -l <"$name.expected") lines"
done
