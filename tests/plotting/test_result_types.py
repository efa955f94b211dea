"""Every plot helper given every result type: it draws the release, or it raises a TypeError
naming its parameter, the types it takes and the type it got (never an AttributeError)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import FancyArrowPatch

import dppca
from dppca.plotting import (
    plot_biplot,
    plot_loading_heatmap,
    plot_loadings,
    plot_score_histogram,
    plot_score_points,
    plot_scree,
    plot_variables,
)

NAMES = ["v1", "v2", "v3", "v4"]
LIMITS = ((-1.0, 1.0), (-1.0, 1.0))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def results():
    """One release of each type, on the same data."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.standard_normal((1500, 4)) * [3, 2, 1, 0.5], columns=NAMES)
    return {
        "DPPCAResult": dppca.dp_pca(
            X, 6.0, 1e-6, random_state=0, on_weak="release", scree={"k": 3}, score={"bins": 8}
        ),
        "LoadingResult": dppca.dp_loading(X, 4.0, 1e-6, random_state=1, on_weak="release"),
        "ScreeResult": dppca.dp_scree(
            X,
            3,
            4.0,
            1e-6,
            method=("clipped", "huber"),
            directions=np.eye(4),
            random_state=2,
            on_weak="release",
        ),
        "ScoreResult": dppca.dp_score(
            X, 4.0, 1e-6, bins=8, directions=np.eye(4), random_state=3, on_weak="release"
        ),
    }


def _labels(ax):
    return sorted(t.get_text() for t in ax.texts if t.get_gid() == "label")


def _refused(call, value, parameter, function, accepted):
    with pytest.raises(TypeError) as caught:
        call(value)
    message = str(caught.value)
    assert message.startswith(f"{parameter} of {function} must be {accepted}")
    assert f"got {type(value).__name__}." in message
    return message


# plot_scree: a pipeline's scree, or every method of a scree release.


@pytest.mark.parametrize("kind", ["pve", "scree"])
def test_plot_scree_draws_a_pipeline_result(results, kind):
    result = results["DPPCAResult"]
    ax = plot_scree(result, kind=kind)
    (line,) = ax.get_lines()
    expected = result.pve if kind == "pve" else result.scree
    assert np.array_equal(line.get_ydata(), expected) and len(expected) == 3
    assert list(line.get_xdata()) == [1, 2, 3]
    assert line.get_label() == "Clipped (DP)"


@pytest.mark.parametrize("kind", ["pve", "scree"])
def test_plot_scree_draws_every_method_of_a_scree_result(results, kind):
    result = results["ScreeResult"]
    ax = plot_scree(result, kind=kind)
    table = result.pve if kind == "pve" else result.values
    drawn = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    assert sorted(drawn) == ["Clipped (DP)", "Huber (DP)"]
    assert np.array_equal(drawn["Clipped (DP)"], table["clipped"])
    assert np.array_equal(drawn["Huber (DP)"], table["huber"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Clipped (DP)", "Huber (DP)"]


@pytest.mark.parametrize("name", ["LoadingResult", "ScoreResult"])
def test_plot_scree_refuses_a_release_without_a_scree(results, name):
    message = _refused(
        plot_scree,
        results[name],
        "series",
        "plot_scree",
        "a dict of str to arrays, a DPPCAResult or a ScreeResult",
    )
    assert "needs a released scree" in message


def test_plot_scree_refuses_a_bare_sequence():
    _refused(
        plot_scree,
        [0.6, 0.4],
        "series",
        "plot_scree",
        "a dict of str to arrays, a DPPCAResult or a ScreeResult",
    )


# plot_loadings and plot_loading_heatmap: the private directions of any result.


@pytest.mark.parametrize("name", ["DPPCAResult", "LoadingResult", "ScreeResult", "ScoreResult"])
def test_plot_loadings_draws_the_directions_of_every_result(results, name):
    result = results[name]
    ax = plot_loadings(result, axes=(1, 2))
    assert np.allclose(ax.collections[0].get_offsets(), np.asarray(result.directions)[:, :2])
    assert _labels(ax) == NAMES


@pytest.mark.parametrize("name", ["DPPCAResult", "LoadingResult", "ScreeResult", "ScoreResult"])
def test_plot_loading_heatmap_draws_the_directions_of_every_result(results, name):
    result = results[name]
    ax = plot_loading_heatmap(result, components=[1, 3])
    assert np.allclose(ax.images[0].get_array(), np.asarray(result.directions)[:, [0, 2]])
    assert [t.get_text() for t in ax.get_yticklabels()] == NAMES


def test_loading_helpers_draw_a_fitted_estimator_and_refuse_other_objects():
    X = pd.DataFrame(np.random.default_rng(1).standard_normal((600, 4)), columns=NAMES)
    model = dppca.DPPCA(2, epsilon=4.0, random_state=0).fit(X)
    assert _labels(plot_loadings(model)) == NAMES
    accepted = (
        "a DataFrame of loadings, a 2-D array of finite directions (one column per component), "
        "a DPPCAResult, LoadingResult, ScreeResult, ScoreResult or a fitted DPPCA"
    )
    _refused(plot_loadings, {"PC1": [1.0]}, "loadings", "plot_loadings", accepted)
    _refused(plot_loading_heatmap, "loadings", "loadings", "plot_loading_heatmap", accepted)


# plot_variables: the correlations need the private scree values of the pipeline.


def test_plot_variables_draws_a_pipeline_result(results):
    result = results["DPPCAResult"]
    ax = plot_variables(result)
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch) and p.get_gid() == "arrow"]
    tips = np.array([arrow._posA_posB[1] for arrow in arrows])
    assert np.allclose(tips, result.variable_coordinates().to_numpy())
    assert _labels(ax) == NAMES and (ax.get_xlabel(), ax.get_ylabel()) == ("PC1", "PC2")


