#!/usr/bin/python3
"""Dask distributed's futures on the workloads of tessera's BenchmarkSubmit
and BenchmarkMap (sched/distributed/futures_bench_test.go): a LocalCluster
of two worker processes with one thread each.

  submit: client.submit(inc, i).result(), then release, per round trip (µs)
  map:    client.map(inc, range(N)) then client.gather, then release (µs per task)

Usage: /usr/bin/python3 bench/dask/dask_futures.py   (SUBMITS=200 MAPN=100000)
Prints one JSON line per workload, with the 1-minute load average.
"""
import json, os, statistics, time

from dask.distributed import Client, LocalCluster


def inc(x):
    return x + 1


def main():
    submits = int(os.environ.get("SUBMITS", "200"))
    mapn = int(os.environ.get("MAPN", "100000"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        times = []
        for i in range(submits):
            t = time.perf_counter()
            f = client.submit(inc, i)
            assert f.result() == i + 1
            f.release()
            times.append(time.perf_counter() - t)
        print(json.dumps({"workload": "submit", "median_us": statistics.median(times) * 1e6,
                          "n": submits, "load": os.getloadavg()[0]}), flush=True)
        t = time.perf_counter()
        fs = client.map(inc, range(10**9, 10**9 + mapn))
        vals = client.gather(fs)
        assert vals[-1] == 10**9 + mapn
        del fs
        dt = time.perf_counter() - t
        print(json.dumps({"workload": "map", "us_per_task": dt / mapn * 1e6, "n": mapn,
                          "load": os.getloadavg()[0]}), flush=True)


if __name__ == "__main__":
    main()
