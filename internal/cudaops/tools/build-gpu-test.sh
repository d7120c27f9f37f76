#!/usr/bin/env bash
# build-gpu-test.sh builds the cuda-tagged test binary of internal/cudaops
# on a machine without a GPU, against the headers and stub libraries that
# fetch-cuda.sh unpacks under .cuda/ (run that first), and vets the tagged
# package. The binary links libcuda.so.1 and libcublas.so.11 dynamically:
# on the GPU machine the driver provides the first; the second travels in
# out/lib (copied from .cuda/, cuBLAS 11.8) unless the machine has one.
#
#   internal/cudaops/tools/build-gpu-test.sh          # -tags cuda,cublas
#   TAGS=cuda internal/cudaops/tools/build-gpu-test.sh  # kernel MaskDot only
#
# Output: out/cudaops.test (+ out/lib/), out/run-on-gpu.sh. Then, on the GPU
# machine: out/run-on-gpu.sh (see run-on-gpu.sh).
#
# gorgonia.org/cu's #cgo flags name /usr/local/cuda, /usr/local/cuda-11.0,
# /opt/cuda and /usr/include / /usr/lib/x86_64-linux-gnu; none holds CUDA
# here, and CGO_CFLAGS/CGO_LDFLAGS come before a package's own flags, so
# the unpacked copy is found first.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
root=$repo/.cuda/root
tags=${TAGS:-cuda,cublas}
inc=$root/usr/include
lib=$root/usr/lib/x86_64-linux-gnu
[ -e "$inc/cuda.h" ] || { echo "build-gpu-test: no $inc/cuda.h: run internal/cudaops/tools/fetch-cuda.sh" >&2; exit 1; }

export CGO_ENABLED=1
export CGO_CFLAGS="-I$inc ${CGO_CFLAGS:-}"
# The stubs only resolve symbols at link time; -rpath-link lets the linker
# follow libcublas.so.11's own dependencies (libcublasLt.so.11).
export CGO_LDFLAGS="-L$lib/stubs -Wl,-rpath-link,$lib ${CGO_LDFLAGS:-}"

cd "$repo"
mkdir -p out/lib
echo "build-gpu-test: go vet -tags $tags ./internal/cudaops" >&2
go vet -tags "$tags" ./internal/cudaops
echo "build-gpu-test: go test -c -tags $tags -o out/cudaops.test ./internal/cudaops" >&2
go test -c -tags "$tags" -o out/cudaops.test ./internal/cudaops
if [[ ,$tags, == *,cublas,* ]]; then
	cp -L "$lib/libcublas.so.11" "$lib/libcublasLt.so.11" out/lib/
fi
cp internal/cudaops/tools/run-on-gpu.sh out/run-on-gpu.sh
echo "build-gpu-test: built out/cudaops.test; needs at run time:" >&2
readelf -d out/cudaops.test | sed -n 's/.*(NEEDED).*\[\(.*\)\]/  \1/p' >&2
