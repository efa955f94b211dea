"""The exact discrete Gaussian sampler: its speed, its share of ``dp_pca``, and whether its time
follows its noise.

Three tables, each measured side by side in one run:

1. **Per draw**: the array sampler (``dppca.privacy.discrete_batch``) against the one-at-a-time
   sampler it replaced (``dppca.privacy.discrete.scalar_gaussian_integers``) at the sizes of a
   Kendall matrix's upper triangle (d = 50 and d = 500) and a noise scale of a release.
2. **Share of dp_pca at d = 500**: ``dp_pca`` on n x 500 Gaussian rows with the default
   (discrete) sampler, the time spent drawing Gaussian integers measured inside the same calls,
   with either sampler (goal: under 10 % with the array sampler).
3. **Time against noise**: ``--releases`` releases of one draw and of 100 draws with each
   sampler, their times against the size of their noise (``|y|`` and ``max |y|``): Spearman's
   correlation and its p-value. The one-at-a-time sampler takes longer for larger draws; the
   array sampler runs the same operations whatever the values.

Usage: ``python benchmarks/discrete_sampler.py [--releases R] [--rows N ...] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import dppca
import dppca.privacy.mechanisms as mechanisms
from dppca.privacy.discrete import SecureBits, scalar_gaussian_integers
from dppca.privacy.discrete_batch import gaussian_integers

from _common import markdown_table, script_intro, write_markdown

SAMPLERS = {"one at a time": scalar_gaussian_integers, "arrays": gaussian_integers}
#: A variance in grid steps as a Kendall release draws it (sigma of about 3,000 steps).
VARIANCE = Fraction(9_000_000)


def _source(seed: int) -> SecureBits:
    return SecureBits(np.random.default_rng(seed).bytes(32))


def per_draw(sizes: list[int]) -> pd.DataFrame:
    rows = []
    for size in sizes:
        times = {}
        for name, sampler in SAMPLERS.items():
            start = time.perf_counter()
            sampler(_source(size), VARIANCE, size)
            times[name] = time.perf_counter() - start
        for name, seconds in times.items():
            rows.append(
                {
                    "draws": size,
                    "sampler": name,
                    "seconds": seconds,
                    "ns_per_draw": 1e9 * seconds / size,
                    "speed_up": times["one at a time"] / seconds,
                }
            )
    return pd.DataFrame(rows)


def share_of_dp_pca(row_counts: list[int]) -> pd.DataFrame:
    out = []
    for rows, (name, sampler) in itertools.product(row_counts, SAMPLERS.items()):
        X = np.random.default_rng(0).standard_normal((rows, 500)) * np.linspace(3.0, 0.5, 500)
        spent = [0.0]

        def timed(source, variance, size, sampler=sampler, spent=spent):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            draws = sampler(source, variance, size)
            spent[0] += time.perf_counter() - start
            return draws

        original = mechanisms.gaussian_integers
        mechanisms.gaussian_integers = timed
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                dppca.dp_pca(X, 1.0, 1e-6, random_state=0, progress=False, on_weak="release")
                total = time.perf_counter() - start
        finally:
            mechanisms.gaussian_integers = original
        out.append(
            {
                "n": rows,
                "sampler": name,
                "dp_pca_s": total,
                "gaussian_draws_s": spent[0],
                "share": spent[0] / total,
            }
        )
    return pd.DataFrame(out)


def time_against_noise(releases: int) -> pd.DataFrame:
    rows = []
    for size in (1, 100):
        for name, sampler in SAMPLERS.items():
            sampler(_source(0), VARIANCE, size)  # warm up
            seconds, sizes = [], []
            for seed in range(releases):
                source = _source(seed + 1)
                start = time.perf_counter()
                draws = sampler(source, VARIANCE, size)
                seconds.append(time.perf_counter() - start)
                sizes.append(float(np.max(np.abs(draws))))
            result = stats.spearmanr(seconds, sizes)
            rows.append(
                {
                    "draws_per_release": size,
                    "sampler": name,
                    "releases": releases,
                    "median_us": 1e6 * float(np.median(seconds)),
                    "spearman": float(result.statistic),
                    "p_value": float(result.pvalue),
                }
            )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> dict[str, pd.DataFrame]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=2000)
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1275, 125_250])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tables = {
        "per_draw": per_draw(args.sizes),
        "share": share_of_dp_pca(args.rows),
        "time_against_noise": time_against_noise(args.releases),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        table.to_csv(args.out / f"discrete_sampler_{name}.csv", index=False)
    write_markdown(
        args.out / "discrete_sampler.md",
        [
            "# The exact discrete Gaussian sampler",
            script_intro(__doc__),
            f"Variance {float(VARIANCE):g} grid steps squared.",
            "## Per draw\n\n" + markdown_table(tables["per_draw"]),
            "## Share of dp_pca at d = 500\n\n" + markdown_table(tables["share"]),
            "## Time against noise\n\n" + markdown_table(tables["time_against_noise"]),
        ],
        started,
    )
    return tables


if __name__ == "__main__":
    main()
