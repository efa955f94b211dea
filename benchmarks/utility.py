"""Utility of every private output on the embedded real data, against the non-private reference.

For each data set and total epsilon (delta 1e-7, the default split, k = min(10, p)), ``dp_pca``
runs over many seeds with its non-private reference, and each private output is compared with
its counterpart:

* scree: the largest PVE error over PC1-5 (against ordinary PCA's PVE over the same k) and the
  largest released scree value over ordinary PCA's largest eigenvalue;
* directions: sin Theta between the private and the ordinary-PCA top-2 subspaces;
* score histogram: the total variation distance between the private histogram and the
  reference histogram (ordinary-PCA scores on the private frame's grid), for the default
  thresholded histogram and for the sparse one; and, to separate the histogram's own noise
  from the difference of the directions, the distance to the empirical histogram of the
  scores on the private directions (``tv_noise``);
* groups: the distance between each group's centre of mass in the private and in the reference
  histogram, in units of the reference scores' sd, averaged over groups (and against the
  scores on the private directions, ``centre_noise``); and empty group histograms.

Tight against basic composition: the same seeds, data sets and totals with
``composition="tight"`` (the default: the releases planned so that the composition of their
privacy losses meets the total) and ``composition="basic"`` (the total cut into the split's
parts, which add up),
thresholded histograms, side by side: the medians of sin Theta, of the largest PVE error and of
the histogram distance, and the ratio of the directions' noise sd (tight over basic).

The demo's own configuration (Kidd panel, total epsilon 4) runs over 200 seeds against the goals
(largest PVE error over PC1-5: median <= 0.04 and none above 0.15; no scree value above 10 times
the largest eigenvalue; thresholded histogram distance <= 0.25; no empty group histogram), and
the same seed with the data in other units checks equivariance. Adult is scaled by public
ranges (age and hours per week by 100, education by 16, capital gain by 1e5, capital loss by
5e3), so that capital gain does not carry 99.7 % of the variance.

Usage: ``python benchmarks/utility.py [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import dp_pca
from dppca.baselines import sin_theta
from dppca.datasets import load_1kg_aisnps, load_adult, load_gau_g
from dppca.releases.histogram import cell_index, grid_cells

from _common import markdown_table, write_markdown

EPSILONS = [1.0, 2.0, 4.0, 8.0]
DELTA = 1e-7
ADULT_SCALES = np.array([100.0, 16.0, 1e5, 5e3, 100.0])
GOALS = {"pve_median": 0.04, "pve_max": 0.15, "scree_ratio": 10.0, "tv_median": 0.25}


def datasets(quick: bool) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    genotypes, labels = load_1kg_aisnps("kidd")
    sets = {"1000 Genomes Kidd": (genotypes.to_numpy(float), labels["superpopulation"].to_numpy())}
    if quick:
        return sets
    seldin, seldin_labels = load_1kg_aisnps("seldin")
    gau, gau_groups = load_gau_g()
    adult, adult_labels = load_adult()
    sets["1000 Genomes Seldin"] = (
        seldin.to_numpy(float),
        seldin_labels["superpopulation"].to_numpy(),
    )
    sets["gau_g"] = (gau.to_numpy(float), np.asarray(gau_groups))
    sets["Adult (public scales)"] = (
        adult.to_numpy(float) / ADULT_SCALES,
        adult_labels["income"].to_numpy(),
    )
    return sets


def _centres(table: pd.DataFrame) -> np.ndarray:
    prob = table["prob"].to_numpy()
    if prob.sum() <= 0:
        return np.full(2, np.nan)
    x = (table["xmin"] + table["xmax"]).to_numpy() / 2
    y = (table["ymin"] + table["ymax"]).to_numpy() / 2
    return np.array([x @ prob, y @ prob]) / prob.sum()


def measure(X, groups, epsilon, seed, score="thresholded", composition=None) -> dict[str, float]:
    """One release and its errors against the reference."""
    k = min(10, X.shape[1])
    levels = None if groups is None else sorted(set(groups))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dp_pca(
            X,
            epsilon,
            DELTA,
            groups=groups,
            random_state=seed,
            non_private=True,
            scree={"k": k},
            score={"method": score, "group_levels": levels},
            noise={"composition": composition},
        )
    reference = result.non_private
    tv = 0.5 * np.abs(result.histogram["prob"] - reference.histogram["prob"]).sum()
    axes = [result.axes[0] - 1, result.axes[1] - 1]
    scores = X @ result.directions[:, axes]
    cells = grid_cells(result.frame, result.bins)
    index = cell_index(scores, result.frame, result.bins)
    own = np.bincount(index, minlength=len(cells)) / len(X)
    row = {
        "pve_error": float(np.max(np.abs(result.pve[:5] - reference.pve[:5]))),
        "scree_ratio": float(result.scree.max() / reference.eigenvalues[0]),
        "sin_theta": float(sin_theta(result.directions[:, :2], reference.directions[:, :2])),
        "tv": float(tv),
        "tv_noise": float(0.5 * np.abs(result.histogram["prob"].to_numpy() - own).sum()),
        "warnings": len(caught),
        "warning_texts": " | ".join(str(w.message) for w in caught),
        "kendall_sigma": float(result.noise["kendall_sigma"]),
        "factor": float(result.settings["composition"]["factor"]),
    }
    if groups is not None:
        sd = np.sqrt(reference.scores[list(result.axis_labels)].var().mean())
        errors = [
            np.linalg.norm(_centres(result.groups[g]) - _centres(reference.groups[g])) / sd
            for g in levels
        ]
        row["group_centre"] = float(np.nanmean(errors))
        own_errors = []
        for g in levels:
            counts = np.bincount(index[groups == g], minlength=len(cells))
            truth = _centres(cells.assign(prob=counts / max(counts.sum(), 1)))
            own_errors.append(np.linalg.norm(_centres(result.groups[g]) - truth) / sd)
        row["centre_noise"] = float(np.nanmean(own_errors))
        row["empty_groups"] = int(sum(result.groups[g]["prob"].sum() == 0 for g in levels))
    return row


def study(sets, epsilons, seeds) -> pd.DataFrame:
    rows = []
    for name, (X, groups) in sets.items():
        methods = ["thresholded"] if name.startswith("Adult") else ["thresholded", "sparse"]
        for epsilon in epsilons:
            for score in methods:
                for seed in range(seeds):
                    row = measure(X, groups, epsilon, seed, score)
                    rows.append({"data": name, "epsilon": epsilon, "score": score, **row})
    return pd.DataFrame(rows)


def composition_study(sets, epsilons, seeds) -> pd.DataFrame:
    """Tight and basic composition on the same seeds (thresholded histograms)."""
    rows = []
    for name, (X, groups) in sets.items():
        for epsilon in epsilons:
            for seed in range(seeds):
                for composition in ("tight", "basic"):
                    row = measure(X, groups, epsilon, seed, composition=composition)
                    rows.append(
                        {"data": name, "epsilon": epsilon, "composition": composition, **row}
                    )
    return pd.DataFrame(rows)


def composition_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians side by side, and the directions' noise ratio and the factor."""
    medians = frame.pivot_table(
        index=["data", "epsilon"],
        columns="composition",
        values=["sin_theta", "pve_error", "tv", "kendall_sigma"],
        aggfunc="median",
        sort=False,
    )
    table = pd.DataFrame(
        {
            "factor": frame[frame["composition"] == "tight"]
            .groupby(["data", "epsilon"], sort=False)["factor"]
            .first(),
            "noise ratio": medians["kendall_sigma", "tight"] / medians["kendall_sigma", "basic"],
        }
    )
    for metric, label in (("sin_theta", "sin Θ"), ("pve_error", "PVE error"), ("tv", "TV")):
        for composition in ("tight", "basic"):
            table[f"{label} {composition}"] = medians[metric, composition]
    return table.reset_index()


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    grouped = frame.groupby(["data", "epsilon", "score"], sort=False)
    table = grouped.agg(
        runs=("pve_error", "size"),
        pve_median=("pve_error", "median"),
        pve_max=("pve_error", "max"),
        sin_theta_median=("sin_theta", "median"),
        tv_median=("tv", "median"),
        tv_max=("tv", "max"),
        tv_noise_median=("tv_noise", "median"),
        scree_ratio_max=("scree_ratio", "max"),
    )
    if "group_centre" in frame:
        table["group_centre_median"] = grouped["group_centre"].median()
        table["centre_noise_median"] = grouped["centre_noise"].median()
        table["empty_groups"] = grouped["empty_groups"].sum()
    return table.reset_index()


