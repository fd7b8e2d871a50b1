#!/usr/bin/env bash
# Builds NVIDIA's cuda-samples unchanged with kestrel-cc and runs each on a
# Kestrel backend, printing the compatibility table of docs/cuda-runtime.md
# (section "NVIDIA's cuda-samples").  Not run in CI: it needs a checkout of
# https://github.com/NVIDIA/cuda-samples, which Kestrel does not copy.
#
#   tools/cuda-samples-check.sh <cuda-samples checkout> [sample ...]
#
# Each sample is built the way the task's command builds it,
#   kestrel-cc -O2 -I<samples>/Common <the sources its CMakeLists.txt lists> -o <name>
# and run with no arguments from its own folder, KESTREL_BACKEND=model unless
# set.  A sample passes when it exits 0 and prints no "FAIL"; it is waived
# when it exits 2 (the samples' EXIT_WAIVED) or exits 0 saying the device
# does not support what it needs.  One markdown row per sample goes to stdout; the
# build and run logs stay in $WORK (default: a fresh folder under /tmp).
#
# Environment: KESTREL_CC (default: build/tools/kestrel-cc/kestrel-cc beside
# this script's checkout), KESTREL_BACKEND (default model), SAMPLE_TIMEOUT
# (seconds per run, default 300), WORK.
set -uo pipefail

if [ $# -lt 1 ] || [ ! -d "$1/Samples" ] || [ ! -d "$1/Common" ]; then
  echo "usage: $0 <cuda-samples checkout (with Samples/ and Common/)> [sample ...]" >&2
  exit 2
fi
samples_root=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")/.." && pwd)
kestrel_cc=${KESTREL_CC:-$here/build/tools/kestrel-cc/kestrel-cc}
if [ ! -x "$kestrel_cc" ]; then
  echo "$0: no kestrel-cc at $kestrel_cc (build target kestrel-cc, or set KESTREL_CC)" >&2
  exit 2
fi
export KESTREL_BACKEND=${KESTREL_BACKEND:-model}
timeout_s=${SAMPLE_TIMEOUT:-300}
work=${WORK:-$(mktemp -d /tmp/cuda-samples-check.XXXXXX)}
mkdir -p "$work"

# Every sample of 0_Introduction, 2_Concepts_and_Techniques, 3_CUDA_Features
# and 6_Performance that needs no library beyond the CUDA runtime, no
# graphics interop, no driver API or NVRTC, no MPI or OpenMP; and deviceQuery.
default_samples=(
  0_Introduction/asyncAPI 0_Introduction/clock 0_Introduction/fp16ScalarProduct 0_Introduction/matrixMul
  0_Introduction/mergeSort 0_Introduction/simpleAWBarrier 0_Introduction/simpleAssert
  0_Introduction/simpleAtomicIntrinsics 0_Introduction/simpleAttributes 0_Introduction/simpleCallback
  0_Introduction/simpleCooperativeGroups 0_Introduction/simpleCubemapTexture 0_Introduction/simpleHyperQ
  0_Introduction/simpleIPC 0_Introduction/simpleLayeredTexture 0_Introduction/simpleMultiCopy
  0_Introduction/simpleMultiGPU 0_Introduction/simpleOccupancy 0_Introduction/simpleP2P
  0_Introduction/simplePitchLinearTexture 0_Introduction/simplePrintf 0_Introduction/simpleStreams
  0_Introduction/simpleSurfaceWrite 0_Introduction/simpleTemplates 0_Introduction/simpleTexture
  0_Introduction/simpleVoteIntrinsics 0_Introduction/simpleZeroCopy 0_Introduction/systemWideAtomics
  0_Introduction/template 0_Introduction/vectorAdd
  2_Concepts_and_Techniques/convolutionSeparable 2_Concepts_and_Techniques/convolutionTexture
  2_Concepts_and_Techniques/dct8x8 2_Concepts_and_Techniques/eigenvalues 2_Concepts_and_Techniques/histogram
  2_Concepts_and_Techniques/inlinePTX 2_Concepts_and_Techniques/interval 2_Concepts_and_Techniques/reduction
  2_Concepts_and_Techniques/reductionMultiBlockCG 2_Concepts_and_Techniques/scalarProd
  2_Concepts_and_Techniques/scan 2_Concepts_and_Techniques/shfl_scan 2_Concepts_and_Techniques/sortingNetworks
  2_Concepts_and_Techniques/streamOrderedAllocation 2_Concepts_and_Techniques/streamOrderedAllocationP2P
  2_Concepts_and_Techniques/threadFenceReduction
  3_CUDA_Features/StreamPriorities 3_CUDA_Features/bf16TensorCoreGemm 3_CUDA_Features/binaryPartitionCG
  3_CUDA_Features/cdpBezierTessellation 3_CUDA_Features/cdpSimplePrint 3_CUDA_Features/cdpSimpleQuicksort
  3_CUDA_Features/cudaTensorCoreGemm 3_CUDA_Features/dmmaTensorCoreGemm 3_CUDA_Features/globalToShmemAsyncCopy
  3_CUDA_Features/graphConditionalNodes 3_CUDA_Features/graphMemoryFootprint 3_CUDA_Features/graphMemoryNodes
  3_CUDA_Features/immaTensorCoreGemm 3_CUDA_Features/jacobiCudaGraphs 3_CUDA_Features/newdelete
  3_CUDA_Features/simpleCudaGraphs 3_CUDA_Features/tf32TensorCoreGemm 3_CUDA_Features/warpAggregatedAtomicsCG
  6_Performance/LargeKernelParameter 6_Performance/UnifiedMemoryPerf 6_Performance/alignedTypes
  6_Performance/cudaGraphsPerfScaling 6_Performance/transpose
  1_Utilities/deviceQuery
)
# Samples that look for two devices get two (KESTREL_DEVICE_COUNT).
two_devices=" 0_Introduction/simpleMultiGPU 0_Introduction/simpleP2P 2_Concepts_and_Techniques/streamOrderedAllocationP2P "

