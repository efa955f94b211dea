"""Public grids, random pairings and linear-algebra helpers against direct computations."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dppca.numerics.grids import (
    LINEAR_GRID_LIMIT,
    LOG_GRID_LIMIT,
    CellCounts,
    grid_runs,
    linear_cells,
    log_cells,
)
from dppca.numerics.linalg import (
    descending_eigh,
    from_upper,
    from_vecd,
    to_vecd,
    upper_entries,
)
from dppca.numerics.pairs import half_distances, half_squared_gaps
from dppca.numerics.permutation import random_permutation
from dppca.numerics.rows import ordinary_pca


def test_log_cells_are_the_nearest_grid_points_and_clamp_the_rest():
    rng = np.random.default_rng(0)
    x = 10.0 ** rng.uniform(-250, 250, 2000)
    expected = [round(1000 * math.log10(value)) for value in x]
    assert np.max(np.abs(log_cells(x) - expected)) <= 1  # ties at half cells may round either way
    assert np.mean(log_cells(x) == expected) > 0.99
    special = log_cells(np.array([0.0, -1.0, np.inf, np.nan, 1e-320, 1e308]))
    low, high = -LOG_GRID_LIMIT, LOG_GRID_LIMIT  # the grid spans 1e-300 to 1e300
    assert special.tolist() == [low, low, high, high, low, high]


def test_linear_cells_round_half_up_exactly_and_clamp():
    values = [-2.5, -1.2, -0.5, 0.4, 0.5, 7.25, 1e30, -np.inf]
    step = 0.5
    expected = [
        max(
            min(math.floor(Fraction(v) / Fraction(step) + Fraction(1, 2)), LINEAR_GRID_LIMIT),
            -LINEAR_GRID_LIMIT,
        )
        if math.isfinite(v)
        else -LINEAR_GRID_LIMIT
        for v in values
    ]
    assert linear_cells(np.array(values), step).tolist() == expected


def test_grid_runs_count_the_values_below_and_at_or_below_each_point():
    cells = np.array([-2, -2, 0, 3, 3, 3])
    starts, lengths, below, at_or_below = grid_runs(CellCounts.of(cells), 4)
    points = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths, strict=True)])
    assert points.tolist() == list(range(-4, 5))  # the runs tile the grid in order
    assert np.repeat(below, lengths).tolist() == [int(np.sum(cells < j)) for j in range(-4, 5)]
    assert np.repeat(at_or_below, lengths).tolist() == [
        int(np.sum(cells <= j)) for j in range(-4, 5)
    ]
    occupied = starts[below != at_or_below]
    assert occupied.tolist() == [-2, 0, 3] and np.all(lengths[below != at_or_below] == 1)


def test_pair_statistics_match_a_direct_loop_and_never_overflow():
    X = np.random.default_rng(1).normal(size=(9, 3)) * [1.0, 1e3, 1e-3]
    first, second = random_permutation(9, np.random.default_rng(5)).pairs()
    pairs = list(zip(first, second, strict=True))
    direct = [np.linalg.norm(X[a] - X[b]) / math.sqrt(2) for a, b in pairs]
    assert np.allclose(half_distances(X[first], X[second]), direct, rtol=1e-14)
    squares = half_squared_gaps(X[first, 0], X[second, 0])
    expected = [(X[b, 0] - X[a, 0]) ** 2 / 2 for a, b in pairs]
    assert np.allclose(squares, expected, rtol=1e-14)
    huge = np.array([[1.7e308, -1.7e308], [-1.7e308, 1.7e308]])
    assert np.isfinite(half_distances(huge[[0]], huge[[1]])).all()
    largest = np.finfo(np.float64).max  # overflow is the largest float, never NaN or inf
    assert half_squared_gaps(huge[[0], 0], huge[[1], 0])[0] == largest


def test_vecd_is_an_isometry_and_from_upper_inverts_upper_entries():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(4, 4))
    S = A + A.T
    assert np.linalg.norm(to_vecd(S)) == pytest.approx(np.linalg.norm(S), rel=1e-14)
    assert np.allclose(from_vecd(to_vecd(S), 4), S, rtol=1e-14, atol=0)
    assert np.array_equal(from_upper(upper_entries(S), 4), S)


def test_ordinary_pca_is_the_covariance_eigen_decomposition_aligned_to_given_directions():
    X = np.random.default_rng(3).normal(size=(500, 3)) * [3.0, 2.0, 1.0]
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False))
    reference = -vectors[:, ::-1]  # any signs: the result is aligned to these
    eigenvalues, aligned = ordinary_pca(X, reference)
    assert np.allclose(eigenvalues, values[::-1], rtol=1e-12)
    assert np.all(np.einsum("ij,ij->j", aligned, reference) > 0)
    _, oriented = descending_eigh(np.cov(X, rowvar=False))
    peaks = oriented[np.argmax(np.abs(oriented), axis=0), range(3)]
    assert np.all(peaks > 0)  # each column's largest entry is positive
