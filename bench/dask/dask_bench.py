#!/usr/bin/python3
"""Time real Dask on the workloads of `tessera bench`, under the same names.

Usage:
    SCHEDS=sync,threads,distributed REPS=5 bench/dask/dask_bench.py [GROUP ...]
    bench/dask/dask_bench.py --list    (the groups and their workloads, as JSON; needs no Dask)

GROUP is one of delayed, chunks, elementwise, normalize, zarr, udf, graphbuild,
scale (default: all of them), the groups of `tessera bench`. SCHEDS lists Dask
schedulers (default sync,threads); "distributed" starts a LocalCluster of two
worker processes with one thread each, as `tessera bench -schedulers
distributed` starts two worker processes. REPS is the number of repetitions
(default 5).

The scale group: delayed trees of 10^3 .. 10^6 tasks (per-task time), the
randint sum of 500^3 in chunks of 100, 50, 25 and 10 (125 .. 125,000 chunks),
and scale_stream_sum, SCALE_STREAM_GIB GiB (default 4) of random float64 in
chunks of SCALE_STREAM_CHUNK_MIB MiB (default 64) summed, in a child process
so that its peak memory (VmHWM, see peak_rss) is its own. Sizes of more than
SCALE_MAX_TASKS tasks or chunks (default 200000) are skipped with a note on
stderr: the 10^6-task tree takes minutes per repetition in Dask.

Output: one JSON line per workload and scheduler with
    workload, scheduler, median_s (the figure to compare), best_s, reps,
    load_start and load_end (the 1-minute load average before the first
    repetition and after the last),
and for some workloads tasks, nchunks, build_s, or (scale_stream_sum)
array_bytes, chunk_bytes, workers, bound_bytes (chunk_bytes x workers),
peak_rss_bytes and, for distributed, workers_peak_rss_bytes. Every
repetition builds its graph again, untimed, with fresh keys, so no scheduler
reuses an earlier result; the time covers what compute() does: optimization
and execution.

Needs numpy and dask (python3-dask, python3-distributed for "distributed",
python3-zarr for the zarr group on Debian).
"""

import json
import operator
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPS = max(1, int(os.environ.get("REPS", "5")))
SCALE_MAX_TASKS = int(os.environ.get("SCALE_MAX_TASKS", "200000"))
STREAM_GIB = float(os.environ.get("SCALE_STREAM_GIB", "4"))
STREAM_CHUNK_MIB = float(os.environ.get("SCALE_STREAM_CHUNK_MIB", "64"))

# The workloads of each group, under the names `tessera bench` uses
# (cmd/tessera's TestDaskScriptNames compares the two lists).
NAMES = {
    "delayed": ["delayed_tree_65535"],
    "chunks": ["randint500^3_sum_chunks500", "randint500^3_sum_chunks200", "randint500^3_sum_chunks100",
               "randint500^3_sum_chunks50", "ones500^3_sum_chunks50"],
    "elementwise": ["sin_col_times_T_sum_1e4"],
    "normalize": ["normalize_3x1000x1000"],
    "zarr": ["zarr_1e4_sq_sum"],
    "udf": ["udf_sum_4d_tree_merge", "udf_sum_4d_merge_all"],
    "graphbuild": ["graph_build_10k_chunks"],
    "scale": ["scale_delayed_1e3", "scale_delayed_1e4", "scale_delayed_1e5", "scale_delayed_1e6",
              "randint500^3_sum_chunks100", "randint500^3_sum_chunks50", "randint500^3_sum_chunks25",
              "randint500^3_sum_chunks10", "scale_stream_sum"],
}
ALL_NAMES = {n for names in NAMES.values() for n in names}

np = da = delayed = None  # imported by load_dask, so that --list needs neither


def load_dask():
    global np, da, delayed
    import numpy
    import dask.array
    from dask import delayed as dask_delayed
    np, da, delayed = numpy, dask.array, dask_delayed


