#!/usr/bin/env bash
# Times tessera and Dask on the same workloads in one session and prints,
# for each workload and scheduler, both medians and the ratio Dask/tessera
# (above 1: tessera is faster).
#
# Usage: bench/compare.sh [GROUP ...]      (default: delayed)
#   SCHEDS  schedulers, comma-separated: sync, threads, distributed (default sync,threads)
#   REPS    repetitions of each workload (default 5); the medians are compared
#   PYTHON  the Python with dask and numpy (default /usr/bin/python3)
#   PLOT    a PNG file: draw the scale group's figures of both sides there
#           (tessera bench -plot PLOT -results tessera.jsonl -dask dask.jsonl)
#   SCALE_MAX_TASKS, SCALE_STREAM_GIB, SCALE_STREAM_CHUNK_MIB: the scale
#           group's limits and sizes, read by both sides (see dask_bench.py)
#
# Both sides run one after the other on this machine, so the ratio holds
# only if its load stays the same: every line of both sides carries the
# 1-minute load average at its start and end (the table shows them), and
# the load is printed before and after. The raw JSON lines are kept in
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
if [ -n "${PLOT:-}" ]; then
	"$out/tessera" bench -plot "$PLOT" -results "$out/tessera.jsonl" -dask "$out/dask.jsonl"
fi

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

def load_range(r):
    if not r or r.get("load_start") is None:
        return "-"
    return f"{r['load_start']:.1f}-{r['load_end']:.1f}"

print(f"{'workload':<28} {'scheduler':<11} {'tessera s':>10} {'Dask s':>10} {'Dask/tessera':>12} {'load t':>9} {'load D':>9}")
for key in list(tessera) + [k for k in dask if k not in tessera]:
    t, d = tessera.get(key), dask.get(key)
    ts = f"{t['median_s']:.4f}" if t else "-"
    ds = f"{d['median_s']:.4f}" if d else "-"
    ratio = f"{d['median_s'] / t['median_s']:.1f}x" if t and d and t["median_s"] > 0 else "-"
    print(f"{key[0]:<28} {key[1]:<11} {ts:>10} {ds:>10} {ratio:>12} {load_range(t):>9} {load_range(d):>9}")

# Workloads with a memory bound: peak resident memory beside chunk x workers.
mem = [k for k in list(tessera) + list(dask) if (tessera.get(k) or dask.get(k)).get("bound_bytes")]
if mem:
    mib = lambda r, f: f"{r[f] / 2**20:.0f}" if r and r.get(f) else "-"
    print()
    print(f"{'workload':<28} {'scheduler':<11} {'array MiB':>10} {'bound MiB':>10} "
          f"{'tessera peak':>12} {'Dask peak':>10} {'t workers':>10} {'D workers':>10}   (MiB)")
    for key in dict.fromkeys(mem):
        t, d = tessera.get(key), dask.get(key)
        r = t or d
        print(f"{key[0]:<28} {key[1]:<11} {mib(r, 'array_bytes'):>10} {mib(r, 'bound_bytes'):>10} "
              f"{mib(t, 'peak_rss_bytes'):>12} {mib(d, 'peak_rss_bytes'):>10} "
              f"{mib(t, 'workers_peak_rss_bytes'):>10} {mib(d, 'workers_peak_rss_bytes'):>10}")
PY
