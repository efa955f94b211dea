"""Plots draw what they should: artists, titles, labels, limits, legends (no pixel tests)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.patches import Circle, FancyArrowPatch

from dppca import dp_pca
from dppca.numerics.biplot import biplot_coordinates
from dppca.plotting.loadings import plot_loading_heatmap, plot_loadings
from dppca.plotting.scores import plot_score_histogram, plot_score_points
from dppca.plotting.scree import plot_scree
from dppca.plotting.variables import plot_biplot, plot_variables


@pytest.fixture(autouse=True)
def _close_figures(monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plt.show() was called"))
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    labels = rng.choice(["a", "b", "c"], size=3000)
    shift = {"a": [0, 0, 0, 0, 0], "b": [7, 0, 0, 0, 0], "c": [0, 7, 0, 0, 0]}
    X = np.array([shift[g] for g in labels]) + rng.standard_normal((3000, 5))
    frame = pd.DataFrame(X, columns=["v1", "v2", "v3", "v4", "v5"])
    return dp_pca(
        frame,
        6.0,
        1e-6,
        groups=labels,
        random_state=0,
        non_private=True,
        on_weak="release",
        score={"bins": 10},
    )


def _arrows(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch) and p.get_gid() == "arrow"]


def _labels(ax):
    return [t.get_text() for t in ax.texts if t.get_gid() == "label"]


def test_loading_vectors_points_and_top(result):
    ax = plot_loadings(result.loadings, kind="vector")
    assert len(_arrows(ax)) == 5 and sorted(_labels(ax)) == ["v1", "v2", "v3", "v4", "v5"]
    assert ax.get_title() == "DP loading plot"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("PC1", "PC2")
    low, high = ax.get_xlim()
    assert low == -high and ax.get_ylim() == (low, high)
    top = plot_loadings(result.loadings, kind="point", variables=2, axes=(2, 3), limit=2.0)
    assert len(top.collections[0].get_offsets()) == 2 and len(_labels(top)) == 2
    assert top.get_xlim() == (-2.0, 2.0) and top.get_xlabel() == "PC2"
    with pytest.raises(ValueError, match="kind must be one of"):
        plot_loadings(result.loadings, kind="bars")


def test_loading_heatmap(result):
    fig, ax = plt.subplots()
    returned = plot_loading_heatmap(result.loadings, components=3, ax=ax)
    assert returned is ax
    image = ax.images[0]
    assert image.get_array().shape == (5, 3)
    low, high = image.get_clim()
    assert low == -high == -np.max(np.abs(result.loadings.iloc[:, :3].to_numpy()))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["PC1", "PC2", "PC3"]
    assert len(fig.axes) == 2  # the colour bar


def test_score_histogram_cells_opacity_and_frame(result):
    limits = result.frame.limits()
    ax = plot_score_histogram(result.histogram, limits, axis_labels=result.axis_labels)
    (cells,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    positive = result.histogram[result.histogram["prob"] > 0]
    assert len(cells.get_paths()) == len(positive)
    alphas = cells.get_facecolors()[:, 3]
    assert np.allclose(alphas, positive["prob"] / positive["prob"].max())
    assert ax.get_xlim() == limits[0] and ax.get_ylim() == limits[1]
    assert ax.get_aspect() == 1.0


def test_group_overlay_and_shared_opacity(result):
    ax = plot_score_histogram(result.groups, result.frame.limits(), opacity_max=1.0)
    collections = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(collections) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(result.groups)
    largest = max(table["prob"].max() for table in result.groups.values())
    assert max(c.get_facecolors()[:, 3].max() for c in collections) == pytest.approx(largest)


def test_empty_histogram_has_a_note(result):
    empty = result.histogram.assign(prob=0.0)
    ax = plot_score_histogram(empty, result.frame.limits())
    assert any("No cells survived" in t.get_text() for t in ax.texts)


def test_score_points_with_groups(result):
    from dppca import sample_scores

    points = sample_scores(result, n=300, random_state=0)
    ax = plot_score_points(points, result.frame.limits())
    assert sum(len(c.get_offsets()) for c in ax.collections) == 300
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(result.groups)


def test_scree_plot(result):
    ax = plot_scree({"clipped": result.pve, "non_private": result.non_private.pve})
    assert len(ax.lines) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Clipped (DP)", "Non-private"]
    assert list(ax.get_xticks()) == [1, 2, 3, 4, 5]
    assert ax.get_xlabel() == "Component" and ax.get_ylim()[0] == 0


def test_variable_plot_and_biplot(result):
    ax = plot_variables(result.variable_coordinates())
    assert any(isinstance(p, Circle) for p in ax.patches) and len(_arrows(ax)) == 5
    assert ax.get_xlim() == (-1.15, 1.15)
    coordinates = biplot_coordinates(
        np.random.default_rng(0).standard_normal((50, 2)),
        result.directions,
        result.scree,
        (1, 2),
        result.n_samples,
        frame_limits=result.frame.limits(center=True),
    )
    ax = plot_biplot(coordinates, result.feature_names)
    assert len(ax.collections[0].get_offsets()) == 50 and len(_arrows(ax)) == 5
    assert ax.get_xlim() == pytest.approx(coordinates.xlim)


@pytest.mark.parametrize("kind", ["scree", "score", "loading", "heatmap", "variable", "biplot"])
def test_result_panels_private_and_reference(result, kind):
    options = {"random_state": 0} if kind == "biplot" else {}
    display = result.plot(kind, **options)
    ax = display.ax_
    assert ax.get_title().startswith("DP") and display.figure_ is ax.figure
    reference = result.plot(kind, non_private=True, **options).ax_
    assert (
        reference.get_title().startswith("Non-private") and "(reference)" in reference.get_title()
    )


def test_reference_score_panel_uses_the_private_opacity_scale(result):
    ax = result.plot("score", non_private=True).ax_
    private_max = max(t["prob"].max() for t in result.groups.values())
    reference_max = max(t["prob"].max() for t in result.non_private.groups.values())
    expected = min(reference_max / private_max, 1.0)
    assert max(c.get_facecolors()[:, 3].max() for c in ax.collections) == pytest.approx(expected)


def test_full_pages(result):
    page = result.plot("all", random_state=0)
    figure = page.figure_
    assert sorted(page.displays_) == ["biplot", "loading", "score", "scree", "variable"]
    assert len(figure.axes) == 5
    assert figure.get_suptitle().startswith("Private PCA")
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[0].startswith("DP proportion of variance") and titles[4] == "DP biplot"
    reference = result.plot("all", non_private=True, random_state=0).figure_
    assert "NOT differentially private" in reference.get_suptitle()


def test_loading_grid_shares_one_scale(result):
    from dppca.plotting import loading_grid

    figure, displays = loading_grid(result, display="vector", non_private=True, variables=3)
    top, bottom = figure.axes
    assert top.get_xlim() == bottom.get_xlim()
    assert top.get_title().startswith("Non-private") and bottom.get_title() == "DP loading plot"
    assert len(_arrows(top)) == len(_arrows(bottom)) == 3
    assert sorted(displays) == [("DP", "vector"), ("Non-private", "vector")]


def test_reference_needs_to_exist():
    X = np.random.default_rng(1).standard_normal((300, 3))
    plain = dp_pca(X, 5.0, 1e-6, random_state=0, on_weak="release", score={"bins": 5})
    with pytest.raises(ValueError, match="No non-private reference"):
        plain.plot("score", non_private=True)
    with pytest.raises(ValueError, match="kind must be one of"):
        plain.plot("pie")
    with pytest.raises(TypeError, match="does not take: colour"):
        plain.plot("scree", colour="red")
    with pytest.raises(
        TypeError, match=r"plot\(kind='scree'\) got option\(s\) it does not take: variables"
    ):
        plain.plot("scree", variables=3)


def test_every_release_result_plots_through_its_display():
    from dppca import dp_loading, dp_score, dp_scree
    from dppca.plotting import LoadingDisplay, ScoreHistogramDisplay, ScreeDisplay

    X = np.random.default_rng(1).standard_normal((800, 4)) * [3, 2, 1, 0.5]
    loading = dp_loading(X, 4.0, 1e-6, random_state=0, non_private=True, on_weak="release")
    display = loading.plot()
    assert isinstance(display, LoadingDisplay) and display.ax_.get_title() == "DP loading plot"
    heatmap = loading.plot("heatmap").ax_
    assert heatmap.get_title() == "DP loading heatmap" and heatmap.images
    reference = loading.plot(non_private=True).ax_
    assert reference.get_title() == "Non-private loading plot (reference)"
    scree = dp_scree(
        X, 4, 4.0, 1e-6, method=("clipped", "huber"), directions=np.eye(4), on_weak="release"
    )
    lines = scree.plot().ax_.get_lines()
    assert isinstance(scree.plot(), ScreeDisplay) and len(lines) == 2
    score = dp_score(
        X, 4.0, 1e-6, method=("thresholded", "sparse"), directions=np.eye(4), on_weak="release"
    )
    first = score.plot()
    sparse = score.plot(method="sparse")
    assert isinstance(first, ScoreHistogramDisplay)
    assert first.tables is not sparse.tables  # each method's own histogram
    with pytest.raises(ValueError, match="kind must be one of"):
        score.plot("biplot")


def test_a_display_draws_its_arrays_on_the_axes_it_is_given():
    from dppca.plotting import ScreeDisplay

    figure, ax = plt.subplots()
    display = ScreeDisplay({"clipped": np.linspace(1.0, 0.0, 55)}).plot(ax=ax)
    assert display.ax_ is ax and display.figure_ is figure
    assert len(ax.get_xticks()) <= 15  # many components: every fourth labelled


def test_the_page_is_a_table_of_displays_with_their_axes(result):
    page = result.plot("all", random_state=0)
    assert [display.ax_ for display in page.displays_.values()] == list(page.ax_)
    assert all(ax.figure is page.figure_ for ax in page.ax_)
