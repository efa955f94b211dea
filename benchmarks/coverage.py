"""Do the noise intervals cover? Coverage of ``result.uncertainty()`` on small and tied data.

For each data set (scikit-learn's iris, wine, breast cancer and diabetes tables, unscaled; two
pairs of equal spikes, 3000 x 6 with sd 2, 2, 1, 1, 0.5, 0.5), each total epsilon (1, 4, 8;
delta 1e-6, k = min(10, p), ``on_weak="release"`` so that every cell releases) and several
seeds, ``dp_pca`` releases and ``uncertainty(draws=200)`` gives 95 % intervals. Each is
compared with its noiseless value, the same computation without noise on the same data:

* loadings: the eigenvectors of the noiseless Kendall matrix (sign-aligned), for the
  identified components (the others' intervals are the whole range ``[-1, 1]``);
* scree and PVE: the clipped means of the same pairs at the released clip level, without the
  noise (read at the release by wrapping the clipped scree's column means), fitted as the
  release is.

A scree marked unusable (NaN, with its reason) has no intervals and is counted apart. The
intervals describe the privacy noise only, so no sampling error enters the target.

Usage: ``python benchmarks/coverage.py [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn import datasets as sklearn_datasets

import dppca.releases.scree.clipped as scree_module
from dppca import dp_pca, kendall_matrix
from dppca.numerics.linalg import descending_eigh
from dppca.numerics.monotone import antitonic, proportions

from _common import markdown_table, write_markdown

EPSILONS = [1.0, 4.0, 8.0]
DELTA = 1e-6
LEVEL = 0.95


def datasets() -> dict[str, Callable[[], np.ndarray]]:
    """The data sets, loaded when used."""

    def spikes() -> np.ndarray:
        rng = np.random.default_rng(0)
        return rng.standard_normal((3000, 6)) * [2.0, 2.0, 1.0, 1.0, 0.5, 0.5]

    return {
        "iris (150 x 4)": lambda: sklearn_datasets.load_iris().data,
        "wine (178 x 13)": lambda: sklearn_datasets.load_wine().data,
        "diabetes (442 x 10)": lambda: sklearn_datasets.load_diabetes().data,
        "breast cancer (569 x 30)": lambda: sklearn_datasets.load_breast_cancer().data,
        "two equal spikes (3000 x 6)": spikes,
    }


class NoiselessMeans:
    """Wraps the scree's column means to keep the last noiseless means it computed."""

    def __init__(self) -> None:
        self.original = scree_module.column_means
        self.last: np.ndarray | None = None

    def __call__(self, values: object) -> np.ndarray:
        means = self.original(values)
        self.last = np.array(means, dtype=np.float64)
        return means


def measure(
    X: np.ndarray, noiseless: np.ndarray, means: NoiselessMeans, epsilon: float, seed: int
) -> list[dict[str, object]]:
    """One release: a row per component with its coverage and widths."""
    k = min(10, X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dp_pca(
            X,
            epsilon,
            DELTA,
            on_weak="release",
            random_state=seed,
            scree={"k": k},
            score={"bins": 5},
            noise={"sampler": "continuous"},
        )
    assert means.last is not None
    raw = means.last[:k] * result.settings["scree_details"]["clip"]
    target = antitonic(raw) if result.settings["mono"] else np.maximum(raw, 0.0)
    shares = proportions(target)
    bands = result.uncertainty(draws=200, level=LEVEL, random_state=seed + 10_000)
    signs = np.where(np.einsum("ij,ij->j", noiseless, result.directions) < 0, -1.0, 1.0)
    truth = (noiseless * signs)[:, :k]
    lower = bands.loadings["lower"].to_numpy().reshape(-1, k)
    upper = bands.loadings["upper"].to_numpy().reshape(-1, k)
    scree, pve = bands.scree, bands.pve
    usable = bool(result.status["scree"].usable)
    rows = []
    for j in range(k):
        rows.append(
            {
                "component": j + 1,
                "identified": bool(bands.stability["identified"].iloc[j]),
                "loading": float(
                    np.mean((lower[:, j] <= truth[:, j]) & (truth[:, j] <= upper[:, j]))
                ),
                "loading width": float(np.mean(upper[:, j] - lower[:, j])),
                "scree usable": usable,
                "scree": bool(scree["lower"].iloc[j] <= target[j] <= scree["upper"].iloc[j]),
                "pve": bool(
                    pve["lower"].iloc[j] - 1e-12 <= shares[j] <= pve["upper"].iloc[j] + 1e-12
                ),
                "pve width": float(pve["upper"].iloc[j] - pve["lower"].iloc[j]),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds, epsilon 4")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = parser.parse_args(argv)
    seeds = 3 if args.quick else 40
    epsilons = [4.0] if args.quick else EPSILONS
    started = time.perf_counter()
    means = NoiselessMeans()
    scree_module.column_means = means  # type: ignore[assignment]
    rows = []
    try:
        for name, load in datasets().items():
            X = load()
            noiseless = descending_eigh(kendall_matrix(X))[1]
            for epsilon in epsilons:
                for seed in range(seeds):
                    for row in measure(X, noiseless, means, epsilon, seed):
                        rows.append({"data": name, "epsilon": epsilon, "seed": seed, **row})
    finally:
        scree_module.column_means = means.original
    runs = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = "coverage_quick" if args.quick else "coverage"
    runs.to_csv(out / f"{stem}.csv.gz", index=False)
    keys = ["data", "epsilon"]
    identified = runs[runs["identified"]]
    loadings = identified.groupby(keys).agg(
        components=("loading", "size"),
        coverage=("loading", "mean"),
        width=("loading width", "mean"),
    )
    loadings["not identified"] = runs[~runs["identified"]].groupby(keys).size()
    usable = runs[runs["scree usable"]]
    scree = usable.groupby(keys).agg(
        releases=("seed", "nunique"),
        scree=("scree", "mean"),
        pve=("pve", "mean"),
        pve_width=("pve width", "median"),
    )
    scree["scree unusable (runs)"] = (
        runs[~runs["scree usable"]].groupby(keys)["seed"].nunique().reindex(scree.index)
    )
    return write_markdown(
        out / f"{stem}.md",
        [
            "# Coverage of the noise intervals\n\n"
            + __doc__.split("\n\n", 1)[1].split("Usage")[0].strip(),
            f"{seeds} seeds per cell; epsilon {', '.join(f'{e:g}' for e in epsilons)}; "
            f"delta {DELTA:g}; {LEVEL:.0%} intervals.",
            "## Loadings of identified components (share of entries covered, mean width)\n\n"
            + markdown_table(loadings.reset_index()),
            "## Scree and PVE (share of components covered; median PVE width)\n\n"
            + markdown_table(scree.reset_index()),
        ],
        started,
    )


if __name__ == "__main__":
    main()