def demo_goals(seeds: int) -> pd.DataFrame:
    X, groups = datasets(True)["1000 Genomes Kidd"]
    frame = pd.DataFrame([measure(X, groups, 4.0, seed) for seed in range(seeds)])
    equivariance = []
    for seed in range(min(seeds, 5)):
        base = dp_pca(X, 4.0, DELTA, random_state=seed, scree={"k": 10})
        for factor in (1e-3, 1e3):
            scaled = dp_pca(X * factor, 4.0, DELTA, random_state=seed, scree={"k": 10})
            equivariance.append(
                max(
                    np.max(np.abs(scaled.scree / factor**2 - base.scree) / base.scree.max()),
                    abs(scaled.frame.half_width / factor - base.frame.half_width)
                    / base.frame.half_width,
                    np.max(np.abs(scaled.frame.center / factor - base.frame.center))
                    / base.frame.half_width,
                )
            )
    measured = {
        "pve_median": frame["pve_error"].median(),
        "pve_max": frame["pve_error"].max(),
        "scree_ratio": frame["scree_ratio"].max(),
        "tv_median": frame["tv"].median(),
    }
    rows = [
        {"goal": name, "limit": GOALS[name], "measured": value, "met": value <= GOALS[name]}
        for name, value in measured.items()
    ]
    rows.append(
        {
            "goal": "empty group histograms",
            "limit": 0,
            "measured": int(frame["empty_groups"].sum()),
            "met": frame["empty_groups"].sum() == 0,
        }
    )
    rows.append(
        {
            "goal": "equivariance x1e-3, x1e3 (largest relative difference)",
            "limit": 1e-9,
            "measured": max(equivariance),
            "met": max(equivariance) <= 1e-9,
        }
    )
    rows.append(
        {
            "goal": "runs with a warning",
            "limit": 0,
            "measured": int((frame["warnings"] > 0).sum()),
            "met": (frame["warnings"] == 0).all(),
        }
    )
    return pd.DataFrame(rows), frame


