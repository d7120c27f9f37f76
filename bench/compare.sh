#!/usr/bin/env bash
# Times tessera and Dask on the same workloads in one session and prints,
# for each workload and scheduler, both medians and the ratio Dask/tessera
# (above 1: tessera is faster).
#
# Usage: bench/compare.sh [GROUP ...]      (default: delayed)
#   SCHEDS  schedulers, comma-separated: sync, threads, distributed (default sync,threads)
#   REPS    repetitions of each workload (default 5); the medians are compared
#   PYTHON  the Python with dask and numpy (default /usr/bin/python3)
#
# Both sides run one after the other on this machine, so the ratio holds
# only if its load stays the same: each Dask line carries load_avg, and the
# load is printed before and after. The raw JSON lines are kept in
# $OUT_DIR (default a new temporary directory).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scheds="${SCHEDS:-sync,threads}"
reps="${REPS:-5}"
python="${PYTHON:-/usr/bin/python3}"
out="${OUT_DIR:-$(mktemp -d -t tessera-compare.XXXXXX)}"
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(delayed)

echo "== building tessera" >&2
(cd "$root" && go build -o "$out/tessera" ./cmd/tessera)

echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)" >&2
echo "== tessera bench -json -schedulers $scheds -reps $reps ${groups[*]}" >&2
"$out/tessera" bench -json -schedulers "$scheds" -reps "$reps" "${groups[@]}" >"$out/tessera.jsonl"
echo "== SCHEDS=$scheds REPS=$reps $python bench/dask/dask_bench.py ${groups[*]}" >&2
SCHEDS="$scheds" REPS="$reps" "$python" "$root/bench/dask/dask_bench.py" "${groups[@]}" >"$out/dask.jsonl"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)" >&2
echo "== raw results in $out" >&2

"$python" - "$out/tessera.jsonl" "$out/dask.jsonl" <<'PY'
import json, sys

def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                rows[(r["workload"], r["scheduler"])] = r
    return rows

tessera, dask = load(sys.argv[1]), load(sys.argv[2])
print(f"{'workload':<28} {'scheduler':<11} {'tessera s':>10} {'Dask s':>10} {'Dask/tessera':>12}")
for key in list(tessera) + [k for k in dask if k not in tessera]:
    t, d = tessera.get(key), dask.get(key)
    ts = f"{t['median_s']:.4f}" if t else "-"
    ds = f"{d['median_s']:.4f}" if d else "-"
    ratio = f"{d['median_s'] / t['median_s']:.1f}x" if t and d and t["median_s"] > 0 else "-"
    print(f"{key[0]:<28} {key[1]:<11} {ts:>10} {ds:>10} {ratio:>12}")
PY
