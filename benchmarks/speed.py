"""Fit time of every method at d = 50 and n = 5,000 and 50,000, in one run, as ratios to ours.

Usage: ``python benchmarks/speed.py [--quick] [--out DIR]``. Prints and saves a Markdown table.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import dp_loading

from _common import markdown_table, methods, timed

FULL = [(5000, 50), (50000, 50)]
QUICK = [(300, 6)]


def run(sizes) -> pd.DataFrame:
    rows = []
    for n, d in sizes:
        X = np.random.default_rng(n).standard_normal((n, d))
        roster = methods(2, 1.0, 1.0 / n**2, clip_norm=3.0 * np.sqrt(d), eigengap=1.0, seed=0)
        delta = 1.0 / n**2
        roster["g-DPPCA spherical, pairs=20 (ours)"] = lambda X, delta=delta: dp_loading(
            X, 1.0, delta, pairs=20, random_state=0
        )
        times = {}
        for name, method in roster.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                times[name] = timed(lambda method=method, X=X: method(X))
            print(f"n={n} d={d} {name}: {times[name]:.3f}s", flush=True)  # inf: stopped
        ours = times["g-DPPCA spherical (ours)"]
        rows += [
            {"n": n, "d": d, "method": name, "seconds": t, "time / ours": t / ours}
            for name, t in times.items()
        ]
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    table = run(QUICK if args.quick else FULL)
    text = (
        "# Fit time\n\nOne run each on the same data (epsilon = 1, delta = 1/n^2, k = 2); "
        "NSGGD with 50 steps; a method still running after 120 s is stopped (inf).\n\n"
        + markdown_table(table)
        + "\n"
    )
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / ("speed_quick.md" if args.quick else "speed.md")).write_text(text)
    return table


if __name__ == "__main__":
    main()
