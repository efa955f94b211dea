"""Synthetic scores from private histograms."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import NoMassWarning, dp_score, sample_scores

LOADING = {"loading_epsilon": 1.0, "loading_delta": 1e-6}


@pytest.fixture(scope="module")
def grouped():
    rng = np.random.default_rng(0)
    labels = rng.choice(["x", "y"], size=2000, p=[0.7, 0.3])
    X = rng.standard_normal((2000, 3)) + np.where(labels[:, None] == "x", 0.0, 6.0)
    return dp_score(
        X,
        2.0,
        1e-6,
        bins=8,
        method=("add", "sparse"),
        groups=labels,
        **LOADING,
        random_state=1,
        on_weak="release",
    )


def test_group_sizes_follow_the_public_sizes(grouped):
    sample = sample_scores(grouped, random_state=0)
    counts = sample["group"].value_counts()
    assert counts["x"] == grouped.group_sizes["x"] and counts["y"] == grouped.group_sizes["y"]
    assert list(sample.columns) == ["PC1", "PC2", "group"]
    small = sample_scores(grouped, n=7, random_state=0)
    assert small["group"].value_counts().sum() == 7


def test_zero_share_warns(grouped):
    with pytest.warns(UserWarning, match="receives no synthetic points"):
        sample = sample_scores(grouped, n=1, random_state=0)
    assert len(sample) == 1


def test_center_sampling_without_bandwidth_returns_cell_centres(grouped):
    sample = sample_scores(
        grouped, method="center", bandwidth_scale=0.0, random_state=0, histogram="sparse"
    )
    table = grouped.groups["x"]["sparse"]
    centres = set(zip((table.xmin + table.xmax) / 2, (table.ymin + table.ymax) / 2, strict=True))
    points = sample[sample.group == "x"][["PC1", "PC2"]].itertuples(index=False, name=None)
    assert all(point in centres for point in points)


def test_uniform_sampling_frequencies_match_the_probabilities(grouped):
    sample = sample_scores(
        grouped, n=40000, method="uniform", bandwidth_scale=0.0, random_state=3, histogram="add"
    )
    table = grouped.groups["y"]["add"]
    points = sample[sample.group == "y"][["PC1", "PC2"]].to_numpy()
    m = len(points)
    inside = (
        (points[:, None, 0] > table.xmin.to_numpy())
        & (points[:, None, 0] <= table.xmax.to_numpy())
        & (points[:, None, 1] > table.ymin.to_numpy())
        & (points[:, None, 1] <= table.ymax.to_numpy())
    )
    assert np.all(inside.sum(axis=1) == 1)  # every point lies in exactly one cell
    frequencies = inside.mean(axis=0)
    prob = table.prob.to_numpy()
    # Binomial sd per cell; five of them.
    assert np.all(np.abs(frequencies - prob) <= 5 * np.sqrt(prob * (1 - prob) / m) + 1e-12)


def test_bandwidth_adds_gaussian_spread(grouped):
    table = grouped.groups["x"]["sparse"]
    width = float((table.xmax - table.xmin).median())
    a = sample_scores(
        grouped, n=20000, method="center", bandwidth_scale=0.0, random_state=5, histogram="sparse"
    )
    b = sample_scores(
        grouped, n=20000, method="center", bandwidth_scale=0.5, random_state=5, histogram="sparse"
    )
    # Same cell draws (same seed, same stream): the difference is the Gaussian jitter.
    jitter = (b["PC1"] - a["PC1"]).to_numpy()
    assert jitter.std() / (0.5 * width) == pytest.approx(1.0, abs=5 / math.sqrt(2 * len(jitter)))


def test_display_centring_shifts_points(grouped):
    a = sample_scores(grouped, n=100, random_state=1)
    b = sample_scores(grouped, n=100, random_state=1, center=True)
    assert np.allclose(
        a[["PC1", "PC2"]].to_numpy() - grouped.frame.center, b[["PC1", "PC2"]].to_numpy()
    )


def test_no_mass_warns_and_returns_no_rows():
    X = np.random.default_rng(0).standard_normal((50, 3))
    result = dp_score(  # a public frame: at epsilon 0.05 no cell of 50 rows survives
        X, 0.05, 1e-6, bins=5, method="sparse", **LOADING, random_state=0, frame=((-3, 3),) * 2
    )
    with pytest.warns(NoMassWarning, match="no probability mass"):
        sample = sample_scores(result, random_state=0)
    assert len(sample) == 0 and list(sample.columns) == ["PC1", "PC2"]


def test_ungrouped_sampling_and_reproducibility():
    X = np.random.default_rng(1).standard_normal((400, 3))
    result = dp_score(X, 2.0, 1e-6, bins=6, **LOADING, random_state=0, on_weak="release")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = sample_scores(result, random_state=11)
    assert len(first) == 400
    pd.testing.assert_frame_equal(first, sample_scores(result, random_state=11))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"method": "kde"}, ValueError, "method must be one of"),
        ({"n": 0}, ValueError, "n must be an integer >= 1"),
        ({"bandwidth_scale": -1.0}, ValueError, "bandwidth_scale must be >= 0"),
        ({"histogram": "laplace"}, ValueError, "histogram must be one of"),
    ],
)
def test_errors(grouped, kwargs, error, message):
    with pytest.raises(error, match=message):
        sample_scores(grouped, **kwargs)
    with pytest.raises(TypeError, match="ScoreResult"):
        sample_scores({"add": None})


def test_group_sizes_of_zero_share_the_points_equally(grouped):
    """Sizes read back from an edited or corrupted export may all be 0: the points are then
    shared equally, with no error."""
    from dataclasses import replace

    empty = replace(grouped, group_sizes=dict.fromkeys(grouped.group_sizes, 0))
    points = sample_scores(empty, 90, random_state=0)
    assert len(points) == 90
