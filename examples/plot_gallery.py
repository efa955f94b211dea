"""One example per plot function, on the embedded data, saved as PNG files.

Usage: ``python examples/plot_gallery.py [OUT] [--quick]`` (default ``gallery/``; ``--quick``
draws every figure from a tenth of the rows, at low resolution, as the test suite does). Every
figure is made from private releases (the budgets are in the calls below); the panels titled
"Non-private" are the reference, drawn only where it is asked for. The helpers
``dppca.plotting.plot_*`` draw released values and spend nothing.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import dppca
from dppca.datasets import load_1kg_aisnps, load_adult, load_gau_g
from dppca.plotting import (
    loading_grid,
    plot_biplot,
    plot_loading_heatmap,
    plot_loadings,
    plot_score_histogram,
    plot_score_points,
    plot_scree,
    plot_variables,
    score_grid,
)

SEED = 20261202


def gallery(out: Path, quick: bool = False) -> list[Path]:
    """Draw every example into ``out`` and return the files written (``quick``: from every
    tenth row, with fewer noise redraws, at low resolution)."""
    out.mkdir(parents=True, exist_ok=True)
    step = 10 if quick else 1
    genotypes, labels = load_1kg_aisnps("kidd")
    genotypes, labels = genotypes.iloc[::step], labels.iloc[::step]
    superpopulation = labels["superpopulation"].to_numpy()
    adult = load_adult()[0].iloc[::step]
    clusters, cluster_labels = load_gau_g()
    clusters, cluster_labels = clusters.iloc[::step], cluster_labels.iloc[::step]
    figures = {}

    # One-call plots from data (the R package's dp_*_plot functions).
    figures["dp_loading_plot"] = dppca.dp_loading_plot(
        genotypes,
        2.0,
        1e-7,
        display=("vector", "point", "heatmap"),
        variables=8,
        non_private=True,
        random_state=SEED,
    ).figure_
    figures["dp_scree_plot"] = dppca.dp_scree_plot(
        genotypes,
        8,
        2.0,
        1e-7,
        method=("clipped", "huber"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        non_private=True,
        random_state=SEED,
    ).figure_
    figures["dp_score_plot"] = dppca.dp_score_plot(
        clusters,
        3.0,
        1e-7,
        method=("thresholded", "sparse"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        panels=("histogram", "sample"),
        non_private=True,
        random_state=SEED,
    ).figure_
    figures["dp_score_plot_group"] = dppca.dp_score_plot_group(
        clusters.assign(group=cluster_labels.to_numpy()),
        "group",
        3.0,
        1e-7,
        method=("thresholded", "sparse"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        non_private=True,
        random_state=SEED,
    ).figure_

    # The pipeline's panels and pages.
    result = dppca.dp_pca(
        genotypes,
        4.0,
        1e-7,
        k=10,
        groups=superpopulation,
        non_private=True,
        random_state=SEED,
    )
    bands = result.uncertainty(draws=20 if quick else 200, random_state=SEED)
    private, reference = result.plot("pages", random_state=SEED, uncertainty=bands)
    figures["page_private"] = private.figure_
    figures["page_non_private"] = reference.figure_
    figures["page_options"] = result.plot(
        "all",
        random_state=SEED,
        scree="scree",
        display_k=6,
        score="sample",
        loading="heatmap",
        variable="point",
        alpha=0.5,
        variables=["rs3827760", "rs1426654", "rs16891982", "rs2814778"],
    ).figure_
    for kind in ("scree", "score", "sample", "loading", "heatmap", "variable", "biplot"):
        options = {"random_state": SEED} if kind in ("sample", "biplot") else {}
        figures[f"panel_{kind}"] = result.plot(kind, **options).figure_
    two = dppca.dp_pca(genotypes, 4.0, 1e-7, k=2, random_state=SEED)
    figures["panel_variable_k2"] = two.plot("variable").figure_

    # Data in mixed units with heavy-tailed, mostly-zero variables: private scales and the
    # robust (Huber) scree, whose variances follow the robust directions.
    scaled = dppca.dp_pca(
        adult, 4.0, 1e-7, scale="private", scree="huber", non_private=True, random_state=SEED
    )
    figures["adult_scaled_page"] = scaled.plot("all", random_state=SEED).figure_
    figures["loading_grid"] = loading_grid(scaled, display="point", non_private=True)[0]
    score = dppca.dp_score(
        genotypes,
        2.0,
        1e-7,
        loading_epsilon=2.0,
        loading_delta=1e-7,
        groups=superpopulation,
        random_state=SEED,
    )
    figures["score_grid"] = score_grid(
        score, panels=("histogram", "sample"), sampling=("uniform", "center"), random_state=SEED
    )[0]
    estimator = dppca.DPPCA(2, epsilon=4.0, delta=1e-7, random_state=SEED).fit(genotypes)
    figures["estimator_loadings"] = dppca.plotting.LoadingDisplay.from_result(estimator).figure_

    # The helpers: one panel each, from released values or a result (each takes ax= to draw
    # into a figure of your own).
    scree = dppca.dp_scree(
        clusters,
        6,
        2.0,
        1e-7,
        method=("clipped", "huber"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        non_private=True,
        random_state=SEED,
    )
    ax = plot_scree(
        {**scree.pve, "non_private": scree.non_private.pve},
        title="Gaussian clusters: proportion of variance",
    )
    figures["plot_scree"] = ax.figure
    ax = plot_loadings(scaled.loadings, kind="vector", title="Adult (private scales): loadings")
    figures["plot_loadings"] = ax.figure
    ax = plot_loading_heatmap(
        result, components=[1, 2, 3], variables=["rs3827760", "rs1426654", "rs16891982"]
    )
    figures["plot_loading_heatmap"] = ax.figure
    by_group = {label: tables["thresholded"] for label, tables in score.groups.items()}
    ax = plot_score_histogram(
        by_group, score.frame.limits(), title="1000 Genomes: private histogram by group"
    )
    figures["plot_score_histogram"] = ax.figure
    points = dppca.sample_scores(score, random_state=SEED)
    ax = plot_score_points(points, score.frame.limits(), title="1000 Genomes: synthetic scores")
    figures["plot_score_points"] = ax.figure
    ax = plot_variables(scaled, title="Adult (private scales): variable plot")
    figures["plot_variables"] = ax.figure
    coordinates, _ = result.biplot(alpha=0.5, random_state=SEED)
    ax = plot_biplot(coordinates, result.feature_names, axis_labels=result.axis_labels, variables=6)
    figures["plot_biplot"] = ax.figure

    written = []
    for name, figure in figures.items():
        path = out / f"{name}.png"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            figure.savefig(path, dpi=40 if quick else 80, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written


if __name__ == "__main__":
    arguments = [argument for argument in sys.argv[1:] if argument != "--quick"]
    folder = Path(arguments[0]) if arguments else Path("gallery")
    for path in gallery(folder, quick="--quick" in sys.argv[1:]):
        print(path)
