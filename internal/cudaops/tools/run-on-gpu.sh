#!/usr/bin/env bash
# run-on-gpu.sh runs the cuda-tagged tests and benchmarks of
# internal/cudaops on a GPU machine, from the binary build-gpu-test.sh
# made (out/cudaops.test), so that the GPU machine needs neither Go nor a
# CUDA toolkit: only the NVIDIA driver (libcuda.so.1). cuBLAS 11.8 comes
# from out/lib when the machine has none of its own.
#
#   out/run-on-gpu.sh                 # tests, then the benchmarks
#   out/run-on-gpu.sh -test.run XXX   # extra flags go to the test binary
#
# Results go to stdout and, when $OUT is set (the device tool), to
# $OUT/cudaops-gpu.txt.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=$here/cudaops.test
[ -x "$bin" ] || bin=$here/../out/cudaops.test
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log=${OUT:+$OUT/cudaops-gpu.txt}
log=${log:-/dev/null}

{
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv || true
	echo "== tests"
	"$bin" -test.v -test.count 1 "$@"
	echo "== benchmarks (SumSig, Sum, ApplyMasks: 256x256 nav x 256x256 sig float32, device vs CPU)"
	"$bin" -test.run '^$' -test.bench . -test.benchtime 5x -test.timeout 30m "$@"
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
