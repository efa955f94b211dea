"""Where the SSCM's weights start to adapt: the range, on a grid that neither the first rule
nor the other benchmarks had seen.

``statistic="sscm"`` adapts its radial weights to the data's tails once ``n epsilon / d^1.5``
passes the first value of ``dppca.releases.loading.weights.ADAPTATION_RANGE``, fully from the
second, on a log scale: the inner radius moves from half the clip to the rows' median distance
from the centre, which the noise can afford only when it is small against the sampling error.
The first range, (150, 600), was chosen on the directions benchmark's grid (d = 10 and 50);
held out, on the accuracy study's grid, the SSCM then lost by at most 0.0017 to Analyze Gauss
about a private centre (AG) on Gaussian rows where ``n epsilon / d^1.5`` is 158 to 316, where
it adapted only in part. This script asked whether an earlier start does better on other
dimensions, sizes and budgets: (150, 600) against (100, 400) and (50, 200), and each against
fair AG (a private median of the norms about its private centre as the clip, 10 % of epsilon,
with its travel), on the same samples and noise seeds (paired). Its answer set the library's
range to (100, 400); the seeds are those of that first run.

Data (delta = 1/n^2, shift 0): the directions benchmark's spiked model (``Sigma = diag(10, 5,
3, 1, ..., 1)`` in a random basis) as Gaussian, multivariate t3 and Cauchy rows, and Gaussian
rows with 5 % replaced by outliers at distance 60 along one direction outside the top-3
subspace, at d = 5, 20 and 30, n = 1,000, 4,000 and 12,000, epsilon 0.7, 2 and 6 (``n epsilon
/ d^1.5`` from 4.3 to 6,440). Error: sin Theta of the top-k subspace, k = 1 and 3; a verdict is
a 95 % Student t interval of the mean paired difference. A release refused before the charge
(the SSCM's centre cannot be located at n = 1,000, epsilon 0.7) or marked unusable scores the
worst error, 1.

Usage: ``python benchmarks/sscm_adaptation.py [--reps R | --tiny] [--workers W] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

import dppca.releases.loading.weights as weights
from dppca import dp_loading
from dppca.baselines import analyze_gauss
from dppca.exceptions import UnlocatableError
from sscm_weights import draw

from _common import (
    markdown_table,
    mean_intervals,
    paired_verdicts,
    scored,
    script_intro,
    tally,
    write_markdown,
)

LIBRARY = "(100, 400) (library)"
#: Each SSCM variant's adaptation range.
RANGES = {LIBRARY: (100.0, 400.0), "(150, 600)": (150.0, 600.0), "(50, 200)": (50.0, 200.0)}
AG = "AG, private clip and centre"
METHODS = (*RANGES, AG)
DATA = ["gaussian", "t3", "cauchy", "outliers at 60"]
#: (data, d, n, epsilon).
CELLS = list(itertools.product(DATA, [5, 20, 30], [1000, 4000, 12000], [0.7, 2.0, 6.0]))
#: The ``--tiny`` run's cells (seconds, for the test suite).
TINY_CELLS = [("gaussian", 5, 1000, 6.0)]


def fit(method: str, X: np.ndarray, epsilon: float, seed: int) -> np.ndarray | None:
    """The directions of one method on ``X`` (None when refused before the charge)."""
    n, d = X.shape
    delta = 1.0 / n**2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # marks are read from the result
        if method == AG:
            return analyze_gauss(
                X, min(3, d), epsilon, delta, clip="private", center="private", random_state=seed
            ).components
        library_range = weights.ADAPTATION_RANGE
        weights.ADAPTATION_RANGE = RANGES[method]
        try:
            result = dp_loading(
                X,
                epsilon,
                delta,
                statistic="sscm",
                sampler="continuous",
                random_state=seed,
                progress=False,
            )
        except UnlocatableError:
            return None
        finally:
            weights.ADAPTATION_RANGE = library_range
    return result.directions


def evaluate(cell: tuple[str, int, int, float], reps: int) -> list[dict]:
    """Every method on the same ``reps`` samples and seeds of one cell."""
    data, d, n, epsilon = cell
    rng = np.random.default_rng([d, n, round(10 * epsilon), DATA.index(data), 36])
    rows = []
    for rep in range(reps):
        X, truth = draw(data, n, d, rng)
        seed = int(rng.integers(2**31))
        for method in METHODS:
            score = scored(fit(method, X, epsilon, seed), truth, (1, 3))
            facts = {"data": data, "d": d, "n": n, "epsilon": epsilon, "rep": rep}
            rows += [
                {**facts, "method": method, "k": k, "sin_theta": score[f"k{k}"]} for k in (1, 3)
            ]
    return rows


def ratio_band(n: int, d: int, epsilon: float) -> str:
    """The cell's band of ``n epsilon / d^1.5``, by where the ranges start and end."""
    ratio = n * epsilon / d**1.5
    edges = [50.0, 100.0, 400.0]
    labels = ["below 50", "50 to 100", "100 to 400", "400 and above"]
    return labels[int(np.searchsorted(edges, ratio, side="right"))]