if [ $# -gt 0 ]; then
  samples=("$@")
else
  samples=("${default_samples[@]}")
fi

# The sources of a sample: the files its CMakeLists.txt gives add_executable.
sources_of() {
  local dir=$1 name=$2
  sed -n "s/^[[:space:]]*add_executable([[:space:]]*$name[[:space:]]\+\([^)]*\)).*/\1/p" "$dir/CMakeLists.txt" |
    head -1 | tr ' ' '\n' | sed '/^$/d'
}

# The first line of a log that says what went wrong, trimmed for a table cell.
first_error() {
  grep -m1 -E "error|Error|ERROR|FAIL|fail|Assertion|kestrel: " "$1" |
    sed -e "s|$samples_root/||g" -e 's/|/\\|/g' -e 's/^[[:space:]]*//' | cut -c1-200
}

echo "| sample | build | run | reason |"
echo "|---|---|---|---|"
built=0
passed=0
for sample in "${samples[@]}"; do
  dir=$samples_root/Samples/$sample
  name=$(basename "$sample")
  log=$work/${name}
  if [ ! -f "$dir/CMakeLists.txt" ]; then
    echo "| $sample | - | - | not in this checkout |"
    continue
  fi
  mapfile -t files < <(sources_of "$dir" "$name")
  if [ ${#files[@]} -eq 0 ]; then
    echo "| $sample | - | - | no add_executable($name ...) in its CMakeLists.txt |"
    continue
  fi
  paths=()
  for f in "${files[@]}"; do paths+=("$dir/$f"); done
  if ! "$kestrel_cc" -O2 -I"$samples_root/Common" "${paths[@]}" -o "$work/$name.bin" >"$log.build" 2>&1; then
    echo "| $sample | no | - | $(first_error "$log.build") |"
    continue
  fi
  built=$((built + 1))
  env=()
  case "$two_devices" in *" $sample "*) env=(KESTREL_DEVICE_COUNT=2) ;; esac
  start=$(date +%s)
  (cd "$dir" && env "${env[@]}" timeout "$timeout_s" "$work/$name.bin") >"$log.run" 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  if [ $status -eq 0 ] && grep -qE "does not support|[Ww]aiv" "$log.run"; then
    # Some samples end with EXIT_SUCCESS when the device lacks a feature.
    echo "| $sample | yes | waived | exit status 0: $(grep -m1 -E "does not support|[Ww]aiv" "$log.run" | sed 's/|/\\|/g' | cut -c1-160) |"
  elif [ $status -eq 0 ] && ! grep -q "FAIL" "$log.run"; then
    passed=$((passed + 1))
    echo "| $sample | yes | pass | ${seconds} s |"
  elif [ $status -eq 124 ]; then
    echo "| $sample | yes | timeout | still running after ${timeout_s} s on $KESTREL_BACKEND |"
  elif [ $status -eq 2 ]; then
    echo "| $sample | yes | waived | $(tail -n 3 "$log.run" | tr '\n' ' ' | sed 's/|/\\|/g' | cut -c1-200) |"
  else
    reason=$(first_error "$log.run")
    [ -z "$reason" ] && reason="exit status $status: $(tail -n 1 "$log.run" | cut -c1-160)"
    echo "| $sample | yes | fail | $reason |"
  fi
done
echo
echo "${#samples[@]} samples, $built built, $passed passed (backend $KESTREL_BACKEND; logs in $work)"
