#!/usr/bin/env bash
# build-gpu-test.sh builds the cuda-tagged test binaries of
# internal/cudaops on a machine without a GPU, against the headers and stub
# libraries that fetch-cuda.sh unpacks under .cuda/ (run that first), and
# vets the tagged package:
#
#   out/cudaops/cudaops.test         -tags cuda          needs libcuda.so.1 (the driver)
#   out/cudaops/cudaops-cublas.test  -tags cuda,cublas   also needs $CUBLAS_SONAME
#   out/cudaops/udfbridge.test       -tags cuda          udfbridge's device paths
#   out/cudaops/udfbridge-cublas.test -tags cuda,cublas  (built-in UDFs on the device)
#   out/cudaops/chunkarray.test      -tags cuda          chunkarray's device reductions
#   out/cudaops/run-on-gpu.sh        runs them on the GPU machine
#
# cuBLAS's major version is fixed at link time (the binary names its
# soname). The GPU machines lent here have CUDA 13 (libcublas.so.13), not
# Debian's 11.8, and 670 MB of cuBLAS 11 cannot travel with the binary; so
# the cublas binary links against a generated stub whose soname is
# CUBLAS_SONAME (default libcublas.so.13) and which defines, unversioned,
# the five cuBLAS functions cudaops calls (cublasCreate_v2,
# cublasSetStream_v2, cublasSgemm_v2, cublasDgemm_v2, cublasDestroy_v2:
# their ABI is the same in cuBLAS 11, 12 and 13). The real library is found
# at run time. CUBLAS_SONAME=libcublas.so.11 links Debian's own 11.8 stub.
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

soname=${CUBLAS_SONAME:-libcublas.so.13}

export CGO_ENABLED=1
export CGO_CFLAGS="-I$inc ${CGO_CFLAGS:-}"
cgo_ld="-L$lib/stubs -Wl,-rpath-link,$lib ${CGO_LDFLAGS:-}"

cd "$repo"
mkdir -p out/cudaops
rm -f out/cudaops/*.test

# The packages with cuda-tagged code or tests.
gpupkgs="./internal/cudaops ./udfbridge ./chunkarray"
echo "build-gpu-test: go vet -tags cuda / cuda,cublas $gpupkgs" >&2
CGO_LDFLAGS=$cgo_ld go vet -tags cuda $gpupkgs
CGO_LDFLAGS=$cgo_ld go vet -tags cuda,cublas $gpupkgs

echo "build-gpu-test: go build -tags cuda ./... (the module's cuda build, udfbridge included)" >&2
CGO_LDFLAGS=$cgo_ld go build -tags cuda ./...

echo "build-gpu-test: go test -c -tags cuda -o out/cudaops/cudaops.test" >&2
CGO_LDFLAGS=$cgo_ld go test -c -tags cuda -o out/cudaops/cudaops.test ./internal/cudaops
echo "build-gpu-test: go test -c -tags cuda -o out/cudaops/udfbridge.test, chunkarray.test" >&2
CGO_LDFLAGS=$cgo_ld go test -c -tags cuda -o out/cudaops/udfbridge.test ./udfbridge
CGO_LDFLAGS=$cgo_ld go test -c -tags cuda -o out/cudaops/chunkarray.test ./chunkarray

stub=$repo/.cuda/cublas-stub
if [ "$soname" != libcublas.so.11 ]; then
	mkdir -p "$stub"
	cat >"$stub/stub.c" <<'STUB'
/* Link-time stand-in for cuBLAS: never loaded (the real library has the
   same soname); only its symbol names matter to the linker. */
int cublasCreate_v2(void) { return 0; }
int cublasSetStream_v2(void) { return 0; }
int cublasSgemm_v2(void) { return 0; }
int cublasDgemm_v2(void) { return 0; }
int cublasDestroy_v2(void) { return 0; }
STUB
	gcc -shared -fPIC -o "$stub/libcublas.so" -Wl,-soname,"$soname" "$stub/stub.c"
	cgo_ld="-L$stub $cgo_ld"
fi
echo "build-gpu-test: go test -c -tags cuda,cublas -o out/cudaops/cudaops-cublas.test (cuBLAS soname $soname)" >&2
CGO_LDFLAGS=$cgo_ld go test -c -tags cuda,cublas -o out/cudaops/cudaops-cublas.test ./internal/cudaops
CGO_LDFLAGS=$cgo_ld go test -c -tags cuda,cublas -o out/cudaops/udfbridge-cublas.test ./udfbridge

cp internal/cudaops/tools/run-on-gpu.sh out/cudaops/run-on-gpu.sh
for b in out/cudaops/*.test; do
	echo "build-gpu-test: $b needs: $(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" >&2
done
