"""The one-call plots on the embedded data sets: what each panel draws (lines, cells, points,
arrows), its title and legend, checked against the release it returns. Rows are thinned and
seeds fixed so that each test takes a second or two; nothing here depends on the noise level."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import to_hex
from matplotlib.patches import FancyArrowPatch

import dppca
from dppca.datasets import load_1kg_aisnps, load_adult, load_gau_g

SUPERPOPULATIONS = ["AFR", "AMR", "EAS", "EUR", "SAS"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def genotypes():
    X, labels = load_1kg_aisnps("kidd")
    return X.iloc[::4], labels["superpopulation"].iloc[::4].to_numpy()


@pytest.fixture(scope="module")
def clusters():
    X, labels = load_gau_g()
    return X.iloc[::5], labels.iloc[::5].to_numpy()


@pytest.fixture(scope="module")
def adult():
    X, labels = load_adult()
    return X.iloc[::20], labels.iloc[::20]


def _cells(ax):
    return [c for c in ax.collections if isinstance(c, PolyCollection) and c.get_gid() == "cells"]


def _points(ax):
    return sum(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))


def _arrows(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch) and p.get_gid() == "arrow"]


def _legend(ax):
    legend = ax.get_legend()
    return None if legend is None else [t.get_text() for t in legend.get_texts()]


def _positive(table):
    return int((table["prob"] > 0).sum())


def test_scree_plot_on_the_gaussian_clusters(clusters):
    X, _ = clusters
    drawn = dppca.dp_scree_plot(  # Huber's five private scales need epsilon 6.6 at n = 1000
        X,
        5,
        8.0,
        1e-7,
        method=("clipped", "huber"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        non_private=True,
        random_state=11,
    )
    (ax,) = drawn.ax_
    assert _legend(ax) == ["Clipped (DP)", "Huber (DP)", "Non-private"]
    assert ax.get_title() == "DP proportion of variance\nwith the non-private reference"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Component", "Proportion of variance explained")
    lines = {line.get_label(): line for line in ax.get_lines()}
    for label, method in (("Clipped (DP)", "clipped"), ("Huber (DP)", "huber")):
        assert list(lines[label].get_xdata()) == [1, 2, 3, 4, 5]
        assert np.array_equal(lines[label].get_ydata(), drawn.result.pve[method])
    reference = lines["Non-private"].get_ydata()
    assert np.array_equal(reference, drawn.result.non_private.pve)
    assert reference[0] > reference[1] > reference[4]  # the five clusters' leading directions


def test_scree_plot_on_1000_genomes_shows_the_variances(genotypes):
    X, _ = genotypes
    drawn = dppca.dp_scree_plot(
        X, 8, 2.0, 1e-7, loading_epsilon=2.0, loading_delta=1e-7, kind="scree", random_state=12
    )
    (ax,) = drawn.ax_
    (line,) = ax.get_lines()
    assert np.array_equal(line.get_ydata(), drawn.result.values["clipped"])
    assert ax.get_title() == "DP variances (scree)" and _legend(ax) is None
    assert ax.get_ylabel() == "Variance (scree)"


def test_score_plot_on_1000_genomes_with_the_reference(genotypes):
    X, _ = genotypes
    drawn = dppca.dp_score_plot(
        X,
        3.0,
        1e-7,
        bins=12,
        method=("thresholded", "sparse"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        panels=("histogram", "sample"),
        non_private=True,
        random_state=13,
    )
    result = drawn.result
    panels = drawn.displays_
    assert list(panels) == [
        ("histogram", "non_private"),
        ("histogram", "thresholded"),
        ("histogram", "sparse"),
        ("scatter", "non_private"),
        ("sample: uniform", "thresholded"),
        ("sample: uniform", "sparse"),
    ]
    titles = [display.ax_.get_title().splitlines()[0] for display in panels.values()]
    assert titles == [
        "Non-private score histogram (reference)",
        "DP score histogram",
        "DP score histogram",
        "Non-private scatter (reference)",
        "DP synthetic scores",
        "DP synthetic scores",
    ]
    for method in ("thresholded", "sparse"):
        (cells,) = _cells(panels[("histogram", method)].ax_)
        assert len(cells.get_paths()) == _positive(result.histograms[method])
        assert f"({method})" in panels[("histogram", method)].ax_.get_title()
        assert _points(panels[("sample: uniform", method)].ax_) == len(X)
    assert _points(panels[("scatter", "non_private")].ax_) == len(X)
    assert all(_legend(display.ax_) is None for display in panels.values())  # no groups
    limits = panels[("histogram", "thresholded")].ax_.get_xlim()
    assert all(display.ax_.get_xlim() == limits for display in panels.values())  # one frame


def test_score_plot_by_superpopulation(genotypes):
    X, superpopulation = genotypes
    drawn = dppca.dp_score_plot_group(
        X.assign(superpopulation=superpopulation),
        "superpopulation",
        3.0,
        1e-7,
        bins=10,
        loading_epsilon=2.0,
        loading_delta=1e-7,
        panels=("histogram", "sample"),
        random_state=14,
    )
    result = drawn.result
    assert sorted(result.groups) == SUPERPOPULATIONS
    histogram = drawn.displays_[("histogram", "thresholded")].ax_
    cells = _cells(histogram)
    assert [c.get_label() for c in cells] == SUPERPOPULATIONS
    for collection, level in zip(cells, SUPERPOPULATIONS, strict=True):
        assert len(collection.get_paths()) == _positive(result.groups[level]["thresholded"])
    colors = {to_hex(c.get_facecolors()[0], keep_alpha=False) for c in cells}
    assert len(colors) == 5  # one colour per group
    assert _legend(histogram) == SUPERPOPULATIONS
    sample = drawn.displays_[("sample: uniform", "thresholded")].ax_
    assert _legend(sample) == SUPERPOPULATIONS and _points(sample) == len(X)


def test_score_plot_by_cluster_puts_one_legend_on_each_row(clusters):
    X, labels = clusters
    drawn = dppca.dp_score_plot_group(
        X.assign(cluster=labels),
        "cluster",
        3.0,
        1e-7,
        bins=10,
        method=("thresholded", "add"),
        loading_epsilon=2.0,
        loading_delta=1e-7,
        non_private=True,
        random_state=15,
    )
    levels = [f"group{j}" for j in range(1, 6)]
    legends = [_legend(display.ax_) for display in drawn.displays_.values()]
    assert legends == [None, None, None, levels]  # on the row's last panel only
    scatter = drawn.displays_[("scatter", "non_private")].ax_
    assert _points(scatter) == len(X) and len(scatter.collections) == 5
    for method in ("thresholded", "add"):
        cells = _cells(drawn.displays_[("histogram", method)].ax_)
        assert len(cells) == 5
        assert sum(len(c.get_paths()) for c in cells) == sum(
            _positive(tables[method]) for tables in drawn.result.groups.values()
        )


def test_adult_loading_arrows_and_score_by_sex(adult):
    X, labels = adult
    loading = dppca.dp_loading_plot(
        X, 2.0, 1e-7, display=("vector", "heatmap"), non_private=True, random_state=16
    )
    for version in ("Non-private", "DP"):
        ax = loading.displays_[(version, "vector")].ax_
        assert len(_arrows(ax)) == 5
        assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "label") == sorted(X.columns)
        heat = loading.displays_[(version, "heatmap")].ax_
        assert heat.images[0].get_array().shape == (5, 5)
    drawn = dppca.dp_score_plot_group(
        X.assign(sex=labels["sex"].to_numpy()),
        "sex",
        3.0,
        1e-7,
        bins=10,
        directions=loading.result.directions,
        random_state=17,
    )
    (ax,) = drawn.ax_
    assert _legend(ax) == ["Female", "Male"] and len(_cells(ax)) == 2
