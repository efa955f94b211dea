"""Simulation study: private PCA methods on spiked elliptical models (after Kim and Jung 2025).

Model: ``Sigma = lam U U' + I`` with ``m = 2`` spikes of strength ``lam = 10`` and ``U`` a random
orthonormal d x 2 matrix; rows ``x = mu + Sigma^(1/2) z / w`` with ``z`` standard normal and
``w = 1`` (Gaussian), ``w = sqrt(chi2_3 / 3)`` (multivariate t, 3 degrees of freedom) or
``w = |N(0,1)|`` (multivariate Cauchy); "outliers" is the Gaussian model with 5 % of rows replaced
by gross outliers (norm 1000, random directions); "aligned 5%" and "aligned 10%" replace that
share of rows by outliers at distance 1000 along one fixed direction outside the spiked subspace
(plus standard normal noise). ``mu = 0`` (centred) or ``mu = 5`` in every
coordinate (shifted: clipping-based methods depend on the location, g-DPPCA does not).
delta = 1 / n^2. Error: the sine of the largest principal angle between the true and estimated
top-2 subspaces; each cell reports the mean and a 95 % interval of the mean over repetitions.

Public tuning of the baselines, and how a user would know it:
* clip norm (AG, projector PCA's truncation, diffprivlib's ``data_norm``, OpenDP's row norm):
  "guess" = 3 sqrt(d + 2 lam), three times the root-mean-square row norm of the centred Gaussian
  model (what a user who believes the data are Gaussian and centred would pick); "oracle" = the
  95th percentile of the row norms of an independent sample from the model's inliers (not
  available to a real user; the contamination is left out, so the oracle is never an outlier's
  norm); "private" (AG) = a private median of the row norms with 10 % of epsilon, the share
  g-DPPCA's automatic radius gets, optionally after the private centre the SSCM statistic
  uses (two log-grid medians, then clipped mean steps whose Gaussian noise shares one budget
  with AG's matrix); AG's matrix noise has sd sigma on the diagonal and sigma / sqrt 2 off it
  (the ``vecd`` release, as g-DPPCA's);
* diffprivlib's ``bounds`` (it spends budget on a private mean): (-clip norm, clip norm) in every
  coordinate, the same guess or oracle;
* eigen-gap (projector PCA, Gaussian mechanism on the spectral projector with the worst-case
  sensitivity, about ``sqrt(2) T^2 / (n gap)`` for a truncation ``T``): "guess" = lam / 2. Its
  guarantee needs ``gap`` below the sample's eigen-gap, which lam exceeds in most samples, so
  no "oracle" variant is run (its privacy would be void);
* SGPCA (:func:`dppca.baselines.sgpca`, the form of Cai, Xia and Zha 2024) is told the Gaussian
  model's true parameters (two spikes of lam, noise variance 1): an oracle no user has. On the
  t3, Cauchy and contaminated data the model does not hold, so neither does its guarantee;
  it runs with and without private centring (half of epsilon). Its sensitivity comes from
  bounds that every row and the sample eigen-gap meet with probability 1 - delta / 2; a third
  run, "rate constants (no guarantee)", uses the first-order sensitivity at the row sizes a
  Gaussian row exceeds with probability 1 / n and the population gap (the order of the
  authors' bound with unit constants, 4.3 times smaller at d = 10, n = 2000): what SGPCA
  could reach if its constants were that small, with no privacy guarantee established;
* NSGGD and g-DPPCA need no tuning: NSGGD normalises rows to the unit sphere about the origin
  (optionally after private coordinate-wise median centring with half of epsilon) and takes 50
  steps with its authors' shrinking rule (step 1, divided by 10 after 25 steps); g-DPPCA's
  signs are bounded by construction and its winsorization radius is a private quantile
  (``radius="auto"``); the SSCM (``statistic="sscm"``) locates its own centre. Both run with
  ``sampler="continuous"``.

Usage: ``python benchmarks/accuracy.py [--quick | --tiny] [--reps R] [--workers W] [--out DIR]``;
``--replot DIR/accuracy_full.csv.gz`` redraws the figures and rewrites the summary from saved
results.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from dppca import kendall_matrix
from dppca.baselines import SpikedModel

from _common import (
    Stopped,
    markdown_table,
    mean_intervals,
    methods,
    paired_verdicts,
    provenance,
    scored,
    script_intro,
    spherical_releases,
    tally,
    with_limit,
    with_tails,
)

LAMBDA = 10.0
SPIKES = 2
DISTRIBUTIONS = ("gaussian", "t3", "cauchy", "outliers", "aligned 5%", "aligned 10%")
#: The share of rows an "aligned" contamination replaces.
ALIGNED = {"aligned 5%": 0.05, "aligned 10%": 0.10}
#: The peers run by adapters (their samplers' run times are random and long): run in forked
#: children, stopped after ``limit`` seconds and then recorded as missing; after three stops in
#: one cell (d, n, distribution, centre, epsilon, tuning) a peer is not run again there.
LIBRARY_PEERS = ("diffprivlib PCA", "OpenDP PCA")
STRIKES = 3
FULL = {
    "d": [10, 50],
    "n": [500, 1000, 2000, 5000, 20000],
    "epsilon": [0.5, 1.0, 2.0, 5.0],
    "shift": [0.0, 5.0],
    "reps": 50,
    "limit": 2.0,
    # diffprivlib needs minutes per fit at d = 50 and OpenDP seconds at d = 10 (speed.md):
    "library_peers": {"d": [10], "n": [500, 2000, 5000], "reps": 10},
}
QUICK = {
    "d": [10],
    "n": [500, 2000, 5000],
    "epsilon": [1.0],
    "shift": [0.0, 5.0],
    "reps": 5,
    "limit": 2.0,
    "library_peers": {"d": [10], "n": [500, 2000, 5000], "reps": 5},
}
TINY = {
    "d": [4],
    "n": [400],
    "epsilon": [2.0],
    "shift": [0.0],
    "reps": 2,
    "limit": 2.0,
    "library_peers": {"d": [], "n": [], "reps": 0},
}


def sample(distribution: str, n: int, d: int, shift: float, rng: np.random.Generator):
    """Rows of the spiked model and its true spike subspace U (d x 2)."""
    U, _ = np.linalg.qr(rng.standard_normal((d, SPIKES)))
    z = rng.standard_normal((n, d)) + np.sqrt(LAMBDA) * rng.standard_normal((n, SPIKES)) @ U.T
    z = with_tails(z, distribution, rng)
    if distribution == "outliers":
        bad = rng.random(n) < 0.05
        directions = rng.standard_normal((int(bad.sum()), d))
        z[bad] = 1000.0 * directions / np.linalg.norm(directions, axis=1, keepdims=True)
    elif distribution in ALIGNED:
        # Outliers along one fixed direction outside the spiked subspace, far out: they pull
        # any second-moment estimator (clipped about the origin or not) towards that direction.
        v = rng.standard_normal(d)
        v -= U @ (U.T @ v)
        v /= np.linalg.norm(v)
        bad = rng.random(n) < ALIGNED[distribution]
        z[bad] = 1000.0 * v + rng.standard_normal((int(bad.sum()), d))
    return z + shift, U


def inliers(distribution: str) -> str:
    """The model without its contamination: what an oracle's quantiles are taken from."""
    return "gaussian" if distribution == "outliers" or distribution in ALIGNED else distribution


