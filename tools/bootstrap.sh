#!/usr/bin/env bash
# Installs every Debian package Kestrel needs (the one dependency list), only
# when something is missing.  Runs as root on a fresh Debian 12 machine, or
# through sudo.  Nothing is downloaded from anywhere but Debian's archive.
set -euo pipefail

packages=(
  # host build
  build-essential cmake ninja-build make git pkg-config python3
  googletest libgtest-dev libgmock-dev libbenchmark-dev clang-format
  # device toolchain: clang/lld for riscv32/64, picolibc (device libc/libm),
  # libgcc for soft-float double and RV32 64-bit arithmetic
  clang lld llvm picolibc-riscv64-unknown-elf gcc-riscv64-unknown-elf
  # libFuzzer's runtime for the fuzz targets (tests/fuzz)
  libclang-rt-14-dev
  # ELF and DWARF reading
  libelf-dev libdw-dev
  # JSON (the statistics file, kestrel-stats)
  nlohmann-json3-dev
  # RTL simulation, synthesis and FPGA flow
  verilator yosys nextpnr-ice40 fpga-icestorm libsystemc-dev
  # FPGA board link
  libusb-1.0-0-dev
)
# `bootstrap.sh --browser` (make test-long): a headless browser for the test
# that loads kestrel-view's page and screenshots it (tests/tools, label long).
# Not for `make test`: the download would eat into its time budget.
if [ "${1:-}" = "--browser" ]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "kestrel: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