@pytest.mark.parametrize("name", ["LoadingResult", "ScreeResult", "ScoreResult"])
def test_plot_variables_refuses_other_releases(results, name):
    message = _refused(
        plot_variables,
        results[name],
        "coordinates",
        "plot_variables",
        "a DataFrame of variables by two components or a DPPCAResult",
    )
    assert "private scree values of dp_pca" in message


# Helpers whose input is a choice made from a result (a histogram and its centring, random
# points): they refuse every result and name the display that draws it.


#: Each helper, how it is called, its parameter's name, what it takes and the display named.
REFUSING = {
    "plot_score_histogram": (
        lambda value: plot_score_histogram(value, LIMITS),
        "cells",
        "a DataFrame of cells or a dict of label to DataFrame",
        "ScoreHistogramDisplay.from_result(result)",
    ),
    "plot_score_points": (
        plot_score_points,
        "points",
        "a DataFrame of score points (for example from dppca.sample_scores)",
        "ScorePointsDisplay.from_result(result)",
    ),
    "plot_biplot": (
        lambda value: plot_biplot(value, NAMES),
        "biplot",
        "BiplotCoordinates (from DPPCAResult.biplot)",
        'result.plot("biplot")',
    ),
}


@pytest.mark.parametrize("helper", sorted(REFUSING))
@pytest.mark.parametrize("name", ["DPPCAResult", "LoadingResult", "ScreeResult", "ScoreResult"])
def test_helpers_drawing_a_choice_refuse_results(results, name, helper):
    call, parameter, takes, display = REFUSING[helper]
    message = _refused(call, results[name], parameter, helper, takes)
    assert display in message


def test_score_and_biplot_helpers_still_draw_their_own_inputs(results):
    """What the refusing helpers take, taken from a result by the public route."""
    result = results["DPPCAResult"]
    points = dppca.sample_scores(result, random_state=0)
    assert len(plot_score_points(points).collections[0].get_offsets()) == result.n_samples
    assert plot_score_histogram(result.histogram, result.frame.limits()).collections
    private, _ = result.biplot(random_state=0)
    assert len(plot_biplot(private, NAMES).collections[0].get_offsets()) == result.n_samples
    _refused(
        lambda value: plot_score_histogram({"a": value}, LIMITS),
        [1.0],
        "cells['a']",
        "plot_score_histogram",
        "a DataFrame of cells or a dict of label to DataFrame",
    )


# The figures of several panels.


@pytest.mark.parametrize("name", ["DPPCAResult", "LoadingResult", "ScreeResult", "ScoreResult"])
def test_loading_grid_draws_every_result(results, name):
    from dppca.plotting import loading_grid

    _, displays = loading_grid(results[name], display=("point", "heatmap"))
    assert _labels(displays[("DP", "point")].ax_) == NAMES
    heat = displays[("DP", "heatmap")].ax_
    assert np.allclose(heat.images[0].get_array()[:, 0], results[name].directions[:, 0])


def test_grids_and_the_page_name_what_they_take(results):
    from dppca.plotting import PageDisplay, loading_grid, score_grid

    with pytest.raises(TypeError, match=r"loading_grid draws a DPPCAResult, .*; got str"):
        loading_grid("directions")
    for name in ("LoadingResult", "ScreeResult"):
        with pytest.raises(
            TypeError, match=f"score_grid draws a DPPCAResult or ScoreResult; got {name}"
        ):
            score_grid(results[name])
        with pytest.raises(TypeError, match=f"PageDisplay draws a DPPCAResult; got {name}"):
            PageDisplay.from_result(results[name])
    for name in ("DPPCAResult", "ScoreResult"):
        _, displays = score_grid(results[name])
        assert len(displays) == 1
