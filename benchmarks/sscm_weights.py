"""The SSCM's outer weights: efficiency on heavy tails against robustness to outliers.

``statistic="sscm"`` weighs each row's spatial sign about the private centre by
``min(1, (kappa tau / r)^2)`` (``tau`` the matrix's clip, about the released pair scale; the
library's ``kappa`` is 3), so rows far beyond the bulk fade out. Without that weight (a large
``kappa``) the statistic is nearly Analyze Gauss about the same centre with its clip at half the
scale ("AG, centre and clip at its scale" in ``directions.py``, clipped at half the pair scale
where the SSCM's inner radius is half of ``tau``), which the directions benchmark finds better on
multivariate Cauchy data. This script measures what the weight costs and what
it buys: the library's release at ``kappa`` = 3 (the default), 6, 10 and 1e300 (no outer
weight), on the same samples and noise (paired), everything else unchanged.

Data (n = 2,000, delta = 1/n^2, shift 0, 20 repetitions): the directions benchmark's spiked
model (``Sigma = diag(10, 5, 3, 1, ..., 1)`` in a random basis) as Gaussian, multivariate t3 and
Cauchy rows, and Gaussian rows with 5 % replaced by outliers along one fixed direction outside
the top-3 subspace at distance 30, 60 or 1,000 from the centre (the inliers' root mean square
radius is 8.1 at d = 50 and 5 at d = 10). Error: sin Theta of the top-k subspace against
``Sigma``'s (the inliers'), k = 1 and 3; a verdict is a 95 % Student t interval of the mean paired
difference with ``kappa`` = 3.

Usage: ``python benchmarks/sscm_weights.py [--reps R | --tiny] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time
from pathlib import Path

import numpy as np
import pandas as pd

import dppca.numerics.sscm as sscm_numerics
from dppca import dp_loading

from _common import (
    markdown_table,
    mean_intervals,
    paired_verdicts,
    scored,
    script_intro,
    write_markdown,
)
from directions import sample

KAPPAS = {"kappa 3 (library)": 3.0, "kappa 6": 6.0, "kappa 10": 10.0, "no outer weight": 1e300}
#: (data, d, epsilon): the heavy tails at both budgets, the outliers at epsilon 4.
CELLS = [
    *itertools.product(["gaussian", "t3", "cauchy"], [10, 50], [1.0, 4.0]),
    *itertools.product(["outliers at 30", "outliers at 60", "outliers at 1000"], [10, 50], [4.0]),
]
#: The ``--tiny`` run's cells (seconds, for the test suite).
TINY_CELLS = [("cauchy", 10, 4.0), ("outliers at 60", 10, 4.0)]


def draw(data: str, n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A sample of ``data`` and the truth (``Sigma``'s eigenvectors, descending)."""
    if not data.startswith("outliers"):
        return sample(data, n, d, rng)
    rows, basis = sample("gaussian", n, d, rng)
    bad = rng.random(n) < 0.05
    distance = float(data.rsplit(" ", 1)[1])
    rows[bad] = distance * basis[:, -1] + rng.standard_normal((int(bad.sum()), d))
    return rows, basis


def evaluate(data: str, d: int, epsilon: float, reps: int, n: int) -> list[dict]:
    """Every ``kappa`` on the same ``reps`` samples of ``n`` rows and seeds."""
    rng = np.random.default_rng([d, int(epsilon), n, len(data)])
    original = sscm_numerics.matrix_weights
    rows = []
    for rep in range(reps):
        X, truth = draw(data, n, d, rng)
        seed = int(rng.integers(2**31))
        for name, kappa in KAPPAS.items():
            sscm_numerics.matrix_weights = functools.partial(original, kappa=kappa)
            try:
                result = dp_loading(
                    X,
                    epsilon,
                    1.0 / n**2,
                    statistic="sscm",
                    sampler="continuous",
                    random_state=seed,
                    progress=False,
                )
            finally:
                sscm_numerics.matrix_weights = original
            score = scored(result.directions, truth, (1, 3))
            facts = {"data": data, "d": d, "epsilon": epsilon, "rep": rep, "method": name}
            rows += [{**facts, "k": k, "sin_theta": score[f"k{k}"]} for k in (1, 3)]
    return rows


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells, n, reps = (TINY_CELLS, 600, 2) if args.tiny else (CELLS, 2000, args.reps)
    results = pd.DataFrame([row for cell in cells for row in evaluate(*cell, reps, n)])
    label = "sscm_weights_tiny" if args.tiny else "sscm_weights"
    keys = ["data", "d", "epsilon", "k"]
    summary = mean_intervals(results, [*keys, "method"], "sin_theta")
    summary["value"] = [
        f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in summary[["mean", "low", "high"]].values
    ]
    means = summary.pivot(index=keys, columns="method", values="value")[list(KAPPAS)]
    verdicts = paired_verdicts(results, "kappa 3 (library)", keys, "sin_theta")
    verdicts["difference"] = [
        f"{v} {m:+.3f} +- {h:.3f}" for v, m, h in verdicts[["verdict", "mean", "half"]].values
    ]
    paired = verdicts.pivot(index=keys, columns="method", values="difference")
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / f"{label}.csv.gz", index=False)
    write_markdown(
        args.out / f"{label}.md",
        [
            "# The SSCM's outer weights",
            script_intro(__doc__),
            f"{len(results) // 2} releases of {n} rows, {reps} repetitions per cell.",
            "## Mean sin Theta [95 % interval]",
            markdown_table(means.reset_index()),
            "## kappa 3 against each: verdict, mean paired difference (kappa 3 minus the "
            "other) +- half-width",
            markdown_table(paired[[k for k in KAPPAS if k in paired.columns]].reset_index()),
        ],
        started,
    )
    return results


if __name__ == "__main__":
    main()