def main(argv=None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="Kidd only, epsilon 4, 5 seeds")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    seeds = 5 if args.quick else 50
    epsilons = [4.0] if args.quick else EPSILONS
    sets = datasets(args.quick)
    runs = study(sets, epsilons, seeds)
    table = summary(runs)
    composition_seeds = 3 if args.quick else 20
    compositions = composition_study(sets, epsilons, composition_seeds)
    goals, demo = demo_goals(10 if args.quick else 200)
    name = "utility_quick" if args.quick else "utility"
    runs.to_csv(out / f"{name}.csv.gz", index=False)
    compositions.to_csv(out / f"{name}_composition.csv.gz", index=False)
    return write_markdown(
        out / f"{name}.md",
        [
            f"# Utility of the private outputs on real data ({'quick' if args.quick else 'full'})",
            __doc__.split("\n\n", 1)[1].rsplit("\n\nUsage", 1)[0],
            f"## The demo's configuration against the goals ({len(demo)} seeds)",
            markdown_table(goals),
            f"## Every data set ({seeds} seeds per cell; delta {DELTA:g})",
            markdown_table(table),
            f"## Tight against basic composition ({composition_seeds} seeds per cell, the same "
            "for both; medians)",
            markdown_table(composition_summary(compositions)),
        ],
        start,
    )


if __name__ == "__main__":
    main()
