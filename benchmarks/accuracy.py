"""Simulation study: private PCA methods on spiked elliptical models (after Kim and Jung 2025).

Model: ``Sigma = lam U U' + I`` with ``m = 2`` spikes of strength ``lam = 10`` and ``U`` a random
orthonormal d x 2 matrix; rows ``x = mu + Sigma^(1/2) z / w`` with ``z`` standard normal and
``w = 1`` (Gaussian), ``w = sqrt(chi2_3 / 3)`` (multivariate t, 3 degrees of freedom) or
``w = |N(0,1)|`` (multivariate Cauchy); "outliers" is the Gaussian model with 5 % of rows replaced
by gross outliers (norm 1000, random directions). ``mu = 0`` (centred) or ``mu = 5`` in every
coordinate (shifted: clipping-based methods depend on the location, g-DPPCA does not).
delta = 1 / n^2. Error: the sine of the largest principal angle between the true and estimated
top-2 subspaces; each cell reports the mean and a 95 % interval of the mean over repetitions.

Public tuning of the baselines, and how a user would know it:
* clip norm (AG, projector PCA, diffprivlib, OpenDP): "guess" = 3 sqrt(d + 2 lam), three times
  the root-mean-square row norm of the centred Gaussian model (what a user who believes the
  data are Gaussian and centred would pick); "oracle" = the 95th percentile of the row norms of
  an independent sample from the true model (not available to a real user).
* eigen-gap (projector PCA): "oracle" = lam, "guess" = lam / 2.

Usage: ``python benchmarks/accuracy.py [--quick | --tiny] [--reps R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dppca.baselines import sin_theta

from _common import Stopped, markdown_table, methods, with_limit

LAMBDA = 10.0
SPIKES = 2
#: Seconds one fit may take before it is stopped and recorded as missing (NaN); the peers'
#: rejection samplers can run for minutes.
LIMIT = {"full": 60.0, "quick": 2.0, "tiny": 2.0}
DISTRIBUTIONS = ("gaussian", "t3", "cauchy", "outliers")
FULL = {
    "d": [10, 50],
    "n": [500, 1000, 2000, 5000, 10000, 20000],
    "epsilon": [0.5, 1, 2, 5],
    "shift": [0.0, 5.0],
    "reps": 50,
}
QUICK = {"d": [10], "n": [500, 2000, 5000], "epsilon": [1.0], "shift": [0.0, 5.0], "reps": 5}
TINY = {"d": [4], "n": [200], "epsilon": [2.0], "shift": [0.0], "reps": 2}


def sample(distribution: str, n: int, d: int, shift: float, rng: np.random.Generator):
    """Rows of the spiked model and its true spike subspace U (d x 2)."""
    U, _ = np.linalg.qr(rng.standard_normal((d, SPIKES)))
    z = rng.standard_normal((n, d)) + np.sqrt(LAMBDA) * rng.standard_normal((n, SPIKES)) @ U.T
    if distribution == "t3":
        z /= np.sqrt(rng.chisquare(3, size=(n, 1)) / 3)
    elif distribution == "cauchy":
        z /= np.abs(rng.standard_normal((n, 1)))
    elif distribution == "outliers":
        bad = rng.random(n) < 0.05
        directions = rng.standard_normal((int(bad.sum()), d))
        z[bad] = 1000.0 * directions / np.linalg.norm(directions, axis=1, keepdims=True)
    return z + shift, U


def run(grid: dict, limit: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d, n, epsilon, shift, distribution in itertools.product(
        grid["d"], grid["n"], grid["epsilon"], grid["shift"], DISTRIBUTIONS
    ):
        guess = 3.0 * np.sqrt(d + 2 * LAMBDA)
        start = time.perf_counter()
        for rep in range(grid["reps"]):
            X, U = sample(distribution, n, d, shift, rng)
            reference, _ = sample(distribution, 2000, d, shift, np.random.default_rng(rep))
            oracle = float(np.quantile(np.linalg.norm(reference, axis=1), 0.95))
            roster = methods(
                SPIKES,
                epsilon,
                1.0 / n**2,
                clip_norm=guess,
                eigengap=LAMBDA / 2,
                seed=int(rng.integers(2**31)),
            )
            oracle_roster = methods(
                SPIKES,
                epsilon,
                1.0 / n**2,
                clip_norm=oracle,
                eigengap=LAMBDA,
                seed=int(rng.integers(2**31)),
            )
            for name in ("AG", "projector PCA (SGPCA)", "diffprivlib PCA", "OpenDP PCA"):
                if name in oracle_roster:
                    roster[f"{name}, oracle tuning"] = oracle_roster[name]
            for name, method in roster.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        error = sin_theta(with_limit(lambda m=method, X=X: m(X), limit), U)
                    except Stopped:
                        error = float("nan")  # diffprivlib's sampler can run for minutes
                rows.append(
                    {
                        "d": d,
                        "n": n,
                        "epsilon": epsilon,
                        "shift": shift,
                        "distribution": distribution,
                        "rep": rep,
                        "method": name,
                        "sin_theta": error,
                    }
                )
        print(
            f"d={d} n={n} eps={epsilon} shift={shift} {distribution}: "
            f"{time.perf_counter() - start:.1f}s",
            flush=True,
        )
    return pd.DataFrame(rows)


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    groups = results.groupby(["d", "n", "epsilon", "shift", "distribution", "method"], sort=False)[
        "sin_theta"
    ]
    summary = groups.agg(["mean", "std", "count"]).reset_index()
    half = 1.96 * summary["std"] / np.sqrt(summary["count"])
    summary["95% interval"] = [
        f"[{lo:.3f}, {hi:.3f}]"
        for lo, hi in zip(summary["mean"] - half, summary["mean"] + half, strict=True)
    ]
    return summary.drop(columns=["std"])


def figures(summary: pd.DataFrame, folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    d, epsilon = summary["d"].min(), summary["epsilon"].min()
    for distribution in DISTRIBUTIONS:
        figure, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True, layout="constrained")
        for ax, shift in zip(axes, (0.0, 5.0), strict=True):
            part = summary[
                (summary["distribution"] == distribution)
                & (summary["d"] == d)
                & (summary["epsilon"] == epsilon)
                & (summary["shift"] == shift)
            ]
            colours = plt.get_cmap("tab20").colors
            for index, (name, line) in enumerate(part.groupby("method", sort=False)):
                ax.plot(
                    line["n"],
                    line["mean"],
                    marker="o",
                    label=name,
                    color=colours[index % len(colours)],
                    linestyle="--" if "oracle" in name else "-",
                    linewidth=3.0 if "ours" in name else 1.2,
                )
            ax.set(
                xscale="log",
                xlabel="n",
                ylabel="sin Theta (top-2 subspace)",
                title=f"{distribution}, centre {shift:g}",
                ylim=(0, 1.02),
            )
            ax.grid(True, color="0.9")
        axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        figure.suptitle(f"Error against n (d = {d}, epsilon = {epsilon:g}, delta = 1/n^2)")
        path = folder / f"accuracy_{distribution}.png"
        figure.savefig(path, dpi=90)
        plt.close(figure)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="d=10, 3 sizes, epsilon=1, 5 reps")
    mode.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    mode.add_argument("--replot", type=Path, help="only redraw the figures from a results CSV")
    parser.add_argument("--reps", type=int, help="override the repetitions")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    if args.replot:
        summary = summarise(pd.read_csv(args.replot))
        figures(summary, args.out)
        return summary
    grid = dict(TINY if args.tiny else QUICK if args.quick else FULL)
    if args.reps:
        grid["reps"] = args.reps
    start = time.perf_counter()
    label = "tiny" if args.tiny else "quick" if args.quick else "full"
    results = run(grid, LIMIT[label])
    summary = summarise(results)
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / f"accuracy_{label}.csv", index=False)
    if not args.tiny:
        figures(summary, args.out)
    elapsed = time.perf_counter() - start
    text = (
        f"# Accuracy ({label} run: {elapsed / 60:.1f} minutes)\n\n"
        f"Grid: {grid}. Mean sin Theta over repetitions, with a 95 % interval of the mean; a "
        f"fit running over {LIMIT[label]:g} s is stopped and left out (count).\n\n"
        + markdown_table(summary)
        + "\n"
    )
    (args.out / f"accuracy_{label}.md").write_text(text)
    print(text)
    return summary


if __name__ == "__main__":
    main()
