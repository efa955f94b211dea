"""Variable-plot and biplot coordinates against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dppca import dp_pca
from dppca.numerics.biplot import biplot_coordinates, variable_correlations

V = np.array([[0.6, 0.8], [0.8, -0.6]])


def test_private_variable_correlations_by_hand():
    values = variable_correlations(V, np.array([4.0, 1.0]), (1, 2))
    # Row 1: (0.6 * 2, 0.8 * 1) / sqrt(0.36 * 4 + 0.64 * 1) = (1.2, 0.8) / sqrt(2.08).
    assert np.allclose(values[0], np.array([1.2, 0.8]) / math.sqrt(2.08))
    # Row 2: (0.8 * 2, -0.6) / sqrt(0.64 * 4 + 0.36) = (1.6, -0.6) / sqrt(2.92).
    assert np.allclose(values[1], np.array([1.6, -0.6]) / math.sqrt(2.92))
    assert np.allclose(np.linalg.norm(values, axis=1), 1.0)  # k = 2 = p: unit vectors


def test_variable_correlations_with_k_below_p_and_zero_rows():
    directions = np.eye(3)
    values = variable_correlations(directions, np.array([4.0, 1.0]), (1, 2))
    assert np.allclose(values[:2], [[1.0, 0.0], [0.0, 1.0]])
    assert np.all(np.isnan(values[2]))  # the third variable has no variance in k-space


def test_reference_variable_correlations_use_the_sd():
    values = variable_correlations(V, np.array([4.0, 1.0]), (2, 1), sd=np.array([2.0, 4.0]))
    assert np.allclose(values, [[0.8 / 2, 1.2 / 2], [-0.6 / 4, 1.6 / 4]])


POINTS = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0]])


def test_biplot_without_scaling_by_hand():
    result = biplot_coordinates(POINTS, np.eye(2), np.array([4.0, 1.0]), (1, 2), 5, alpha=0.0)
    # Distances from the mean (0, 0): 1, 1, 2, 2; the 0.9 quantile (linear) is 2.
    assert result.score_radius == pytest.approx(2.0)
    assert result.arrow_radius == pytest.approx(1.0)
    assert result.arrow_scale == pytest.approx(2.0)
    assert np.allclose(result.arrows, 2 * np.eye(2))
    assert np.array_equal(result.points, POINTS) and result.note == ""


def test_biplot_with_alpha_one_by_hand():
    result = biplot_coordinates(POINTS, np.eye(2), np.array([4.0, 1.0]), (1, 2), 5, alpha=1.0)
    # d = sqrt(4 * (4, 1)) = (4, 2): points / d and loadings * d.
    assert np.allclose(result.scale, [4.0, 2.0])
    assert np.allclose(result.points, [[0.25, 0], [-0.25, 0], [0, 1], [0, -1]])
    assert result.score_radius == pytest.approx(1.0)
    assert result.arrow_radius == pytest.approx(4.0)
    assert np.allclose(result.arrows, [[1.0, 0.0], [0.0, 0.5]])


def test_biplot_display_frame_is_square_and_holds_origin_and_arrows():
    frame = ((1.0, 5.0), (2.0, 4.0))
    result = biplot_coordinates(
        POINTS, np.eye(2), np.array([4.0, 1.0]), (1, 2), 5, frame_limits=frame
    )
    # x: [0, 5] (origin, frame); y: [0, 4] (origin, arrow tip 2, frame): span 5, centred.
    assert result.xlim == pytest.approx((0.0, 5.0))
    assert result.ylim == pytest.approx((-0.5, 4.5))


def test_biplot_reused_scale_zero_axis_and_empty_points():
    reused = biplot_coordinates(POINTS, np.eye(2), np.array([4.0, 1.0]), (1, 2), 5, arrow_scale=0.5)
    assert np.allclose(reused.arrows, 0.5 * np.eye(2))
    zero = biplot_coordinates(POINTS, np.eye(2), np.array([4.0, 0.0]), (1, 2), 5, alpha=0.5)
    assert "zero-eigenvalue axis suppressed" in zero.note
    assert np.all(zero.points[:, 1] == 0) and np.all(zero.arrows[:, 1] == 0)
    empty = biplot_coordinates(np.empty((0, 2)), np.eye(2), np.array([4.0, 1.0]), (1, 2), 5)
    assert empty.arrow_scale == 0 and "no synthetic observations" in empty.note
    with pytest.raises(ValueError, match="alpha must be <= 1"):
        biplot_coordinates(POINTS, np.eye(2), np.array([4.0, 1.0]), (1, 2), 5, alpha=2.0)


def test_result_methods():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((800, 3)) * [3.0, 2.0, 1.0]
    result = dp_pca(X, 5.0, 1e-5, random_state=0, non_private=True, score={"bins": 8})
    private = result.variable_coordinates()
    assert list(private.columns) == ["PC1", "PC2"] and list(private.index) == ["X1", "X2", "X3"]
    assert np.all(np.linalg.norm(private.to_numpy(), axis=1) <= 1 + 1e-12)
    reference = result.variable_coordinates(non_private=True)
    assert reference.shape == (3, 2)
    other = result.variable_coordinates(axes=(1, 3))  # the formula on PC1 and PC3 (k = 3)
    assert list(other.columns) == ["PC1", "PC3"]
    expected = variable_correlations(result.directions, result.scree, (1, 3))
    assert np.array_equal(other.to_numpy(), expected, equal_nan=True)
    assert np.allclose(other["PC1"], private["PC1"], equal_nan=True)
    short = dp_pca(X, 5.0, 1e-5, random_state=0, scree={"k": 2}, score={"bins": 8})
    with pytest.raises(ValueError, match=r"axes must be PC numbers from 1 to k=2; got \(1, 3\)"):
        short.variable_coordinates(axes=(1, 3))
    assert short.variable_coordinates(non_private=False).shape == (3, 2)
    dp_biplot, np_biplot = result.biplot(random_state=1)
    assert len(dp_biplot.points) == 800 and dp_biplot.arrows.shape == (3, 2)
    assert np_biplot.arrow_scale == dp_biplot.arrow_scale
    assert np_biplot.xlim == dp_biplot.xlim
    plain = dp_pca(X, 5.0, 1e-5, random_state=0, score={"bins": 8})
    assert plain.biplot(random_state=1)[1] is None
    with pytest.raises(ValueError, match="No non-private reference"):
        plain.variable_coordinates(non_private=True)
