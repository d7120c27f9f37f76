#!/usr/bin/python3
"""Time real Dask on the workloads of `tessera bench`, under the same names.

Usage:
    SCHEDS=sync,threads,distributed REPS=5 bench/dask/dask_bench.py [GROUP ...]
    bench/dask/dask_bench.py --list    (the groups and their workloads, as JSON; needs no Dask)

GROUP is one of delayed, chunks, elementwise, normalize, zarr, udf, graphbuild
(default: all of them), the groups of `tessera bench`. SCHEDS lists Dask
schedulers (default sync,threads); "distributed" starts a LocalCluster of two
worker processes with one thread each, as `tessera bench -schedulers
distributed` starts two worker processes. REPS is the number of repetitions
(default 5).

Output: one JSON line per workload and scheduler with
    workload, scheduler, median_s (the figure to compare), best_s, reps,
    load_avg (the 1-minute load average when the workload finished),
and for some workloads tasks or build_s. Every repetition builds its graph
again, untimed, with fresh keys, so no scheduler reuses an earlier result;
the time covers what compute() does: optimization and execution.

Needs numpy and dask (python3-dask, python3-distributed for "distributed",
python3-zarr for the zarr group on Debian).
"""

import json
import operator
import os
import statistics
import sys
import tempfile
import time

REPS = max(1, int(os.environ.get("REPS", "5")))

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
    """Runs build (untimed) then run on its result REPS times; returns the sorted times."""
    times = []
    for _ in range(REPS):
        obj = build()
        start = time.perf_counter()
        run(obj)
        times.append(time.perf_counter() - start)
    times.sort()
    return times


def report(workload, scheduler, times, **extra):
    assert workload in ALL_NAMES, workload
    line = {
        "workload": workload,
        "scheduler": scheduler,
        "median_s": statistics.median(times),
        "best_s": times[0],
        "reps": len(times),
        "load_avg": load_avg(),
    }
    line.update(extra)
    print(json.dumps(line), flush=True)


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


def tree_graph():
    return add_tree([delayed(operator.add, pure=False)(i, 1) for i in range(LEAVES)])


def group_delayed(scheduler):
    start = time.perf_counter()
    tree_graph()
    build = time.perf_counter() - start
    want = sum(range(LEAVES)) + LEAVES

    def run(r):
        got = compute(r, scheduler)
        if got != want:
            raise SystemExit(f"delayed_tree_65535: got {got}, want {want}")

    report("delayed_tree_65535", scheduler, timed(tree_graph, run), build_s=build, tasks=2 * LEAVES - 1)


# --- chunks: reductions over 500^3 integers in chunks of several sizes -----

def group_chunks(scheduler):
    for c in (500, 200, 100, 50):
        times = timed(lambda: da.random.randint(0, 100, (500, 500, 500), chunks=c).sum(),
                      lambda r: compute(r, scheduler))
        report(f"randint500^3_sum_chunks{c}", scheduler, times, nchunks=(500 // c) ** 3)
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
    times = []
    tasks = 0
    for _ in range(REPS):
        start = time.perf_counter()
        x = da.ones((1000, 1000, 100), chunks=(10, 10, 100))
        y = ((x + 1) * 2).sum()
        tasks = len(dict(y.__dask_graph__()))
        times.append(time.perf_counter() - start)
    times.sort()
    report("graph_build_10k_chunks", "none", times, tasks=tasks)


GROUPS = {
    "delayed": group_delayed,
    "chunks": group_chunks,
    "elementwise": group_elementwise,
    "normalize": group_normalize,
    "zarr": group_zarr,
    "udf": group_udf,
    "graphbuild": group_graphbuild,
}
assert list(GROUPS) == list(NAMES)


def main(argv):
    if argv == ["--list"]:
        print(json.dumps(NAMES))
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
        from distributed import Client, LocalCluster
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None))
    try:
        for g in groups:
            for s in (["none"] if g == "graphbuild" else schedulers):
                GROUPS[g](s)
    finally:
        if client is not None:
            client.close()


if __name__ == "__main__":
    main(sys.argv[1:])
