"""Row-chunked data on a Dask cluster against the same rows in memory: time per row, and the
client's memory at two sizes.

The data (standard normal, 50 variables, written once as an ``.npy`` stack of row chunks under
``--data``) are read by the workers of a LocalCluster of two worker processes with one thread each,
never by the client. Three calls are run on the whole stack and on its first quarter:
``kendall_matrix(X, pairs=64)`` (the incomplete design: the workers move the rows into a keyed
random order, then one task per run of 32,768 positions), ``dp_loading(X, 1, 1e-14, pairs=64)`` and
the whole release ``dp_pca(X, 3, 1e-14, k=4, pairs=64)`` (directions, scree and score histogram;
the scores are projected, paired, clipped and counted on the workers). The same calls with the same
seed run on the same rows loaded in memory with NumPy, in the same run: the ratio of the median
times (of ``--repeats`` runs each) is the cost of a row on the cluster against in memory (reading
the files is part of the cluster's time), and the releases must be equal.

The client's memory is traced (``tracemalloc``, in separate runs so that tracing does not slow
the timed ones) while each call runs on the cluster: its peak above the start, which includes
the scheduler of the LocalCluster (it runs in the client's process). With the permutation sent
as a key, no array with one entry per row reaches the client. Each worker's peak resident size
(``ru_maxrss``) is read after the runs. Each call runs once on 10,000 rows before the timed runs
(the workers import the package).

Usage: ``python benchmarks/dask_scale.py [--rows N] [--chunk C] [--repeats R] [--data DIR]
[--out DIR]``.
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dppca import dp_loading, dp_pca, kendall_matrix

from _common import save_table_report, script_intro

COLUMNS = 50


def write_stack(directory: Path, rows: int, chunk: int) -> None:
    """The data as a Dask ``.npy`` stack: one file of ``chunk`` rows per chunk."""
    import dask.array as da

    info = directory / "info"
    if info.exists() and da.from_npy_stack(directory).shape == (rows, COLUMNS):
        return
    shutil.rmtree(directory, ignore_errors=True)
    data = da.random.default_rng(0).standard_normal((rows, COLUMNS), chunks=(chunk, COLUMNS))
    da.to_npy_stack(directory, data, axis=0)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def calls() -> dict[str, Callable[[Any], Any]]:
    """The timed calls, each with a fixed seed."""
    return {
        "kendall_matrix(X, pairs=64)": lambda X: kendall_matrix(
            X, pairs=64, random_state=0, progress=False
        ),
        "dp_loading(X, 1, 1e-14, pairs=64)": lambda X: (
            dp_loading(X, 1.0, 1e-14, pairs=64, random_state=0, progress=False).kendall
        ),
        "dp_pca(X, 3, 1e-14, k=4, pairs=64)": lambda X: (
            dp_pca(
                X,
                3.0,
                1e-14,
                random_state=0,
                progress=False,
                scree={"k": 4},
                loading={"pairs": 64},
            ).scree
        ),
    }


def traced_peak_mib(run: Callable[[], Any]) -> float:
    """The peak of the memory traced in this process while ``run`` runs, above its start."""
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    try:
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - start) / 2**20


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--chunk", type=int, default=250_000)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each call")
    parser.add_argument("--data", type=Path, default=Path("/tmp/dppca-dask-scale"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    write_stack(args.data, args.rows, args.chunk)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weak-release warnings of random data; values compared
        table, worker_mib = measure(args)
    intro = (
        f"# Dask: {args.rows:,} rows x {COLUMNS} on a two-process LocalCluster, against "
        f"memory\n\n{script_intro(__doc__ or '')}\n\nPython {platform.python_version()}, numpy "
        f"{np.__version__}; 2 workers x 1 thread, chunks of {args.chunk:,} rows; data "
        f"{args.rows * COLUMNS * 8 / 2**20:.0f} MiB; each worker's peak resident size "
        f"{worker_mib:.0f} MiB."
    )
    save_table_report(table, args.out, "dask_scale", [intro], started)
    return table


def measure(args: argparse.Namespace) -> tuple[pd.DataFrame, float]:
    """The table of the calls on the cluster and in memory, and the workers' peak memory."""
    import dask.array as da
    from distributed import Client, LocalCluster

    small = args.rows // 4
    dask_seconds: dict[str, list[float]] = {}
    client_mib: dict[tuple[str, int], float] = {}
    dask_values: dict[str, Any] = {}
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            memory_limit="10GiB",
        ) as cluster,
        Client(cluster) as client,
    ):
        stack = da.from_npy_stack(args.data, mmap_mode="r")
        for call in calls().values():  # the workers import the package (not timed)
            call(stack[: min(10_000, small)])
        for label, call in calls().items():
            dask_seconds[label] = []
            for _ in range(args.repeats):
                begin = time.perf_counter()
                dask_values[label] = call(stack)
                dask_seconds[label].append(time.perf_counter() - begin)
            for size in (small, args.rows):
                client_mib[label, size] = traced_peak_mib(lambda: call(stack[:size]))  # noqa: B023
            print(label, np.round(dask_seconds[label], 2), "s", flush=True)
        worker_mib = max(client.run(peak_rss_mib).values())
    files = -(-args.rows // args.chunk)
    local = np.concatenate([np.load(args.data / f"{i}.npy") for i in range(files)])
    rows = []
    for label, call in calls().items():
        seconds = []
        for _ in range(args.repeats):
            begin = time.perf_counter()
            value = call(local)
            seconds.append(time.perf_counter() - begin)
        on_dask, in_memory = np.median(dask_seconds[label]), np.median(seconds)
        rows.append(
            {
                "call": label,
                "rows": args.rows,
                "Dask s": on_dask,
                "Dask worst s": max(dask_seconds[label]),
                "in memory s": in_memory,
                "in memory worst s": max(seconds),
                "Dask / in memory": on_dask / in_memory,
                "same release": bool(np.allclose(dask_values[label], value, rtol=1e-9)),
                f"client peak MiB, {small:,} rows": client_mib[label, small],
                f"client peak MiB, {args.rows:,} rows": client_mib[label, args.rows],
            }
        )
        print(rows[-1], flush=True)
    return pd.DataFrame(rows), worker_mib


if __name__ == "__main__":
    main()
