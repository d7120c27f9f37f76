#!/usr/bin/env bash
# gen-ptx.sh compiles internal/cudaops/kernels/kernels.cu to kernels.ptx
# with the nvcc that fetch-cuda.sh unpacks under .cuda/ (CUDA 11.8), then
# assembles the PTX for sm_80 and sm_90 with ptxas as a check (the cubins
# are thrown away: the driver JIT-compiles the committed PTX at load time).
#
#   nvcc -ccbin gcc-12 -allow-unsupported-compiler \
#        -ptx -arch=compute_80 -O3 -std=c++14 -o kernels.ptx kernels.cu
#
# -allow-unsupported-compiler: CUDA 11.8 supports gcc up to 11 and bookworm
# has gcc 12; with -ptx the host compiler only preprocesses, and kernels.cu
# has no host code. NVCC (env) overrides the nvcc binary, e.g. a system
# /usr/local/cuda/bin/nvcc.
#
# Run by `go generate ./internal/cudaops`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
root=$repo/.cuda/root
nvcc=${NVCC:-$root/usr/lib/nvidia-cuda-toolkit/bin/nvcc}
ptxas=${PTXAS:-$root/usr/bin/ptxas}
ccbin=${CCBIN:-$(command -v gcc-12 || command -v gcc)}
[ -x "$nvcc" ] || { echo "gen-ptx: no nvcc at $nvcc: run internal/cudaops/tools/fetch-cuda.sh" >&2; exit 1; }

cd "$repo/internal/cudaops/kernels"
"$nvcc" -ccbin "$ccbin" -allow-unsupported-compiler \
	-ptx -arch=compute_80 -O3 -std=c++14 -o kernels.ptx kernels.cu
if [ -x "$ptxas" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for sm in sm_80 sm_90; do
		"$ptxas" -arch=$sm -o "$tmp/k.cubin" kernels.ptx
	done
fi
echo "gen-ptx: kernels.ptx: $(grep -c '^\.visible \.entry' kernels.ptx) kernels" >&2
