"""Real data: 1000 Genomes ancestry SNPs (by superpopulation) and UCI Adult (by income).

For each epsilon and each of ``REPS`` seeds, every method's top-2 private subspace is compared
with ordinary PCA's and with the non-private spherical Kendall directions (g-DPPCA's target)
by sin Theta, and the separation of the groups on the method's two directions is measured by
the silhouette score of the projected rows (an evaluation on the true data, not a release).
For g-DPPCA the private score histogram by group is also released (dp_pca with a third of the
budget each for directions, scree and scores) and the silhouette of synthetic points drawn
from it is reported. A figure shows the private group histograms next to the non-private
ones. The report gives the median and the worst sin Theta over the seeds.

Public tuning: AG's and projector PCA's clip "guess" is three times the root-mean-square
centred row norm (computed from the data, so not private: generous to those methods); AG
also runs with a private clip (and the SSCM's private centre), NSGGD with and without private
coordinate-median centring, as in the simulations; the SSCM about its private centre runs too;
on the genotypes, whose values are 0, 1 or 2 (public), AG and
NSGGD also run centred by private means within those bounds (a tenth of epsilon and of delta),
what a user who knows the range would do. Projector PCA's eigen-gap guess is 1. SGPCA needs
the spiked model's parameters, which real data do not give, so it is not run. Projector PCA
refuses a gap guess below ``2 T^2 / n`` (Adult, whose clip guess is large): its rows are then
empty.
diffprivlib and OpenDP run on the first seed only (slow), each fit stopped after 60 s.

Usage: ``python benchmarks/real_data.py [--quick | --tiny] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import silhouette_score

from dppca import dp_pca, kendall_matrix, sample_scores
from dppca.baselines import analyze_gauss, nsggd, sklearn_pca
from dppca.datasets import load_1kg_aisnps, load_adult
from dppca.numerics.linalg import descending_eigh

from _common import Stopped, markdown_table, methods, scored, spherical_releases, with_limit

EPSILONS = [0.5, 1.0, 2.0, 5.0]
REPS = {"full": 5, "quick": 2, "tiny": 1}
LIBRARY_PEERS = ("diffprivlib PCA", "OpenDP PCA")
#: The seed of the rows the silhouette is computed on above 3,000 rows (the same for every fit).
SILHOUETTE_SEED = 1


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


#: Public ranges a knowledgeable user knows: allele counts are 0, 1 or 2.
PUBLIC_BOUNDS = {"1000 Genomes (Kidd)": (0.0, 2.0)}


def bounded(bounds: tuple[float, float], epsilon: float, delta: float, seed: int) -> dict:
    """AG and NSGGD centred by private means within the data's public bounds (a tenth of the
    budget), AG with the private median clip."""
    return {
        "AG, private clip, bounded centre": lambda X: (
            analyze_gauss(
                X, 2, epsilon, delta, center="bounded", bounds=bounds, random_state=seed
            ).components
        ),
        "NSGGD, bounded centre": lambda X: (
            nsggd(
                X, 2, epsilon, delta, center="bounded", bounds=bounds, random_state=seed
            ).components
        ),
    }


def _silhouette(points: np.ndarray, labels: np.ndarray) -> float:
    """The silhouette of ``labels`` on ``points``; above 3,000 points on the same 3,000 rows
    for every method and seed, drawn from a random stream of their own, so that no method's
    seeds depend on which fits before it finished (the peers stop after 60 s)."""
    if len(points) > 3000:
        keep = np.random.default_rng(SILHOUETTE_SEED).choice(len(points), 3000, replace=False)
        points, labels = points[keep], labels[keep]
    if len(np.unique(labels)) < 2:
        return float("nan")
    return float(silhouette_score(points, labels))


def run(epsilons, reps: int, tiny: bool, folder: Path) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    for data_name, (X, labels) in datasets(tiny).items():
        rows += _evaluate(data_name, X, labels, epsilons, reps, rng, tiny, folder)
    return pd.DataFrame(rows)


def _evaluate(data_name, X, labels, epsilons, reps, rng, tiny, folder) -> list[dict]:
    """Every method, epsilon and seed on one data set."""
    rows = []
    n, d = X.shape
    reference = sklearn_pca(X, 2)
    kendall = kendall_matrix(X)
    target = descending_eigh(kendall)[1][:, :2]
    clip = float(3 * np.sqrt(np.trace(np.cov(X, rowvar=False))))  # from the data: generous

    def record(method: str, epsilon: float, rep: int, V, synthetic: float = float("nan")):
        if V is None:  # refused: its public tuning cannot give a guarantee on these data
            rows.append({"data": data_name, "epsilon": epsilon, "rep": rep, "method": method})
            return
        # marked unusable (NaN directions: the SSCM's centre beyond its steps' reach) scores 1
        usable = bool(np.all(np.isfinite(V)))
        rows.append(
            {
                "data": data_name,
                "epsilon": epsilon,
                "rep": rep,
                "method": method,
                "outcome": scored(V, reference, (2,))["outcome"],
                "sin_theta_vs_pca": scored(V, reference, (2,))["k2"],
                "sin_theta_vs_kendall": scored(V, target, (2,))["k2"],
                "silhouette (projected rows)": _silhouette(X @ V, labels)
                if usable
                else float("nan"),
                "silhouette (synthetic points)": synthetic,
            }
        )

    for epsilon in epsilons:
        delta = 1.0 / n**2
        for rep in range(reps):
            seeds = rng.integers(2**31, size=3)
            roster = methods(2, epsilon, delta, clip_norm=clip, eigengap=1.0, seed=seeds[0])
            roster.update(spherical_releases(kendall, n, 2, epsilon, delta, int(seeds[1])))
            if data_name in PUBLIC_BOUNDS:
                roster.update(bounded(PUBLIC_BOUNDS[data_name], epsilon, delta, int(seeds[2])))
            for name, method in roster.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        if name in LIBRARY_PEERS:
                            if rep > 0:
                                continue
                            V = with_limit(lambda m=method, X=X: m(X), 60.0)
                        else:
                            V = method(X)
                    except Stopped:
                        continue
                    except ValueError:
                        if name != "projector PCA":
                            raise
                        V = None
                record(name, epsilon, rep, V)
            result = dp_pca(
                X,
                epsilon * 3,
                3 * delta,
                groups=labels,
                random_state=int(seeds[2]),
                non_private=True,
                on_weak="release",  # the directions are compared at every budget
                scree={"k": min(5, d)},
                score={"bins": 15},
            )
            synthetic = float("nan")  # a histogram marked unusable gives no points
            if result.status["histogram"].usable:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    points = sample_scores(result, n=min(n, 3000), random_state=0)
                plane = points[["PC1", "PC2"]].to_numpy()
                synthetic = _silhouette(plane, points["group"].to_numpy())
            name = "dp_pca (directions + scree + score histogram)"
            record(name, epsilon * 3, rep, result.directions[:, :2], synthetic)
            if rep == 0 and not tiny and data_name.startswith("1000"):
                _figure(result, epsilon * 3, folder)
    return rows


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Per data set, epsilon and method: the median and worst sin Theta to ordinary PCA, the
    median to the Kendall directions, the median silhouettes, and the seeds that gave a fit."""
    grouped = results.groupby(["data", "epsilon", "method"], sort=False)
    return grouped.agg(
        **{
            "sin Theta vs PCA, median": ("sin_theta_vs_pca", "median"),
            "sin Theta vs PCA, worst": ("sin_theta_vs_pca", "max"),
            "sin Theta vs Kendall, median": ("sin_theta_vs_kendall", "median"),
            "silhouette (projected rows), median": ("silhouette (projected rows)", "median"),
            "silhouette (synthetic points), median": ("silhouette (synthetic points)", "median"),
            "seeds": ("sin_theta_vs_pca", "count"),
        }
    ).reset_index()


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
    label = "tiny" if args.tiny else "quick" if args.quick else "full"
    epsilons = [1.0] if (args.quick or args.tiny) else EPSILONS
    results = run(epsilons, REPS[label], args.tiny, args.out)
    results.to_csv(args.out / f"real_data_{label}.csv", index=False)
    table = summarise(results)
    text = (
        "# Real data\n\nsin Theta between each method's top-2 subspace and ordinary PCA's "
        "(median and worst over the seeds) and the non-private spherical Kendall directions' "
        "(g-DPPCA's target); a release marked unusable (NaN directions) scores 1; silhouette "
        "of the groups on the method's two directions (and, for dp_pca, of synthetic points "
        "from its private histogram). delta = 1/n^2 per "
        "release; dp_pca gets three times the budget (a third each for directions, scree and "
        f"scores). {REPS[label]} seeds; diffprivlib and OpenDP the first only.\n\n"
        + markdown_table(table)
        + "\n"
    )
    (args.out / f"real_data_{label}.md").write_text(text)
    print(text)
    return table


if __name__ == "__main__":
    main()
