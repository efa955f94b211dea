"""Real data: 1000 Genomes ancestry SNPs (by superpopulation) and UCI Adult (by income).

For each epsilon, every method's top-2 private subspace is compared with ordinary PCA's
(sin Theta), and the separation of the groups on the method's two directions is measured by the
silhouette score of the projected rows (an evaluation on the true data, not a release). For
g-DPPCA the private score histogram by group is also released (dp_pca with a third of the budget
each for directions, scree and scores) and the silhouette of synthetic points drawn from it is
reported. A figure shows the private group histograms next to the non-private ones.

Usage: ``python benchmarks/real_data.py [--quick | --tiny] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import silhouette_score

from dppca import dp_pca, sample_scores
from dppca.baselines import sin_theta, sklearn_pca
from dppca.datasets import load_1kg_aisnps, load_adult

from _common import Stopped, markdown_table, methods, with_limit

EPSILONS = [0.5, 1.0, 2.0, 5.0]


def datasets(tiny: bool):
    genotypes, labels = load_1kg_aisnps("kidd")
    adult, adult_labels = load_adult()
    sets = {
        "1000 Genomes (Kidd)": (genotypes.to_numpy(float), labels["superpopulation"].to_numpy()),
        "Adult": (adult.to_numpy(float), adult_labels["income"].to_numpy()),
    }
    if tiny:
        rng = np.random.default_rng(0)
        sets = {
            name: (X[idx], y[idx])
            for name, (X, y) in sets.items()
            for idx in [rng.choice(len(X), 400, replace=False)]
        }
    return sets


def _silhouette(points: np.ndarray, labels: np.ndarray, rng) -> float:
    if len(points) > 3000:
        keep = rng.choice(len(points), 3000, replace=False)
        points, labels = points[keep], labels[keep]
    if len(np.unique(labels)) < 2:
        return float("nan")
    return float(silhouette_score(points, labels))


def run(epsilons, tiny: bool, folder: Path) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for data_name, (X, labels) in datasets(tiny).items():
        n, d = X.shape
        reference = sklearn_pca(X, 2)
        clip = float(3 * np.sqrt(np.trace(np.cov(X, rowvar=False))))  # a generous public guess
        for epsilon in epsilons:
            delta = 1.0 / n**2
            roster = methods(
                2, epsilon, delta, clip_norm=clip, eigengap=1.0, seed=int(rng.integers(2**31))
            )
            for name, method in roster.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        V = with_limit(lambda m=method, X=X: m(X), 60.0)
                    except Stopped:
                        continue
                rows.append(
                    {
                        "data": data_name,
                        "epsilon": epsilon,
                        "method": name,
                        "sin_theta_vs_pca": sin_theta(V, reference),
                        "silhouette (projected rows)": _silhouette(X @ V, labels, rng),
                        "silhouette (synthetic points)": float("nan"),
                    }
                )
            result = dp_pca(
                X,
                epsilon * 3,
                3 * delta,
                k=min(5, d),
                groups=labels,
                bins=15,
                random_state=int(rng.integers(2**31)),
                non_private=True,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                points = sample_scores(result, n=min(n, 3000), random_state=0)
            rows.append(
                {
                    "data": data_name,
                    "epsilon": epsilon * 3,
                    "method": "dp_pca (directions + scree + score histogram)",
                    "sin_theta_vs_pca": sin_theta(result.directions[:, :2], reference),
                    "silhouette (projected rows)": _silhouette(
                        X @ result.directions[:, :2], labels, rng
                    ),
                    "silhouette (synthetic points)": _silhouette(
                        points[["PC1", "PC2"]].to_numpy(), points["group"].to_numpy(), rng
                    ),
                }
            )
            if not tiny and data_name.startswith("1000"):
                _figure(result, epsilon * 3, folder)
    return pd.DataFrame(rows)


def _figure(result, epsilon, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
    result.plot("score", non_private=True, ax=left)
    result.plot("score", ax=right)
    figure.suptitle(
        f"1000 Genomes: PC1/PC2 histograms by superpopulation, total epsilon = {epsilon:g}"
    )
    figure.savefig(folder / f"real_data_1kg_eps{epsilon:g}.png", dpi=80)
    plt.close(figure)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="epsilon 1 only")
    mode.add_argument("--tiny", action="store_true", help="400 rows, epsilon 1 (seconds)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    table = run([1.0] if (args.quick or args.tiny) else EPSILONS, args.tiny, args.out)
    label = "tiny" if args.tiny else "quick" if args.quick else "full"
    text = (
        "# Real data\n\nsin Theta between each method's top-2 subspace and ordinary PCA's; "
        "silhouette of the groups on the method's two directions (and, for dp_pca, of "
        "synthetic points from its private histogram). delta = 1/n^2 per release; dp_pca "
        "gets three times the budget (a third each for directions, scree and scores).\n\n"
        + markdown_table(table)
        + "\n"
    )
    (args.out / f"real_data_{label}.md").write_text(text)
    print(text)
    return table


if __name__ == "__main__":
    main()