def tally_table(verdicts: pd.DataFrame, against: list[str]) -> str:
    """Wins/ties/losses against each of ``against`` (verdicts' ``method``) by data and by the
    band of ``n epsilon / d^1.5``."""
    frame = verdicts[verdicts["method"].isin(against)].copy()
    frame["band"] = [ratio_band(r.n, r.d, r.epsilon) for r in frame.itertuples()]
    counts = {
        (data, band, method): tally(part)
        for (data, band, method), part in frame.groupby(["data", "band", "method"])
    }
    for method, part in frame.groupby("method"):
        counts[("all", "all", method)] = tally(part)
    table = pd.Series(counts).unstack()[against]
    return markdown_table(table.rename_axis(["data", "n epsilon / d^1.5"]).reset_index())


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells, reps = (TINY_CELLS, 3) if args.tiny else (CELLS, args.reps)
    jobs = [(cell, reps) for cell in cells]
    if args.tiny or args.workers == 1:
        found = [evaluate(*job) for job in jobs]
    else:
        with Pool(args.workers) as pool:
            found = pool.starmap(evaluate, jobs, chunksize=1)
    results = pd.DataFrame([row for rows in found for row in rows])
    label = "sscm_adaptation_tiny" if args.tiny else "sscm_adaptation"
    keys = ["data", "d", "n", "epsilon", "k"]
    summary = mean_intervals(results, [*keys, "method"], "sin_theta")
    summary["value"] = [
        f"{m:.4f} [{lo:.4f}, {hi:.4f}]" for m, lo, hi in summary[["mean", "low", "high"]].values
    ]
    means = summary.pivot(index=keys, columns="method", values="value")[list(METHODS)]
    others = [m for m in RANGES if m != LIBRARY]
    against_ag = pd.concat(
        paired_verdicts(results[results["method"].isin([m, AG])], m, keys, "sin_theta").assign(
            method=f"{m} vs AG"
        )
        for m in RANGES
    )
    library = paired_verdicts(results[results["method"] != AG], LIBRARY, keys, "sin_theta")
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / f"{label}.csv.gz", index=False)
    write_markdown(
        args.out / f"{label}.md",
        [
            "# Where the SSCM's weights start to adapt",
            script_intro(__doc__),
            f"{len(results) // 2} fits, {reps} repetitions per cell.",
            "## Each range against fair AG (wins, ties, losses of the SSCM over the cells)",
            tally_table(against_ag, [f"{m} vs AG" for m in RANGES]),
            "## The library's range against the others (wins, ties, losses of the library)",
            tally_table(library, others),
            "## Mean sin Theta [95 % interval]",
            markdown_table(means.reset_index()),
        ],
        started,
    )
    return results


if __name__ == "__main__":
    main()
