#!/usr/bin/env bash
# Installs the Debian 12 packages OpenGE needs to build and test, only those missing.
# Uses sudo when not root. Safe to run repeatedly.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  libdnnl-dev ocl-icd-opencl-dev          # oneDNN (AI Core kernels); its CMake config wants OpenCL headers
  libonnx-dev libprotobuf-dev protobuf-compiler   # ONNX protos
  nlohmann-json3-dev
  libspdlog-dev                           # the engine's logger (src/logging/)
  libssl-dev                              # SHA-256 of the operator compile cache (src/compiler/)
  openmpi-bin libopenmpi-dev              # data-parallel training: mpirun and the collectives (src/distributed/)
  procps iproute2                         # ps and ip: the data-parallel tests find the ranks mpirun started
                                          # and join two network namespaces with a veth pair
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-onnx python3-numpy     # conformance data and model generators
  python3-sklearn                        # the handwritten digits the training tests learn (load_digits)
  python3-dev pybind11-dev python3-pytest # the openge Python package (python/) and its tests
  clang libclang-rt-14-dev               # libFuzzer and sanitizers
  libomp-dev                             # clang's OpenMP runtime (the ASan+UBSan and fuzz tree)
  clang-format                           # the C++ style check (scripts/check_format.py)
  chromium fonts-dejavu-core             # headless check + screenshot of the profiling report.html
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
