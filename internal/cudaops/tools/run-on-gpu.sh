#!/usr/bin/env bash
# run-on-gpu.sh runs the cuda-tagged tests and benchmarks of
# internal/cudaops, udfbridge and chunkarray (their device tests: -run
# 'Device|Backend') on a GPU machine from the binaries build-gpu-test.sh
# made, so that the GPU machine needs neither Go nor the CUDA toolkit of the
# build: only the NVIDIA driver (libcuda.so.1), and for the cublas binary a
# cuBLAS of the soname it was linked for (looked for in the loader's cache,
# /usr/local/cuda, and the nvidia-cublas Python wheel).
#
#   out/cudaops/run-on-gpu.sh               # both binaries' tests, then the benchmarks
#   BENCH=0 out/cudaops/run-on-gpu.sh       # tests only
#   TESTS=0 BENCH='Sum$' out/cudaops/run-on-gpu.sh   # one benchmark (a -test.bench pattern;
#                                                    # udfbridge's are matched as DeviceUDF.*$BENCH)
#
# The device tool stops a command after 10 minutes: the CPU halves of the
# benchmarks on 16 GiB take a while, so run tests and benchmarks (or one
# benchmark at a time) as separate calls if the whole does not fit.
#
# With the device tool (files under out/ are ignored by git, so carry them):
#   run(command="out/cudaops/run-on-gpu.sh", carry=["out/cudaops"])
# Everything printed also goes to $OUT/cudaops-gpu.txt when $OUT is set.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
log=/dev/null
[ -n "${OUT:-}" ] && log=$OUT/cudaops-gpu.txt

cublas_dir() { # a directory holding the soname $1, or nothing
	local d
	d=$(ldconfig -p 2>/dev/null | awk -v s="$1" '$1 == s { print $NF; exit }')
	[ -n "$d" ] && { dirname "$d"; return; }
	for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
		$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null) \
		$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cu13", "lib") for p in nvidia.__path__))' 2>/dev/null); do
		[ -e "$d/$1" ] && { echo "$d"; return; }
	done
}

rc=0
{
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv || true
	if [ "${TESTS:-1}" != 0 ]; then
		echo "== out/cudaops.test (-tags cuda): tests"
		"$here/cudaops.test" -test.v -test.count 1 -test.timeout 10m || rc=1
		for p in udfbridge chunkarray; do
			echo "== out/$p.test (-tags cuda): device tests"
			"$here/$p.test" -test.v -test.count 1 -test.timeout 10m -test.run 'Device|Backend' || rc=1
		done
	fi

	soname=$(readelf -d "$here/cudaops-cublas.test" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(libcublas[^]]*\)\]/\1/p')
	dir=$(cublas_dir "$soname")
	if [ "${TESTS:-1}" = 0 ]; then
		:
	elif [ -z "$dir" ]; then
		echo "== out/cudaops-cublas.test: skipped, no $soname on this machine"
	else
		echo "== out/cudaops-cublas.test (-tags cuda,cublas; $soname from $dir): tests"
		LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			"$here/cudaops-cublas.test" -test.v -test.count 1 -test.timeout 10m -test.run 'Conformance|LargeIndex|Errors' || rc=1
		echo "== out/udfbridge-cublas.test (-tags cuda,cublas): device tests"
		LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			"$here/udfbridge-cublas.test" -test.v -test.count 1 -test.timeout 10m -test.run 'Device' || rc=1
	fi

	if [ "${BENCH:-.}" != 0 ]; then
		echo "== benchmarks: SumSig, Sum, ApplyMasks on 256x256 nav x 256x256 sig float32, device vs CPU"
		bin=$here/cudaops.test
		[ -n "$dir" ] && bin=$here/cudaops-cublas.test
		LD_LIBRARY_PATH="${dir:+$dir:}${LD_LIBRARY_PATH:-}" \
			"$bin" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime 3x -test.timeout 20m || rc=1
		echo "== benchmarks through udfbridge: SumUDF, SumSigUDF, ApplyMasksUDF runs on the same dataset in host memory, BackendCUDA vs CPU"
		ubin=$here/udfbridge.test
		[ -n "$dir" ] && ubin=$here/udfbridge-cublas.test
		LD_LIBRARY_PATH="${dir:+$dir:}${LD_LIBRARY_PATH:-}" \
			"$ubin" -test.run '^$' -test.bench "DeviceUDF.*${BENCH:-.}" -test.benchtime 3x -test.timeout 20m || rc=1
	fi
	exit $rc
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
