"""One example per plot function, on the embedded data, saved as PNG files.

Usage: ``python examples/plot_gallery.py [OUT]`` (default ``gallery/``). Every figure is made
from private releases (the budgets are in the file names' captions below); the panels titled
"Non-private" are the reference, drawn only where it is asked for.
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
from dppca.plotting import loading_grid, score_grid

SEED = 20261202


def gallery(out: Path) -> list[Path]:
    """Draw every example into ``out`` and return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    genotypes, labels = load_1kg_aisnps("kidd")
    superpopulation = labels["superpopulation"].to_numpy()
    adult, _ = load_adult()
    clusters, cluster_labels = load_gau_g()
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
    bands = result.uncertainty(draws=200, random_state=SEED)
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

    written = []
    for name, figure in figures.items():
        path = out / f"{name}.png"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            figure.savefig(path, dpi=80, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery")
    for path in gallery(folder):
        print(path)