def load_avg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def timed(build, run):
    """Runs build (untimed) then run on its result REPS times; returns the
    sorted times and the load average before the first."""
    load_start = load_avg()
    times = []
    for _ in range(REPS):
        obj = build()
        start = time.perf_counter()
        run(obj)
        times.append(time.perf_counter() - start)
    times.sort()
    return times, load_start


# (workload, scheduler) pairs reported so far: a workload of two groups
# (the randint sums of chunks and scale) runs once.
DONE = set()


def pending(workload, scheduler):
    return (workload, scheduler) not in DONE


def report(workload, scheduler, measured, **extra):
    assert workload in ALL_NAMES, workload
    times, load_start = measured
    line = {
        "workload": workload,
        "scheduler": scheduler,
        "median_s": statistics.median(times),
        "best_s": times[0],
        "reps": len(times),
        "load_start": load_start,
        "load_end": load_avg(),
    }
    line.update(extra)
    DONE.add((workload, scheduler))
    print(json.dumps(line), flush=True)


def too_big(workload, scheduler, size, what):
    """Says on stderr, and returns True, when size passes SCALE_MAX_TASKS."""
    if size <= SCALE_MAX_TASKS:
        return False
    print(f"dask_bench.py: skipping {workload} on {scheduler}: {size} {what} > SCALE_MAX_TASKS={SCALE_MAX_TASKS}"
          f" (set SCALE_MAX_TASKS={size} to run it)", file=sys.stderr, flush=True)
    return True


def compute(obj, scheduler):
    # With a Client alive, scheduler=None sends the graph to it.
    return obj.compute(scheduler=None if scheduler == "distributed" else scheduler)


# --- delayed: a binary tree of 65,535 impure additions ---------------------

LEAVES = 1 << 15


def add_tree(leaves):
    """Pairs a list of delayed values up level by level until one is left."""
    while len(leaves) > 1:
        nxt = [delayed(operator.add, pure=False)(leaves[i], leaves[i + 1])
               for i in range(0, len(leaves) - 1, 2)]
        if len(leaves) % 2:
            nxt.append(leaves[-1])
        leaves = nxt
    return leaves[0]


def tree_graph(leaves=LEAVES):
    return add_tree([delayed(operator.add, pure=False)(i, 1) for i in range(leaves)])


def delayed_tree(workload, scheduler, leaves):
    start = time.perf_counter()
    tree_graph(leaves)
    build = time.perf_counter() - start
    want = leaves * (leaves + 1) // 2

    def run(r):
        got = compute(r, scheduler)
        if got != want:
            raise SystemExit(f"{workload}: got {got}, want {want}")

    tasks = 2 * leaves - 1
    measured = timed(lambda: tree_graph(leaves), run)
    report(workload, scheduler, measured, build_s=build, tasks=tasks,
           us_per_task=round(1e6 * statistics.median(measured[0]) / tasks, 3))


def group_delayed(scheduler):
    delayed_tree("delayed_tree_65535", scheduler, LEAVES)


# --- chunks: reductions over 500^3 integers in chunks of several sizes -----

def randint_sum(c, scheduler):
    workload = f"randint500^3_sum_chunks{c}"
    if not pending(workload, scheduler):
        return
    nchunks = int(np.prod(da.random.randint(0, 100, (500, 500, 500), chunks=c).numblocks))
    if too_big(workload, scheduler, nchunks, "chunks"):
        return
    measured = timed(lambda: da.random.randint(0, 100, (500, 500, 500), chunks=c).sum(),
                     lambda r: compute(r, scheduler))
    report(workload, scheduler, measured, nchunks=nchunks)


def group_chunks(scheduler):
    for c in (500, 200, 100, 50):
        randint_sum(c, scheduler)
    want = 500 ** 3

    def run(r):
        got = compute(r, scheduler)
        if got != want:
            raise SystemExit(f"ones500^3_sum_chunks50: got {got}, want {want}")

    report("ones500^3_sum_chunks50", scheduler,
           timed(lambda: da.ones((500, 500, 500), chunks=50, dtype="i8").sum(), run))


