"""Run time as a side channel: how much longer a release takes when one row is replaced.

Differential privacy covers what a release outputs, not how long it takes. On a machine an
adversary shares, the time of ``dp_loading`` is an output too: if replacing one ordinary row
by an extreme one makes the call measurably slower, the time alone tells the two neighbouring
data sets apart. For each kernel (all pairs at n = 1,500, p = 5; the incomplete design,
``pairs=64``, at n = 30,000, p = 5) this times ``dp_loading`` on a base data set and on
neighbours that replace its first row by: a row at 1e50 and at 1e100, a duplicate of another
row, a near duplicate (1e-12 apart), and subnormal values; the calls are interleaved, each
timed ``--repeats`` times, and the table gives each neighbour's median time over the base's
(goal: at most 1.05 for every neighbour).

Usage: ``python benchmarks/timing_channel.py [--repeats R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import dppca

from _common import save_table_report, script_intro

KERNELS = {"all pairs": (1500, "all"), "design, 64 pairs per row": (30_000, 64)}


def neighbours(X: np.ndarray) -> dict[str, np.ndarray]:
    """The base data and the data with its first row replaced."""
    out = {"base": X}
    replacements = {
        "a row at 1e50": np.full(X.shape[1], 1e50),
        "a row at 1e100": np.full(X.shape[1], 1e100),
        "a duplicate row": X[1].copy(),
        "a near duplicate": X[1] + 1e-12,
        "a subnormal row": np.full(X.shape[1], 5e-324),
    }
    for name, row in replacements.items():
        changed = X.copy()
        changed[0] = row
        out[name] = changed
    return out


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = []
    for kernel, (n, pairs) in KERNELS.items():
        X = np.random.default_rng(0).standard_normal((n, 5)) * [3.0, 2.0, 1.0, 1.0, 0.5]
        data = neighbours(X)
        seconds: dict[str, list[float]] = {name: [] for name in data}
        for _ in range(args.repeats):
            for name, values in data.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    dppca.dp_loading(values, 1.0, 1e-8, pairs=pairs, random_state=0, progress=False)
                    seconds[name].append(time.perf_counter() - start)
        base = statistics.median(seconds["base"])
        for name, values in seconds.items():
            rows.append(
                {
                    "kernel": kernel,
                    "n": n,
                    "data": name,
                    "median_ms": 1000 * statistics.median(values),
                    "ratio_to_base": statistics.median(values) / base,
                }
            )
    table = pd.DataFrame(rows)
    save_table_report(
        table,
        args.out,
        "timing_channel",
        [
            "# Run time as a side channel",
            script_intro(__doc__),
            f"{args.repeats} interleaved runs of each.",
        ],
        started,
    )
    return table


if __name__ == "__main__":
    main()
