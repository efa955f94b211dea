"""Row-chunked data on a Dask cluster: the Kendall matrix and the private directions of
10^7 rows x 50 variables read from chunked files, on a LocalCluster of two worker processes.

The data (standard normal, written once as an ``.npy`` stack of row chunks under ``--data``)
are never loaded whole: each worker reads its chunks. Timed: ``kendall_matrix(X, pairs=64)``
(the incomplete design: Dask's shuffle into the design's random order, then one task per
chunk), ``dp_loading(X, epsilon=1, delta=1e-14, pairs=64)`` and the whole release
``dp_pca(X, 3, 1e-14, k=4, pairs=64)`` (directions, scree and score histogram; the scores are
projected, paired, clipped and counted on the workers, and only grid counts and exact column
sums reach the client). Per-worker memory is each worker process's peak resident size
(``ru_maxrss``) after the runs; the client's is its own peak so far. For scale, the same
statistic on the first 10^6 rows in memory with NumPy is timed in the same run.

Usage: ``python benchmarks/dask_scale.py [--rows N] [--chunk C] [--data DIR] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import dp_loading, dp_pca, kendall_matrix

from _common import markdown_table

COLUMNS = 50


def write_stack(directory: Path, rows: int, chunk: int) -> None:
    """The data as a Dask ``.npy`` stack: one file of ``chunk`` rows per chunk."""
    import dask.array as da

    if (directory / "info").exists():
        return
    shutil.rmtree(directory, ignore_errors=True)
    data = da.random.default_rng(0).standard_normal((rows, COLUMNS), chunks=(chunk, COLUMNS))
    da.to_npy_stack(directory, data, axis=0)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> pd.DataFrame:
    import dask.array as da
    from distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--chunk", type=int, default=500_000)
    parser.add_argument("--data", type=Path, default=Path("/tmp/dppca-dask-scale"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    write_stack(args.data, args.rows, args.chunk)
    rows = []
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit="10GiB",
        ) as cluster,
        Client(cluster) as client,
    ):
        X = da.from_npy_stack(args.data, mmap_mode="r")
        for label, run in (
            ("kendall_matrix(X, pairs=64)", lambda: kendall_matrix(X, pairs=64, random_state=0)),
            (
                "dp_loading(X, 1, 1e-14, pairs=64)",
                lambda: dp_loading(X, 1.0, 1e-14, pairs=64, random_state=0),
            ),
            (
                "dp_pca(X, 3, 1e-14, k=4, pairs=64)",
                lambda: dp_pca(
                    X,
                    3.0,
                    1e-14,
                    random_state=0,
                    progress=False,
                    scree={"k": 4},
                    loading={"pairs": 64},
                ),
            ),
        ):
            start = time.perf_counter()
            run()
            seconds = time.perf_counter() - start
            memory = client.run(peak_rss_mib)
            rows.append(
                {
                    "call": label,
                    "rows": args.rows,
                    "chunk": args.chunk,
                    "seconds": seconds,
                    "worker peak MiB": max(memory.values()),
                    "client peak MiB": peak_rss_mib(),
                    "data MiB": args.rows * COLUMNS * 8 / 2**20,
                }
            )
            print(rows[-1], flush=True)
    files = range(min(-(-1_000_000 // args.chunk), -(-args.rows // args.chunk)))
    local = np.concatenate([np.load(args.data / f"{i}.npy") for i in files])[:1_000_000]
    start = time.perf_counter()
    kendall_matrix(local, pairs=64, random_state=0, progress=False)
    rows.append(
        {
            "call": "NumPy kendall_matrix, first 10^6 rows, pairs=64",
            "rows": len(local),
            "chunk": len(local),
            "seconds": time.perf_counter() - start,
            "worker peak MiB": float("nan"),
            "client peak MiB": float("nan"),
            "data MiB": local.nbytes / 2**20,
        }
    )
    table = pd.DataFrame(rows)
    text = (
        "# Dask: 10^7 rows from chunked files on a two-process LocalCluster\n\n"
        f"Python {platform.python_version()}, numpy {np.__version__}; 2 workers x 1 thread, "
        f"chunks of {args.chunk} rows x {COLUMNS}.\n\n{markdown_table(table)}\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dask_scale.md").write_text(text)
    print(text)
    return table


if __name__ == "__main__":
    main()
