"""One-call plots from data, the grids and the page's options, result types, and labels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.patches import FancyArrowPatch

import dppca
from dppca import Budget
from dppca.plotting import (
    BiplotDisplay,
    LoadingDisplay,
    ScorePointsDisplay,
    ScreeDisplay,
    VariableDisplay,
)
from dppca.plotting.variables import TWO_COMPONENTS_CAPTION


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n)
    shift = {"a": [0, 0, 0, 0], "b": [7, 0, 0, 0], "c": [0, 7, 0, 0]}
    X = np.array([shift[g] for g in labels]) + rng.standard_normal((n, 4)) * [1, 1, 0.7, 0.5]
    return pd.DataFrame(X, columns=["v1", "v2", "v3", "v4"]), labels


def _arrows(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch) and p.get_gid() == "arrow"]


def _labels(ax):
    return [t for t in ax.texts if t.get_gid() == "label"]


def test_loading_plot_grid_reference_row_shared_scale_and_the_release():
    X, _ = _data()
    drawn = dppca.dp_loading_plot(
        X, 4.0, 1e-6, display=("heatmap", "vector", "point"), non_private=True, random_state=0
    )
    assert drawn.result.privacy.total == Budget(4.0, 1e-6)
    assert list(drawn.displays_) == [
        ("Non-private", "vector"),
        ("Non-private", "point"),
        ("Non-private", "heatmap"),
        ("DP", "vector"),
        ("DP", "point"),
        ("DP", "heatmap"),
    ]
    axes = drawn.ax_
    assert axes[0].get_xlim() == axes[3].get_xlim() == axes[1].get_xlim()
    assert axes[2].images[0].get_clim() == axes[5].images[0].get_clim()
    assert all(ax.get_title().startswith("Non-private") for ax in axes[:3])
    assert len(_arrows(axes[3])) == 4 and len(axes[4].collections[0].get_offsets()) == 4


def test_loading_plot_variables_by_name_labels_and_signs():
    X, _ = _data()
    named = dppca.dp_loading_plot(X, 4.0, 1e-6, variables=["v3", "v1"], random_state=0)
    assert sorted(t.get_text() for t in _labels(named.ax_[0])) == ["v1", "v3"]
    bare = dppca.dp_loading_plot(X, 4.0, 1e-6, labels=False, random_state=0)
    assert not _labels(bare.ax_[0]) and len(_arrows(bare.ax_[0])) == 4
    with pytest.raises(ValueError, match="Unknown variables: zz"):
        dppca.dp_loading_plot(X, 4.0, 1e-6, variables=["zz"], random_state=0)
    result = dppca.dp_loading(X, 4.0, 1e-6, non_private=True, random_state=0, on_weak="release")
    flipped = -result.non_private.directions
    own = LoadingDisplay.from_result(result, non_private=True, align_sign=False, variables=None)
    drawn = own.loadings.to_numpy()
    largest = np.argmax(np.abs(drawn), axis=0)
    assert np.all(drawn[largest, np.arange(4)] > 0)  # its own sign convention
    assert np.allclose(np.abs(drawn), np.abs(flipped))


def test_scree_plot_overlays_methods_and_the_reference():
    X, _ = _data()
    drawn = dppca.dp_scree_plot(
        X,
        4,
        4.0,
        1e-6,
        method=("clipped", "huber"),
        directions=np.eye(4),
        kind="scree",
        display_k=3,
        non_private=True,
        random_state=0,
    )
    ax = drawn.ax_[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["Clipped (DP)", "Huber (DP)", "Non-private"]
    assert all(len(line.get_xdata()) == 3 for line in ax.get_lines())
    assert ax.get_ylabel() == "Variance (scree)"
    pve = dppca.dp_scree_plot(X, 4, 4.0, 1e-6, directions=np.eye(4), display_k=2, random_state=0)
    captions = [t.get_text() for t in pve.ax_[0].texts if t.get_gid() == "caption"]
    assert captions == ["Proportions are over all k = 4 components."]
    with pytest.raises(ValueError, match=r"display_k must be an integer in \[1, k=4\]"):
        dppca.dp_scree_plot(X, 4, 4.0, 1e-6, directions=np.eye(4), display_k=5)


def test_score_plot_follows_the_r_layout():
    """With the reference and sample rows: the reference column first (its histogram above,
    its scatter below), then one column per private method."""
    X, _ = _data()
    drawn = dppca.dp_score_plot(
        X,
        4.0,
        1e-6,
        bins=8,
        method=("thresholded", "sparse"),
        directions=np.eye(4),
        panels=("histogram", "sample"),
        non_private=True,
        random_state=0,
    )
    assert list(drawn.displays_) == [
        ("histogram", "non_private"),
        ("histogram", "thresholded"),
        ("histogram", "sparse"),
        ("scatter", "non_private"),
        ("sample: uniform", "thresholded"),
        ("sample: uniform", "sparse"),
    ]
    figure_axes = drawn.figure_.axes
    assert len(figure_axes) == 6
    cells = [c for c in drawn.ax_[1].collections if isinstance(c, PolyCollection)]
    positive = drawn.result.histograms["thresholded"]["prob"] > 0
    assert len(cells[0].get_paths()) == int(positive.sum())
    sample = drawn.ax_[4]
    assert sum(len(c.get_offsets()) for c in sample.collections) == len(X)
    alone = dppca.dp_score_plot(X, 4.0, 1e-6, bins=8, directions=np.eye(4), random_state=0)
    assert list(alone.displays_) == [("histogram", "thresholded")]


def test_score_plot_by_group():
    X, labels = _data()
    drawn = dppca.dp_score_plot_group(
        X.assign(site=labels), "site", 4.0, 1e-6, bins=8, directions=np.eye(4), random_state=0
    )
    assert [t.get_text() for t in drawn.ax_[0].get_legend().get_texts()] == ["a", "b", "c"]
    assert sorted(drawn.result.groups) == ["a", "b", "c"]


@pytest.fixture(scope="module")
def result():
    X, labels = _data()
    return dppca.dp_pca(
        X,
        6.0,
        1e-6,
        groups=labels,
        random_state=0,
        non_private=True,
        on_weak="release",
        score={"bins": 10},
    )


def test_page_options(result):
    page = result.plot(
        "all",
        random_state=0,
        scree="scree",
        display_k=3,
        score="sample",
        loading="heatmap",
        variable="point",
        alpha=0.5,
        variables=["v1", "v2"],
    )
    displays = page.displays_
    assert isinstance(displays["score"], ScorePointsDisplay)
    assert displays["loading"].ax_.images and displays["loading"].kind == "heatmap"
    assert displays["scree"].ax_.get_ylabel() == "Variance (scree)"
    assert len(displays["scree"].ax_.get_lines()[0].get_xdata()) == 3
    variable = displays["variable"].ax_
    assert not _arrows(variable) and len(variable.collections[0].get_offsets()) == 2
    assert sorted(t.get_text() for t in _labels(displays["biplot"].ax_)) == ["v1", "v2"]
    with pytest.raises(ValueError, match="score must be one of"):
        result.plot("all", score="points")


def _unit_circles(ax):
    return [patch for patch in ax.patches if patch.get_gid() == "unit circle"]


def test_page_passes_heatmap_components_and_circle_to_their_panels(result):
    """The R package's heatmap_components (or LoadingDisplay's components) reach the heatmap
    panel and circle the variable panel, on one page and on both."""
    page = result.plot(
        "all", loading="heatmap", heatmap_components=[1, 3], circle=False, random_state=0
    )
    heat = page.displays_["loading"].ax_
    assert [t.get_text() for t in heat.get_xticklabels()] == ["PC1", "PC3"]
    assert np.allclose(heat.images[0].get_array(), result.directions[:, [0, 2]])
    assert not _unit_circles(page.displays_["variable"].ax_)
    assert page.displays_["variable"].ax_.get_xlim() != (-1.15, 1.15)
    plain = result.plot("all", loading="heatmap", components=2, random_state=0)
    heat = plain.displays_["loading"].ax_
    assert [t.get_text() for t in heat.get_xticklabels()] == ["PC1", "PC2"]
    assert len(_unit_circles(plain.displays_["variable"].ax_)) == 1
    pages = result.plot(
        "pages", loading="heatmap", heatmap_components=[2, 4], circle=False, random_state=0
    )
    for page in (pages.private_, pages.reference_):
        heat = page.displays_["loading"].ax_
        assert [t.get_text() for t in heat.get_xticklabels()] == ["PC2", "PC4"]
        assert not _unit_circles(page.displays_["variable"].ax_)


def test_page_heatmap_components_are_given_once_and_for_a_heatmap(result):
    with pytest.raises(TypeError, match="once, as heatmap_components or as components"):
        result.plot("all", loading="heatmap", heatmap_components=2, components=2)
    with pytest.raises(ValueError, match=r"applies to the heatmap panel.*got loading='point'"):
        result.plot("all", heatmap_components=[1, 2])
    with pytest.raises(ValueError, match="loading must be one of"):
        result.plot("all", loading="bars")
    with pytest.raises(ValueError, match="components must be distinct PC numbers from 1 to 4"):
        result.plot("all", loading="heatmap", components=[1, 9])


def test_variable_display_circle(result):
    assert len(_unit_circles(VariableDisplay.from_result(result).ax_)) == 1
    assert not _unit_circles(VariableDisplay.from_result(result, circle=False).ax_)
    assert not _unit_circles(result.plot("variable", circle=False).ax_)
    with pytest.raises(TypeError, match="circle"):
        VariableDisplay.from_result(result, circle="no")


def test_both_pages_in_one_call(result):
    pages = result.plot("pages", random_state=0)
    assert pages.private_.figure_.get_suptitle().startswith("Private PCA")
    assert "NOT differentially private" in pages.reference_.figure_.get_suptitle()
    assert pages.private_.figure_.figure is pages.figure_ is pages.reference_.figure_.figure
    assert pages.ax_.shape == (2, 5) and len(pages.figure_.axes) >= 10
    with pytest.raises(TypeError, match="does not take: non_private"):
        result.plot("pages", non_private=True)


def test_biplot_names_its_points_and_the_variable_plot_explains_k_2(result):
    legend = BiplotDisplay.from_result(result, random_state=0).ax_.get_legend()
    assert legend.get_texts()[0].get_text().startswith("synthetic scores")
    reference = BiplotDisplay.from_result(result, non_private=True, random_state=0)
    assert reference.ax_.get_legend().get_texts()[0].get_text() == "observed scores (NOT private)"

    def captions(display):
        texts = [t.get_text() for t in display.ax_.texts if t.get_gid() == "caption"]
        return [" ".join(text.split()) for text in texts]  # wrapped to the panel's width

    assert captions(VariableDisplay.from_result(result)) == []
    X, _ = _data()
    two = dppca.dp_pca(
        X, 6.0, 1e-6, random_state=0, on_weak="release", scree={"k": 2}, score={"bins": 10}
    )
    assert captions(VariableDisplay.from_result(two)) == [TWO_COMPONENTS_CAPTION]


def test_displays_name_the_result_types_they_take():
    X, _ = _data(600)
    loading = dppca.dp_loading(X, 4.0, 1e-6, random_state=0, on_weak="release")
    with pytest.raises(TypeError, match="VariableDisplay draws a DPPCAResult; got LoadingResult"):
        VariableDisplay.from_result(loading)
    with pytest.raises(TypeError, match="ScreeDisplay draws a DPPCAResult or ScreeResult"):
        ScreeDisplay.from_result(loading)
    with pytest.raises(TypeError, match="LoadingDisplay draws a DPPCAResult, LoadingResult"):
        LoadingDisplay.from_result("directions")
    assert LoadingDisplay.from_result(np.eye(3)).ax_.get_xlabel() == "PC1"
    frame = pd.DataFrame(np.eye(2), index=["a", "b"], columns=["PC1", "PC2"])
    assert sorted(t.get_text() for t in _labels(LoadingDisplay.from_result(frame).ax_)) == [
        "a",
        "b",
    ]
    model = dppca.DPPCA(2, epsilon=4.0, random_state=0).fit(X)
    drawn = LoadingDisplay.from_result(model)
    assert sorted(t.get_text() for t in _labels(drawn.ax_)) == ["v1", "v2", "v3", "v4"]


def test_labels_are_moved_apart_with_leader_lines():
    """Six variables at almost the same point: after placement no two labels overlap, and
    the labels moved away from their points are joined to them by leader lines."""
    tips = np.array([[0.5 + 0.005 * j, 0.5 - 0.004 * j] for j in range(6)])
    loadings = pd.DataFrame(tips, index=[f"variable_{j}" for j in range(6)], columns=["PC1", "PC2"])
    ax = LoadingDisplay(loadings, kind="point").plot().ax_
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in _labels(ax)]
    for i, first in enumerate(boxes):
        for second in boxes[i + 1 :]:
            width = min(first.x1, second.x1) - max(first.x0, second.x0)
            height = min(first.y1, second.y1) - max(first.y0, second.y0)
            assert width <= 0.5 or height <= 0.5  # at most touching (half a pixel)
    assert len(_leaders(ax)) >= 3


def _leaders(ax):
    return [artist for artist in ax.get_children() if artist.get_gid() == "leader"]


def _starts_on_a_label(ax, leader) -> bool:
    """The leader's first point is on the edge of a label's box (within a pixel)."""
    renderer = ax.figure.canvas.get_renderer()
    x, y = ax.transData.transform(leader.get_xydata()[0])
    for text in _labels(ax):
        box = text.get_window_extent(renderer)
        inside = box.x0 - 1 <= x <= box.x1 + 1 and box.y0 - 1 <= y <= box.y1 + 1
        on_edge = min(abs(x - box.x0), abs(x - box.x1), abs(y - box.y0), abs(y - box.y1)) <= 1
        if inside and on_edge:
            return True
    return False


def test_a_pooled_scree_says_so_under_its_panel():
    from dppca.releases.notes import POOLED_SCREE

    X, _ = _data(600)
    plain = dppca.dp_pca(X, 4.0, 1e-6, random_state=0, on_weak="release", score={"bins": 6})
    noted = dppca.DPPCAResult(**{**plain.__dict__, "notes": (f"{POOLED_SCREE} variances",)})
    texts = [t.get_text() for t in noted.plot("scree").ax_.texts if t.get_gid() == "caption"]
    assert texts and "pooled" in texts[0]


def test_label_placement_is_deterministic():
    tips = np.random.default_rng(3).normal(size=(12, 2)) * 0.05 + [0.4, 0.2]
    loadings = pd.DataFrame(tips, index=[f"v{j}" for j in range(12)], columns=["PC1", "PC2"])
    first, second = (LoadingDisplay(loadings).plot().ax_ for _ in range(2))
    assert [t.get_position() for t in _labels(first)] == [t.get_position() for t in _labels(second)]


def _least_margin(ax):
    """The least distance, in points, from a label to the edge of its panel (negative: past it)."""
    renderer = ax.figure.canvas.get_renderer()
    box = ax.bbox
    margins = []
    for text in _labels(ax):
        extent = text.get_window_extent(renderer)
        inside = min(extent.x0 - box.x0, box.x1 - extent.x1, extent.y0 - box.y0, box.y1 - extent.y1)
        margins.append(inside * 72 / ax.figure.dpi)
    return min(margins)


def test_labels_keep_off_the_panel_edges(tmp_path):
    """Long names near the edge (the private Adult loadings): every label ends at least 2
    points inside its panel once the figure is saved, alone and on a page, and each leader line
    still starts at its label."""
    names = ["hours_per_week", "education_num", "capital_gain", "capital_loss", "age"]
    tips = [[0.58, -0.06], [0.57, -0.68], [0.04, 0.0], [0.0, 0.0], [0.59, 0.73]]
    loadings = pd.DataFrame(tips, index=names, columns=["PC1", "PC2"])
    for display in (LoadingDisplay(loadings).plot(), VariableDisplay(loadings).plot()):
        display.figure_.savefig(tmp_path / "panel.png", dpi=80, bbox_inches="tight")
        assert _least_margin(display.ax_) >= 2.0
        display.figure_.draw_without_rendering()  # at the figure's own resolution again
        for leader in _leaders(display.ax_):
            assert _starts_on_a_label(display.ax_, leader)
    from dppca.datasets import load_adult

    adult, _ = load_adult()
    result = dppca.dp_pca(
        adult.iloc[::8],
        4.0,
        1e-7,
        scale="private",
        scree="huber",
        random_state=20261202,
        on_weak="release",
    )
    page = result.plot("all", random_state=0)
    page.figure_.savefig(tmp_path / "page.png", dpi=80, bbox_inches="tight")
    for panel in ("loading", "variable", "biplot"):
        assert _least_margin(page.displays_[panel].ax_) >= 2.0, panel


def test_shared_variables_components_by_number_and_axes_checks():
    from dppca.datasets import load_1kg_aisnps

    X, _ = load_1kg_aisnps("kidd")
    drawn = dppca.dp_loading_plot(
        X,
        2.0,
        1e-7,
        display=("point", "heatmap"),
        heatmap_components=[1, 3],
        variables=6,
        non_private=True,
        random_state=0,
    )
    names = {
        key: sorted(t.get_text() for t in _labels(d.ax_)) for key, d in drawn.displays_.items()
    }
    assert (
        names[("DP", "point")] == names[("Non-private", "point")]
        and len(names[("DP", "point")]) == 6
    )
    rows = {
        key: [t.get_text() for t in d.ax_.get_yticklabels()] for key, d in drawn.displays_.items()
    }
    assert rows[("DP", "heatmap")] == rows[("Non-private", "heatmap")]
    heat = drawn.displays_[("DP", "heatmap")].ax_
    assert [t.get_text() for t in heat.get_xticklabels()] == ["PC1", "PC3"]
    for axes, message in [((1, 1), "two different"), ((1, 99), "from 1 to p=55"), ((0, 1), ">= 1")]:
        with pytest.raises(ValueError, match=message):
            dppca.dp_loading_plot(X, 2.0, 1e-7, axes=axes, random_state=0)


def test_a_page_shows_the_same_variables_in_every_panel_and_on_both_pages():
    from dppca.datasets import load_1kg_aisnps

    X, labels = load_1kg_aisnps("kidd")
    result = dppca.dp_pca(
        X,
        4.0,
        1e-7,
        groups=labels["superpopulation"].to_numpy(),
        non_private=True,
        random_state=0,
        on_weak="release",
        scree={"k": 6},
    )
    pages = result.plot("pages", random_state=0, variables=5)
    shown = []
    for page in (pages.private_, pages.reference_):
        for panel in ("loading", "variable", "biplot"):
            shown.append(sorted(t.get_text() for t in _labels(page.displays_[panel].ax_)))
    assert all(names == shown[0] for names in shown) and len(shown[0]) == 5


def test_a_flagged_frame_is_stamped_on_the_score_panels():
    from dppca.results.status import ReleaseStatus

    X, _ = _data(3000)
    plain = dppca.dp_pca(X, 4.0, 1e-6, random_state=0, on_weak="release", score={"bins": 6})
    assert not plain.notes
    wide = {**plain.status, "frame": ReleaseStatus("too wide", "30 scales")}
    noted = dppca.DPPCAResult(**{**plain.__dict__, "status": wide})
    caption = "Caution: the frame is too wide (see result.status)."
    for kind, options in (("score", {}), ("sample", {"random_state": 0})):
        ax = noted.plot(kind, **options).ax_
        assert [t.get_text() for t in ax.texts if t.get_gid() == "caption"] == [caption]
    ax = plain.plot("score").ax_
    assert not [t for t in ax.texts if t.get_gid() == "caption"]


def test_two_variables_lay_out_with_the_caption_inside_the_figure():
    """p = 2: the k = 2 caption under the variable plot once made the layout engine squeeze
    every panel to nothing (a warning, an error here); it is now wrapped to its panel."""
    X = np.random.default_rng(0).normal(size=(3000, 2)) * [3.0, 1.0]
    result = dppca.dp_pca(X, 3.0, 1e-6, random_state=0, on_weak="release")
    page = result.plot("all")
    page.figure_.canvas.draw()
    single = VariableDisplay.from_result(result)
    single.figure_.canvas.draw()
    renderer = single.figure_.canvas.get_renderer()
    caption = next(t for t in single.ax_.texts if t.get_gid() == "caption")
    assert single.figure_.bbox.contains(*caption.get_window_extent(renderer).p0)


@pytest.mark.parametrize(
    ("draw", "source", "kind"),
    [
        (lambda X, **kw: dppca.dp_loading_plot(X, 2.0, 1e-6, **kw), "dp_loading", "loading"),
        (lambda X, **kw: dppca.dp_scree_plot(X, 2, 2.0, 1e-6, **kw), "dp_scree", "scree"),
        (lambda X, **kw: dppca.dp_score_plot(X, 2.0, 1e-6, **kw), "dp_score", "score"),
    ],
)
def test_a_one_call_plot_given_axes_names_the_calls_that_draw_into_them(draw, source, kind):
    """The one-call plots draw a figure of their own; given ``ax`` they say, before anything is
    spent, which release and which ``plot`` draw into it, and those calls do."""
    X = np.random.default_rng(0).standard_normal((2000, 3)) * [3.0, 2.0, 1.0]
    accountant = dppca.Accountant(Budget(10.0, 1e-3))
    _, ax = plt.subplots()
    expected = rf"dppca\.{source}\(\.\.\.\) and draw with result\.plot\('{kind}', ax=ax\)"
    with pytest.raises(TypeError, match=expected):
        draw(X, ax=ax, accountant=accountant)
    assert accountant.spent == Budget(0.0, 0.0)
    result = dppca.dp_loading(X, 2.0, 1e-6, random_state=0)
    assert result.plot("loading", ax=ax).ax_ is ax
