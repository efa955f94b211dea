"""Speed of the Kendall kernel against a direct kernel and against its own dense products.

For each (n, d), in one run on the same data:

* ``ours``: :func:`dppca.kendall_matrix` (graph-Laplacian form in tiles, near-duplicate safe,
  with a proven floating-point error bound);
* ``direct``: a direct block-pair numpy kernel that forms every difference ``x_i - x_j``
  explicitly, normalises it and accumulates ``D^T D`` over row blocks;
* ``products``: only the dense products our kernel needs per tile, ``X_a X_b^T``, ``G X_b`` and
  ``X_a^T (G X_b)``, over the kernel's own tiles (each row block against the blocks from its own
  on), run by the kernel's own task runner: the same threads, each with a one-thread BLAS, and
  the same compensated sum of the parts (a floor for any implementation of the Laplacian form
  with this layout).

Each time is the best of ``--repeats`` runs. Peak memory is the tracemalloc peak of one call
(numpy reports its allocations to tracemalloc). Prints a Markdown table and saves it with a CSV.

Usage: ``python benchmarks/kendall_speed.py [--quick] [--repeats R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import kendall_matrix
from dppca.numerics.kendall import pair_block_tasks, sum_tasks, worker_threads
from dppca.numerics.pair_sums import CHUNK_PAIRS, TILE_ROWS
from dppca.numerics.signs import SphericalSign

from _common import markdown_table

FULL_SIZES = [(2000, 20), (2000, 50), (5000, 20), (5000, 50), (20000, 20), (20000, 50)]
QUICK_SIZES = [(300, 5), (600, 10)]
DIRECT_BLOCK = 16
SPHERICAL = SphericalSign()


def direct_kernel(X: np.ndarray) -> np.ndarray:
    """Spherical Kendall matrix from explicit differences, ``DIRECT_BLOCK`` rows at a time."""
    n, d = X.shape
    total = np.zeros((d, d))
    for start in range(0, n, DIRECT_BLOCK):
        stop = min(start + DIRECT_BLOCK, n)
        diffs = (X[start:stop, None, :] - X[None, :, :]).reshape(-1, d)
        squared = np.einsum("ij,ij->i", diffs, diffs)
        weights = np.divide(1.0, squared, out=np.zeros_like(squared), where=squared > 0)
        total += diffs.T @ (weights[:, None] * diffs)
    return total / (n * (n - 1))  # ordered pairs: each unordered pair counted twice


def _tile_products(rows: np.ndarray, partner: np.ndarray | None) -> np.ndarray:
    partner = rows if partner is None else partner
    return rows.T @ ((rows @ partner.T) @ partner)


def dense_products(X: np.ndarray) -> np.ndarray:
    """The products of the Laplacian form on the kernel's tiles, threads and summation alone."""
    tiles = pair_block_tasks(X, None, SPHERICAL, TILE_ROWS, CHUNK_PAIRS)
    tasks = [partial(_tile_products, *task.args[:2]) for task in tiles]
    return sum_tasks(tasks, X.shape[1], threads=worker_threads(SPHERICAL))


def best_time(function: Callable[[np.ndarray], np.ndarray], X: np.ndarray, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(X)
        times.append(time.perf_counter() - start)
    return min(times)


def peak_megabytes(function: Callable[[np.ndarray], np.ndarray], X: np.ndarray) -> float:
    tracemalloc.start()
    function(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def blas_description() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "BLAS: unknown (threadpoolctl not installed)"
    pools = [pool for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return "; ".join(
        f"{pool.get('internal_api')} {pool.get('version')} ({pool.get('architecture')}, "
        f"{pool.get('num_threads')} threads)"
        for pool in pools
    )


def run(sizes: list[tuple[int, int]], repeats: int) -> pd.DataFrame:
    rows = []
    for n, d in sizes:
        X = np.random.default_rng(n + d).standard_normal((n, d))
        ours = best_time(kendall_matrix, X, repeats)
        direct = best_time(direct_kernel, X, 1 if n > 5000 else repeats)
        products = best_time(dense_products, X, repeats)
        error = float(np.max(np.abs(kendall_matrix(X) - direct_kernel(X))))
        rows.append(
            {
                "n": n,
                "d": d,
                "ours_s": ours,
                "direct_s": direct,
                "products_s": products,
                "direct/ours": direct / ours,
                "ours/products": ours / products,
                "ours_peak_MiB": peak_megabytes(kendall_matrix, X),
                "data_MiB": X.nbytes / 2**20,
                "max_abs_diff": error,
            }
        )
        print(
            f"n={n:>6} d={d:>3}: ours {ours:.3f}s, direct {direct:.3f}s, products {products:.3f}s"
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (seconds)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    table = run(QUICK_SIZES if args.quick else FULL_SIZES, args.repeats)
    header = (
        f"# Kendall kernel speed\n\nPython {platform.python_version()}, numpy {np.__version__}, "
        f"{blas_description()}. Best of {args.repeats} runs (direct kernel: 1 run above n=5000).\n"
        "Target: at n=5000, d=50, direct/ours >= 20 and ours/products <= 3.\n\n"
    )
    markdown = header + markdown_table(table) + "\n"
    print(markdown)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "kendall_speed_quick" if args.quick else "kendall_speed"
    (args.out / f"{name}.md").write_text(markdown)
    table.to_csv(args.out / f"{name}.csv", index=False)
    return table


if __name__ == "__main__":
    main()
