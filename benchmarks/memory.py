"""Peak memory of a release beside the size of its input.

``kendall_matrix`` and ``dp_loading`` on ``n x 50`` standard normal rows (float64,
C-contiguous), the peak of the memory allocated during the call as ``tracemalloc`` sees it
(numpy reports its buffers there), over the input's size: the validation reads the input in
place (a read-only view, finiteness checked block by block) and the kernel works in tiles, so
the peak should be a small fraction of the input (goal: at most 10 % at 10^6 rows).

Usage: ``python benchmarks/memory.py [--rows N] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

import dppca

from _common import save_table_report, script_intro


def peak(call) -> int:
    """Bytes allocated at the peak of ``call()`` beyond what was allocated before it."""
    tracemalloc.start()
    try:
        call()
        _, top = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return top


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    X = np.random.default_rng(0).standard_normal((args.rows, 50))
    calls = {
        "kendall_matrix(X, pairs=64)": lambda: dppca.kendall_matrix(X, pairs=64, random_state=0),
        "dp_loading(X, 1, 1e-9)": lambda: dppca.dp_loading(
            X, 1.0, 1e-9, random_state=0, progress=False
        ),
    }
    rows = []
    for name, call in calls.items():
        top = peak(call)
        rows.append(
            {
                "call": name,
                "rows": args.rows,
                "input_MiB": X.nbytes / 2**20,
                "peak_MiB": top / 2**20,
                "peak_over_input": top / X.nbytes,
            }
        )
    table = pd.DataFrame(rows)
    save_table_report(
        table,
        args.out,
        "memory",
        ["# Peak memory", script_intro(__doc__)],
        started,
    )
    return table


if __name__ == "__main__":
    main()