# --- elementwise and normalize ---------------------------------------------

def group_elementwise(scheduler):
    def build():
        im = da.ones((10000, 10000), chunks=(1000, 1000))
        return (np.sin(im[:, 0]) * im.T).sum()

    report("sin_col_times_T_sum_1e4", scheduler, timed(build, lambda r: compute(r, scheduler)))


def group_normalize(scheduler):
    def build():
        im = da.ones((3, 1000, 1000), chunks=(1, 600, 600))
        return im / im.max(axis=(1, 2))[:, None, None]

    report("normalize_3x1000x1000", scheduler, timed(build, lambda r: compute(r, scheduler)))


# --- zarr: sum of squares of an uncompressed 10^4 x 10^4 int32 store -------

_store = None


def zarr_store():
    """Writes the store once per run: values 0..99 from a fixed seed, chunks of 1000^2."""
    global _store
    if _store is None:
        import zarr
        path = os.path.join(tempfile.mkdtemp(prefix="dask-bench-"), "im.zarr")
        z = zarr.open(path, mode="w", shape=(10000, 10000), chunks=(1000, 1000), dtype="i4", compressor=None)
        z[:, :] = np.random.default_rng(0).integers(0, 100, z.shape, dtype="i4")
        _store = path
    return _store


def group_zarr(scheduler):
    path = zarr_store()
    report("zarr_1e4_sq_sum", scheduler,
           timed(lambda: (da.from_zarr(path).astype("i8") ** 2).sum(), lambda r: compute(r, scheduler)))


# --- udf: a frame sum over a 4-D dataset in 16 partitions ------------------
# 64x64 navigation positions of 128x128 float32 frames, 256 frames a
# partition; each partition is summed over its frames, then the 16 partial
# sums are merged by a pairwise tree or by one task that stacks them.

def partition_sums():
    data = da.random.random((64 * 64, 128, 128), chunks=(256, 128, 128)).astype(np.float32)
    return [delayed(np.sum, pure=False)(block, axis=0) for block in data.to_delayed().ravel()]


def stack_sum(*parts):
    return np.stack(parts).sum(axis=0)


def group_udf(scheduler):
    run = lambda r: compute(r, scheduler)
    report("udf_sum_4d_tree_merge", scheduler, timed(lambda: add_tree(partition_sums()), run))
    report("udf_sum_4d_merge_all", scheduler,
           timed(lambda: delayed(stack_sum, pure=False)(*partition_sums()), run))


# --- graphbuild: building (not running) a graph of 10,000 chunks -----------

def group_graphbuild(_scheduler):
    load_start = load_avg()
    times = []
    tasks = 0
    for _ in range(REPS):
        start = time.perf_counter()
        x = da.ones((1000, 1000, 100), chunks=(10, 10, 100))
        y = ((x + 1) * 2).sum()
        tasks = len(dict(y.__dask_graph__()))
        times.append(time.perf_counter() - start)
    times.sort()
    report("graph_build_10k_chunks", "none", (times, load_start), tasks=tasks)


# --- scale: per-task cost against graph size, chunking, streaming -----------

def group_scale(scheduler):
    for exp in (3, 4, 5, 6):
        workload, leaves = f"scale_delayed_1e{exp}", 10 ** exp // 2
        if pending(workload, scheduler) and not too_big(workload, scheduler, 2 * leaves - 1, "tasks"):
            delayed_tree(workload, scheduler, leaves)
    for c in (100, 50, 25, 10):
        randint_sum(c, scheduler)
    if pending("scale_stream_sum", scheduler):
        stream_sum(scheduler)