def evaluate_cell(grid: dict, d: int, n: int, distribution: str, seed: int) -> pd.DataFrame:
    """Every repetition of one (d, n, distribution) cell, at every centre, budget and method.

    Each repetition draws one sample; its centred and shifted copies and every epsilon use it
    (common random numbers, so the comparisons between settings are paired).
    """
    peers = grid["library_peers"]
    peer_reps = peers["reps"] if d in peers["d"] and n in peers["n"] else 0
    strikes: dict[tuple, int] = {}
    rng = np.random.default_rng([seed, d, n, DISTRIBUTIONS.index(distribution)])
    guess = 3.0 * np.sqrt(d + 2 * LAMBDA)
    model = SpikedModel((LAMBDA,) * SPIKES, 1.0)  # the Gaussian model's (oracle) parameters
    only = grid.get("only")

    def wanted(name: str) -> bool:
        return only is None or any(name.startswith(prefix) for prefix in only)

    rows = []
    for rep in range(grid["reps"]):
        centred, U = sample(distribution, n, d, 0.0, rng)
        for shift in grid["shift"]:
            X = centred + shift
            reference, _ = sample(inliers(distribution), 2000, d, shift, np.random.default_rng(rep))
            oracle = float(np.quantile(np.linalg.norm(reference, axis=1), 0.95))
            spherical = [name for name in ("g-DPPCA spherical",) if wanted(name)]
            kendall = kendall_matrix(X) if spherical else None
            for epsilon in grid["epsilon"]:
                delta = 1.0 / n**2
                seeds = rng.integers(2**31, size=3)
                roster = methods(
                    SPIKES,
                    epsilon,
                    delta,
                    clip_norm=guess,
                    eigengap=LAMBDA / 2,
                    seed=seeds[0],
                    model=model,
                )
                oracle_roster = methods(
                    SPIKES, epsilon, delta, clip_norm=oracle, eigengap=LAMBDA / 2, seed=seeds[1]
                )
                for name in ("AG", *LIBRARY_PEERS):
                    if name in oracle_roster:
                        roster[f"{name}, oracle tuning"] = oracle_roster[name]
                if kendall is not None:
                    roster.update(
                        spherical_releases(kendall, n, SPIKES, epsilon, delta, int(seeds[2]))
                    )
                roster = {name: method for name, method in roster.items() if wanted(name)}
                for name, method in roster.items():
                    library = name.split(",")[0] in LIBRARY_PEERS
                    cell = (shift, epsilon, name)
                    if library and (rep >= peer_reps or strikes.get(cell, 0) >= STRIKES):
                        continue
                    start = time.perf_counter()
                    outcome = "released"
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            if library:
                                components = with_limit(lambda m=method, X=X: m(X), grid["limit"])
                            else:
                                components = method(X)
                            score = scored(components, U, (SPIKES,))
                            error, outcome = score[f"k{SPIKES}"], score["outcome"]
                        except Stopped:
                            strikes[cell] = strikes.get(cell, 0) + 1
                            error, outcome = float("nan"), "stopped"
                        except ValueError:
                            # SGPCA refuses a model whose eigen-gap its tail bounds cannot
                            # protect at this n (the tiny grid); any other method re-raises.
                            if not name.startswith("SGPCA"):
                                raise
                            error, outcome = float("nan"), "refused"
                    rows.append(
                        {
                            "d": d,
                            "n": n,
                            "epsilon": epsilon,
                            "delta": delta,
                            "shift": shift,
                            "distribution": distribution,
                            "rep": rep,
                            "method": name,
                            "sin_theta": error,
                            "outcome": outcome,
                            "seconds": time.perf_counter() - start,
                        }
                    )
    return pd.DataFrame(rows)


