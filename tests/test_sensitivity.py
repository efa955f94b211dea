"""The Frobenius change of the computed Kendall matrix between neighbouring data sets.

Neighbours differ in one row (replacement, n fixed). The mechanism uses
``kendall_sensitivity(bound, n)``: ``2 sqrt(2) bound^2 / n`` plus a 1e-9 relative floating-point
allowance. No neighbouring pair may exceed it, and the constructed worst case must reach at least
0.99 of the bare bound (it reaches it exactly in exact arithmetic).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dppca import kendall_matrix
from dppca.stats.sensitivity import kendall_sensitivity

VARIANTS = {
    "spherical": {"transform": "spherical"},
    "winsorized": {"transform": "winsorized", "radius": 0.7},
    "pairs=4": {"transform": "spherical", "pairs": 4},
}


def _bound(kwargs) -> float:
    return kwargs.get("radius", 1.0)


def _change(X, row, replacement, kwargs, seed=0) -> float:
    neighbour = X.copy()
    neighbour[row] = replacement
    first = kendall_matrix(X, random_state=seed, **kwargs)
    second = kendall_matrix(neighbour, random_state=seed, **kwargs)  # the same pair design
    return float(np.linalg.norm(first - second))


def _random_dataset(rng):
    n = int(rng.integers(6, 40))
    p = int(rng.integers(1, 6))
    kind = rng.integers(4)
    if kind == 0:
        X = rng.standard_normal((n, p))
    elif kind == 1:
        X = rng.standard_t(1, size=(n, p))
    elif kind == 2:  # clusters of duplicates and near-duplicates
        X = np.repeat(rng.standard_normal((3, p)), math.ceil(n / 3), axis=0)[:n]
        X[::2] += 1e-11 * rng.standard_normal((len(X[::2]), p))
    else:
        X = rng.standard_normal((n, p)) + 1e6
    return X * 10.0 ** rng.uniform(-3, 3)


def _random_replacement(rng, X):
    kind = rng.integers(4)
    p = X.shape[1]
    if kind == 0:
        return rng.standard_normal(p) * np.abs(X).max()
    if kind == 1:
        return X[rng.integers(len(X))].copy()  # an exact duplicate of another row
    if kind == 2:
        return X[rng.integers(len(X))] * (1 + 1e-13)  # a near-duplicate
    return rng.standard_normal(p) * 1e8 * np.abs(X).max()  # a gross outlier


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_neighbours_never_exceed_the_sensitivity(variant):
    kwargs = VARIANTS[variant]
    rng = np.random.default_rng(2024)
    worst = 0.0
    for _ in range(150):
        X = _random_dataset(rng)
        n = X.shape[0]
        if "radius" in kwargs:
            kwargs = {**kwargs, "radius": float(np.std(X) + 1e-300)}
        row = int(rng.integers(n))
        change = _change(X, row, _random_replacement(rng, X), kwargs, seed=int(rng.integers(99)))
        ratio = change / kendall_sensitivity(_bound(kwargs), n)
        worst = max(worst, ratio)
    assert worst <= 1.0


@pytest.mark.parametrize("variant", VARIANTS)
def test_adversarial_search_never_exceeds_the_sensitivity(variant):
    """Hill climbing on all rows of both neighbours to maximise the change, from random starts."""
    kwargs = VARIANTS[variant]
    rng = np.random.default_rng(7)
    n, p = 9, 2
    bound = kendall_sensitivity(_bound(kwargs), n)
    best_overall = 0.0
    for _ in range(4):
        X = rng.standard_normal((n, p))
        replacement = rng.standard_normal(p)
        best = _change(X, 0, replacement, kwargs) / bound
        step = 1.0
        for _ in range(150):
            candidate_X = X + step * rng.standard_normal(X.shape) * (rng.random((n, 1)) < 0.3)
            candidate_z = replacement + step * rng.standard_normal(p)
            value = _change(candidate_X, 0, candidate_z, kwargs) / bound
            assert value <= 1.0
            if value > best:
                X, replacement, best = candidate_X, candidate_z, value
            else:
                step = max(step * 0.97, 1e-3)
        best_overall = max(best_overall, best)
    # The search climbs well above a random pair's change; the worst case is the test below.
    assert best_overall > 0.5


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", [5, 50, 400])
def test_constructed_worst_case_reaches_the_bound(variant, n):
    """All other rows at one point; row 0 moved from direction e1 to e2, beyond the radius."""
    kwargs = VARIANTS[variant]
    p = 3
    far = 10.0 * _bound(kwargs)
    X = np.full((n, p), 5.0)
    X[0] = 5.0 + far * np.eye(p)[0]
    change = _change(X, 0, 5.0 + far * np.eye(p)[1], kwargs)
    bare = 2.0 * math.sqrt(2.0) * _bound(kwargs) ** 2 / n
    assert change >= 0.99 * bare
    assert change <= kendall_sensitivity(_bound(kwargs), n)


def test_paper_sensitivity_is_sqrt2_larger():
    tight = kendall_sensitivity(1.0, 100, "tight")
    assert kendall_sensitivity(1.0, 100, "paper") == 4.0 / 100
    assert tight == pytest.approx(2 * math.sqrt(2) / 100, rel=1e-8)
    assert kendall_sensitivity(3.0, 100, "paper") == pytest.approx(9 * 4.0 / 100, rel=1e-15)


def test_sensitivity_errors():
    with pytest.raises(ValueError, match="sensitivity must be one of"):
        kendall_sensitivity(1.0, 10, "loose")
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        kendall_sensitivity(1.0, 1)