def stream_sizes():
    n = int(STREAM_GIB * 2 ** 30) // 8
    c = min(int(STREAM_CHUNK_MIB * 2 ** 20) // 8, n)
    if n < 1 or c < 1:
        sys.exit(f"dask_bench.py: scale_stream_sum: SCALE_STREAM_GIB={STREAM_GIB}, "
                 f"SCALE_STREAM_CHUNK_MIB={STREAM_CHUNK_MIB}: want at least one float64 of each")
    return n, c


def stream_sum(scheduler):
    """Runs the stream sum in a child process (this script, --stream-child)
    and reports its line: ru_maxrss covers a process's whole life and
    cannot be reset, so a child is the only way to a peak of this workload
    alone."""
    load_start = load_avg()
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--stream-child", scheduler],
                         stdout=subprocess.PIPE, check=True).stdout
    child = json.loads(out)
    n, c = stream_sizes()
    workers = child.pop("workers")
    report("scale_stream_sum", scheduler, (sorted(child.pop("times")), load_start), nchunks=-(-n // c),
           array_bytes=n * 8, chunk_bytes=c * 8, workers=workers, bound_bytes=c * 8 * workers, **child)


def stream_child(scheduler):
    """The child of stream_sum: times REPS sums, prints times and peaks."""
    load_dask()
    n, c = stream_sizes()
    client = None
    if scheduler == "distributed":
        client = start_cluster()
        workers = sum(client.nthreads().values())
    elif scheduler == "threads":
        from dask.system import CPU_COUNT
        workers = CPU_COUNT
    else:
        workers = 1
    mean, sd = n / 2, (n / 12) ** 0.5

    def run(r):
        got = compute(r, scheduler)
        if abs(got - mean) > 6 * sd:
            raise SystemExit(f"scale_stream_sum: got {got}, want {mean} +- {6 * sd}")

    times, _ = timed(lambda: da.random.random(n, chunks=c).sum(), run)
    line = {"times": times, "workers": workers, "peak_rss_bytes": peak_rss()}
    if client is not None:
        line["workers_peak_rss_bytes"] = sum(client.run(peak_rss).values())
        client.close()
    print(json.dumps(line), flush=True)


def peak_rss():
    """This process's peak resident set in bytes: VmHWM of
    /proc/self/status, as tessera bench reads it, else ru_maxrss. On Linux
    a process started by another inherits the starter's peak in ru_maxrss
    (the kernel keeps the high-water mark of the memory it replaces at
    exec), so a child of this script, after the big graphs of the other
    workloads, would report the parent's peak; VmHWM is the process's own."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def start_cluster():
    from distributed import Client, LocalCluster
    return Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"))


GROUPS = {
    "delayed": group_delayed,
    "chunks": group_chunks,
    "elementwise": group_elementwise,
    "normalize": group_normalize,
    "zarr": group_zarr,
    "udf": group_udf,
    "graphbuild": group_graphbuild,
    "scale": group_scale,
}
assert list(GROUPS) == list(NAMES)


def main(argv):
    if argv == ["--list"]:
        print(json.dumps(NAMES))
        return
    if len(argv) == 2 and argv[0] == "--stream-child":
        stream_child(argv[1])
        return
    groups = argv or list(GROUPS)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        sys.exit(f"dask_bench.py: unknown group(s) {', '.join(unknown)} (groups: {', '.join(GROUPS)})")
    schedulers = [s.strip() for s in os.environ.get("SCHEDS", "sync,threads").split(",") if s.strip()]
    for s in schedulers:
        if s not in ("sync", "threads", "distributed"):
            sys.exit(f"dask_bench.py: unknown scheduler {s!r} in SCHEDS (sync, threads, distributed)")
    load_dask()
    client = None
    if "distributed" in schedulers:
        client = start_cluster()
    try:
        for g in groups:
            for s in (["none"] if g == "graphbuild" else schedulers):
                GROUPS[g](s)
    finally:
        if client is not None:
            client.close()


if __name__ == "__main__":
    main(sys.argv[1:])