def _single_threaded() -> None:
    threadpool_limits(1)  # two workers on two cores: one BLAS thread each


def run(grid: dict, seed: int = 0, workers: int = 1, checkpoint: Path | None = None):
    """All cells, the largest first, in ``workers`` processes; finished cells are appended to
    ``checkpoint`` (a CSV) and skipped when the run is resumed."""
    cells = sorted(
        itertools.product(grid["d"], grid["n"], DISTRIBUTIONS),
        key=lambda cell: -cell[0] * cell[1] ** 2,
    )
    parts = []
    if checkpoint is not None and checkpoint.exists():
        done = pd.read_csv(checkpoint)
        parts.append(done)
        finished = set(done[["d", "n", "distribution"]].itertuples(index=False, name=None))
        cells = [cell for cell in cells if cell not in finished]

    def keep(cell: tuple, part: pd.DataFrame) -> None:
        parts.append(part)
        if checkpoint is not None:
            part.to_csv(checkpoint, mode="a", header=not checkpoint.exists(), index=False)
        d, n, distribution = cell
        print(f"d={d} n={n} {distribution}: {part['seconds'].sum():.0f} s of fits", flush=True)

    if workers == 1:
        for cell in cells:
            keep(cell, evaluate_cell(grid, *cell, seed))
    else:
        with concurrent.futures.ProcessPoolExecutor(workers, initializer=_single_threaded) as pool:
            futures = {pool.submit(evaluate_cell, grid, *cell, seed): cell for cell in cells}
            for future in concurrent.futures.as_completed(futures):
                keep(futures[future], future.result())
    return pd.concat(parts, ignore_index=True)


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Per cell and method: mean sin Theta, the fits that finished, and a 95 % interval of the
    mean (:func:`_common.mean_intervals`)."""
    return mean_intervals(
        results, ["d", "n", "epsilon", "shift", "distribution", "method"], "sin_theta"
    )


OURS = "g-DPPCA spherical (ours)"


def head_to_head(results: pd.DataFrame) -> pd.DataFrame:
    """g-DPPCA against each other method, cell by cell (d, n, epsilon, centre, distribution),
    on the same samples: the mean paired difference of sin Theta with a 95 % Student t
    interval. g-DPPCA wins a cell when the interval lies below 0, loses it when above, and
    ties otherwise. Returns ``wins/ties/losses`` per method and distribution, and in all."""
    keys = ["d", "n", "epsilon", "shift", "distribution"]
    verdicts = paired_verdicts(results, OURS, keys, "sin_theta")

    table = verdicts.groupby(["method", "distribution"], sort=False).apply(tally).unstack()
    table = table[[d for d in DISTRIBUTIONS if d in table.columns]]
    table["all"] = verdicts.groupby("method", sort=False).apply(tally)
    return table.reset_index()


def _headline_epsilon(summary: pd.DataFrame) -> float:
    values = sorted(summary["epsilon"].unique())
    return 1.0 if 1.0 in values else values[0]


#: The methods the figures draw (every variant is in the tables): one colour per family (blues
#: for g-DPPCA), dash-dot for a baseline run after private centring, dashed for an oracle, dotted
#: for the non-private ceiling. Guessed and oracle clips, and SGPCA's other variants, are left
#: out of the figures to keep them legible.
STYLES = {
    "g-DPPCA spherical (ours)": ("#08306b", "-"),
    "g-DPPCA spherical, paper calibration": ("#6baed6", "-"),
    "g-DPPCA winsorized, auto radius": ("#2171b5", "-"),
    "AG, private clip": ("tab:orange", "-"),
    "AG, private clip and centre": ("tab:orange", "-."),
    "SSCM, private centre (ours)": ("#cb181d", "-"),
    "NSGGD": ("tab:green", "-"),
    "NSGGD, private centre": ("tab:green", "-."),
    "SGPCA, oracle model": ("tab:purple", "--"),
    "projector PCA": ("tab:pink", "-"),
    "diffprivlib PCA": ("tab:red", "-"),
    "OpenDP PCA": ("tab:brown", "-"),
    "PCA (non-private)": ("0.35", ":"),
}


def _line_style(name: str) -> dict:
    colour, linestyle = STYLES[name]
    return {
        "color": colour,
        "linestyle": linestyle,
        "linewidth": 3.0 if "ours" in name else 1.3,
        "marker": "o",
        "markersize": 3.5,
    }


def figures(summary: pd.DataFrame, folder: Path, label: str) -> list[Path]:
    """One figure per distribution: error against n, one line per method, panels d x centre at
    the headline epsilon; and, with several budgets, one figure of error against epsilon at the
    middle n (``accuracy_LABEL_NAME.png``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epsilon = _headline_epsilon(summary)
    dims, shifts = sorted(summary["d"].unique()), sorted(summary["shift"].unique())
    paths = []

    def finish(figure, axes, title: str, name: str) -> None:
        handles, labels = axes.flat[0].get_legend_handles_labels()
        figure.legend(handles, labels, fontsize=7, loc="outside right upper", frameon=False)
        figure.suptitle(title)
        path = folder / f"accuracy_{label}_{name}.png"
        figure.savefig(path, dpi=90)
        plt.close(figure)
        paths.append(path)

    for distribution in DISTRIBUTIONS:
        figure, axes = plt.subplots(
            len(dims),
            len(shifts),
            figsize=(5.2 * len(shifts) + 3, 3.6 * len(dims)),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for (d, shift), ax in zip(itertools.product(dims, shifts), axes.flat, strict=True):
            part = summary[
                (summary["distribution"] == distribution)
                & (summary["d"] == d)
                & (summary["epsilon"] == epsilon)
                & (summary["shift"] == shift)
            ]
            for name, line in part[part["method"].isin(STYLES)].groupby("method", sort=False):
                ax.plot(line["n"], line["mean"], label=name, **_line_style(name))
            ax.set(xscale="log", xlabel="n", ylabel="sin Theta (top-2 subspace)", ylim=(0, 1.02))
            ax.set_title(f"d = {d}, centre {shift:g}", fontsize=10)
            ax.grid(True, color="0.9")
        finish(
            figure,
            axes,
            f"{distribution}: error against n (epsilon = {epsilon:g}, delta = 1/n^2)",
            distribution.replace("%", "").replace(" ", "_"),  # aligned_5, a file name
        )

    budgets = sorted(summary["epsilon"].unique())
    if len(budgets) == 1:
        return paths
    sizes = sorted(summary["n"].unique())
    n, d = sizes[len(sizes) // 2], dims[0]
    figure, axes = plt.subplots(
        len(shifts),
        len(DISTRIBUTIONS),
        figsize=(4 * len(DISTRIBUTIONS) + 3, 3.6 * len(shifts)),
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for (shift, distribution), ax in zip(
        itertools.product(shifts, DISTRIBUTIONS), axes.flat, strict=True
    ):
        part = summary[
            (summary["distribution"] == distribution)
            & (summary["d"] == d)
            & (summary["n"] == n)
            & (summary["shift"] == shift)
        ]
        for name, line in part[part["method"].isin(STYLES)].groupby("method", sort=False):
            ax.plot(line["epsilon"], line["mean"], label=name, **_line_style(name))
        ax.set(xscale="log", xlabel="epsilon", ylabel="sin Theta", ylim=(0, 1.02))
        ax.set_xticks(budgets, [f"{value:g}" for value in budgets])
        ax.minorticks_off()
        ax.set_title(f"{distribution}, centre {shift:g}", fontsize=10)
        ax.grid(True, color="0.9")
    finish(
        figure,
        axes,
        f"Error against epsilon (d = {d}, n = {n}, delta = 1/n^2)",
        "epsilon",
    )
    return paths


def _entry(mean: float, low: float, high: float, count: int, runs: int) -> str:
    """``mean [low, high]``, with ``(finished/attempted)`` when fits are missing."""
    if count == 0:
        return f"missing ({count}/{runs})"
    text = f"{mean:.3f}" + (f" [{low:.3f}, {high:.3f}]" if count > 1 else "")
    return text + ("" if count == runs else f" ({count}/{runs})")


def pivot_table(summary: pd.DataFrame, d: int, n: int, epsilon: float) -> str:
    """Methods by (distribution, centre): ``mean [low, high]`` at one (d, n, epsilon)."""
    part = summary[(summary["d"] == d) & (summary["n"] == n) & (summary["epsilon"] == epsilon)]
    if part.empty:
        return ""
    cells = part.assign(
        column=part["distribution"] + ", centre " + part["shift"].map("{:g}".format),
        value=[
            _entry(*values)
            for values in part[["mean", "low", "high", "count", "runs"]].itertuples(index=False)
        ],
    )
    table = cells.pivot(index="method", columns="column", values="value")
    table = table.reindex(
        index=list(dict.fromkeys(part["method"])),
        columns=sorted(  # the distributions in their fixed order, centred first
            dict.fromkeys(cells["column"]),
            key=lambda column: (DISTRIBUTIONS.index(column.split(", centre")[0]), column),
        ),
    )
    return markdown_table(table.reset_index().fillna("not run"))


def _commits(run_facts: dict) -> str:
    """The commit the run was made at, and that of the methods ``--only`` ran again."""
    text = f"Run at commit {run_facts.get('commit', 'not recorded')}"
    if added := run_facts.get("added"):
        rerun = ", ".join(added["methods"])
        text += f"; {rerun} run again at commit {added.get('commit', 'not recorded')}"
    return text + "."


def report(summary: pd.DataFrame, run_facts: dict, label: str, duels: pd.DataFrame) -> str:
    """The Markdown summary: how the run was made, the head-to-head tally, then one table per
    (d, n, epsilon) shown."""
    grid = run_facts["grid"]
    epsilon = _headline_epsilon(summary)
    sizes = sorted(summary["n"].unique())
    dims = sorted(summary["d"].unique())
    lines = [
        f"# Accuracy ({label} run)",
        "",
        f"Wall time {run_facts['minutes']:.1f} minutes on {grid['workers']} worker(s) "
        f"({run_facts['fit_hours']:.2f} hours of fits)"
        + (" for the cells left after a resumed checkpoint." if run_facts["resumed"] else "."),
        "",
        _commits(run_facts),
        "",
        f"Grid: d {grid['d']}, n {grid['n']}, epsilon {grid['epsilon']}, delta = 1/n^2, centre "
        f"{grid['shift']}, distributions {list(DISTRIBUTIONS)}, {grid['reps']} repetitions. "
        f"diffprivlib and OpenDP: d {grid['library_peers']['d']}, n "
        f"{grid['library_peers']['n']}, the first {grid['library_peers']['reps']} repetitions, "
        f"each fit stopped after {grid['limit']:g} s (then missing) and a peer not run again in "
        f"a cell after {STRIKES} stops.",
        "",
        "Each entry: mean sin Theta between the true and the estimated top-2 subspaces, a 95 % "
        "interval of the mean, and (finished/attempted) when some fits are missing (stopped "
        "by the time limit, or refused: SGPCA when its tail bounds leave no eigen-gap); a "
        "release marked unusable (the SSCM's centre beyond its steps' reach, NaN directions) "
        "scores the worst error, 1. Every "
        "cell is in `accuracy_"
        + label
        + "_summary.csv`, every fit in `accuracy_"
        + label
        + ".csv"
        + ("" if label == "tiny" else ".gz")
        + "`.",
        "",
        "## Model and tuning",
        "",
        script_intro(__doc__),
        "",
        "## Head to head",
        "",
        f"{OURS} against each method in every cell (d, n, epsilon, centre) of each "
        "distribution, on the same samples: wins/ties/losses of g-DPPCA, by a 95 % interval "
        "of the mean paired difference in sin Theta.",
        "",
        markdown_table(duels),
    ]
    shown = [(d, n, epsilon) for d in dims for n in dict.fromkeys([sizes[0], sizes[-1]])]
    shown += [(dims[0], sizes[len(sizes) // 2], e) for e in sorted(summary["epsilon"].unique())]
    for d, n, eps in dict.fromkeys(shown):
        lines += [
            "",
            f"## d = {d}, n = {n}, epsilon = {eps:g}",
            "",
            pivot_table(summary, d, n, eps),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="d=10, 3 sizes, epsilon=1, 5 reps")
    mode.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    mode.add_argument("--replot", type=Path, help="only redraw the figures from a results CSV")
    parser.add_argument("--reps", type=int, help="override the repetitions")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--only",
        help="comma-separated method-name prefixes: run only these, on the same samples and "
        "seeds, and add their rows to (or replace them in) DIR/accuracy_LABEL.csv.gz, or "
        "write it when there is none",
    )
    args = parser.parse_args(argv)
    if args.replot:
        return rewrite(args.replot)
    label = "tiny" if args.tiny else "quick" if args.quick else "full"
    grid = dict(TINY if args.tiny else QUICK if args.quick else FULL)
    grid["workers"] = 1 if args.tiny else args.workers
    if args.reps:
        grid["reps"] = args.reps
    if args.only:
        grid["only"] = [prefix.strip() for prefix in args.only.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    part = "_only" if args.only else ""
    checkpoint = args.out / f"accuracy_{label}{part}.partial.csv"
    resumed = checkpoint.exists()
    start = time.perf_counter()
    results = run(grid, workers=grid["workers"], checkpoint=checkpoint)
    raw = args.out / (f"accuracy_{label}.csv" + ("" if args.tiny else ".gz"))
    facts_file = args.out / f"accuracy_{label}_run.json"
    facts = {
        "grid": grid,
        "minutes": (time.perf_counter() - start) / 60,
        "fit_hours": results["seconds"].sum() / 3600,
        "resumed": resumed,
        "commit": provenance(),
    }
    if args.only and raw.exists():
        earlier = pd.read_csv(raw)
        added = results["method"].unique()
        results = pd.concat([earlier[~earlier["method"].isin(added)], results], ignore_index=True)
        facts = {**json.loads(facts_file.read_text()), "added": {"methods": list(added), **facts}}
    results.to_csv(raw, index=False)
    checkpoint.unlink()
    facts_file.write_text(json.dumps(facts, indent=1) + "\n")
    return rewrite(raw, figures_too=not args.tiny)


def rewrite(raw: Path, figures_too: bool = True) -> pd.DataFrame:
    """Summary CSV, figures and Markdown report from saved results (``accuracy_LABEL.csv[.gz]``
    next to ``accuracy_LABEL_run.json``)."""
    label = raw.name.split(".")[0].removeprefix("accuracy_")
    results = pd.read_csv(raw)
    summary = summarise(results)
    summary.to_csv(raw.parent / f"accuracy_{label}_summary.csv", index=False)
    if figures_too:
        figures(summary, raw.parent, label)
    facts = json.loads((raw.parent / f"accuracy_{label}_run.json").read_text())
    text = report(summary, facts, label, head_to_head(results))
    (raw.parent / f"accuracy_{label}.md").write_text(text)
    print(text)
    return summary


if __name__ == "__main__":
    main()
