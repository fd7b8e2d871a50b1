#!/bin/sh
# Builds every CUDA program of this folder with nvcc for sm_90 and runs it on
# the NVIDIA GPU of this machine, writing its stdout to <name>.expected (and
# its stderr to <name>.stderr, kept for reading).  These are the golden files
# of the texture unit and surfaces (issue 16, docs/cuda-runtime.md): Kestrel
# has no texture unit yet, so no test compiles them with kestrel-cc yet; when
# it has, tests/cuda/reference runs them as it runs ../nvidia/.
#
#   tests/cuda/reference/nvidia_texture/run_on_gpu.sh [nvcc]
# Recorded on an NVIDIA H100 80GB HBM3 (driver 580.159.04) with nvcc 13.0.88.
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
