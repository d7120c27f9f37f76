#!/usr/bin/env bash
# fetch-cuda.sh downloads the CUDA 11.8 toolkit that Debian bookworm ships in
# non-free (headers, the libcuda.so stub, cuBLAS, nvcc) and unpacks it under
# .cuda/ at the repository root, without installing anything and without
# touching the system's apt configuration: apt runs with a private sources
# list, a private package-list directory and a private cache, all under
# .cuda/apt. Nothing of .cuda/ is committed (.gitignore).
#
# Layout afterwards (ROOT=.cuda/root, a dpkg-deb -x of each package):
#   $ROOT/usr/include/cuda.h, cublas_v2.h          CGO_CFLAGS=-I$ROOT/usr/include
#   $ROOT/usr/lib/x86_64-linux-gnu/stubs/libcuda.so  CGO_LDFLAGS=-L…/stubs
#   $ROOT/usr/lib/x86_64-linux-gnu/stubs/libcublas.so  (a stub as well)
#   $ROOT/usr/lib/nvidia-cuda-toolkit/bin/nvcc      (gen-ptx.sh runs it)
#   $ROOT/usr/bin/ptxas                             (gen-ptx.sh checks the PTX)
#
# Usage: internal/cudaops/tools/fetch-cuda.sh   (from anywhere; idempotent)
# Needs: apt-get, dpkg-deb, network access to deb.debian.org; ~1 GB download,
# ~3.5 GB unpacked.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
top=$repo/.cuda
apt=$top/apt
debs=$top/debs
root=$top/root
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$debs" "$root"

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cat >"$apt/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main contrib non-free
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-updates main contrib non-free
SRC

# Dir::Etc::sourceparts=- ignores /etc/apt/sources.list.d; the state and cache
# directories are ours, so the system's package lists are neither read nor
# written. APT::Sandbox::User=root: the private directories belong to the
# caller, not to the _apt user.
aptopts=(
	-o "Dir::Etc::sourcelist=$apt/sources.list"
	-o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$apt/lists"
	-o "Dir::Cache=$apt/cache"
	-o "APT::Sandbox::User=$(id -un)"
)

# The packages, pinned by name (their versions come from the index: bookworm
# has 11.8.89~11.8.0-5~deb12u1 for all the 11.8 ones). Dependencies are not
# resolved: only these files are needed to compile and link.
#   nvidia-cuda-dev      headers (cuda.h, cublas_v2.h), stubs/libcuda.so,
#                        libcublas.so -> libcublas.so.11 symlinks
#   libcublas11, libcublaslt11  the libraries the libcublas.so symlink names
#                        (the linker resolves -lcublas through them)
#   nvidia-cuda-toolkit  nvcc, cicc, ptxas, nvcc.profile, libdevice
#   libnvvm4             libnvvm, which cicc links
#   libcudart11.0        the runtime nvcc's default includes expect
pkgs=(nvidia-cuda-dev libcublas11 libcublaslt11 nvidia-cuda-toolkit libnvvm4 libcudart11.0)

echo "fetch-cuda: apt-get update (private lists under $apt)" >&2
apt-get "${aptopts[@]}" -qq update
for p in "${pkgs[@]}"; do
	apt-cache "${aptopts[@]}" policy "$p" | sed -n '1,3p' >&2
done

missing=()
for p in "${pkgs[@]}"; do
	compgen -G "$debs/${p}_*.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "fetch-cuda: apt-get download ${missing[*]}" >&2
	(cd "$debs" && apt-get "${aptopts[@]}" -q download "${missing[@]}")
fi

for d in "$debs"/*.deb; do
	stamp=$top/.unpacked-$(basename "$d")
	[ -e "$stamp" ] && continue
	echo "fetch-cuda: unpack $(basename "$d")" >&2
	dpkg-deb -x "$d" "$root"
	touch "$stamp"
done

# Debian's nvcc.profile is a symlink to /etc/nvcc.profile, whose paths are
# absolute (/usr/lib/nvidia-cuda-toolkit/...): replace it, in the unpacked
# copy only, by one relative to the copy.
prof=$root/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile
rm -f "$prof"
cat >"$prof" <<'PROF'
# Written by internal/cudaops/tools/fetch-cuda.sh: Debian's /etc/nvcc.profile
# with every path relative to this unpacked copy.
TOP                = $(_HERE_)/../../../..
NVVMIR_LIBRARY_DIR = $(_HERE_)/../libdevice
PATH              += $(_HERE_):$(TOP)/usr/bin:
INCLUDES          += "-I$(TOP)/usr/include" $(_SPACE_)
LIBRARIES          =+ $(_SPACE_) -L$(TOP)/usr/lib/x86_64-linux-gnu/stubs -L$(TOP)/usr/lib/x86_64-linux-gnu
PROF

inc=$root/usr/include
stubs=$root/usr/lib/x86_64-linux-gnu/stubs
for f in "$inc/cuda.h" "$inc/cublas_v2.h" "$stubs/libcuda.so" "$stubs/libcublas.so" \
	"$root/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$root/usr/bin/ptxas"; do
	[ -e "$f" ] || { echo "fetch-cuda: missing $f after unpacking" >&2; exit 1; }
done
echo "fetch-cuda: done; CUDA $(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$inc/cuda.h") under $root" >&2
