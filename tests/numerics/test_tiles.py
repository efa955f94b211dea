"""The Laplacian tiles: one row changes the work on its own pairs only (a row at 1e100 does not
send its tile to the explicit path), the result stays exact on rows of any magnitude, and the
near-pair search finds exactly the pairs of a brute-force test."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import dppca.numerics.pair_sums as pair_sums
from dppca.numerics.kendall import unit_error_bound, unit_kendall
from dppca.numerics.pair_sums import (
    BAND_EXPONENT,
    NEAR_DUPLICATE_RATIO,
    _working_tile,
    block_shift,
    near_pairs,
)
from dppca.numerics.signs import MAX_BOUND, MIN_BOUND, SphericalSign, WinsorizedSign

from kendall_reference import direct_kendall, winsorized_h2

TOLERANCE = 1e-12


def _base(n=300, p=4, seed=0):
    return np.random.default_rng(seed).standard_normal((n, p)) * [3.0, 2.0, 1.0, 0.5][:p]


def _explicit_pairs(monkeypatch, X, tile_rows):
    """How many pairs the tiles compute explicitly."""
    counted = [0]
    original = pair_sums._chunked_pair_sum

    def counting(first, rows, second, cols, sign, chunk_pairs):
        counted[0] += len(rows)
        return original(first, rows, second, cols, sign, chunk_pairs)

    monkeypatch.setattr(pair_sums, "_chunked_pair_sum", counting)
    unit_kendall(X, SphericalSign(), tile_rows=tile_rows, threads=1)
    return counted[0]


NEIGHBOURS = {
    "a row at 1e50": lambda X: np.full(X.shape[1], 1e50),
    "a row at 1e100": lambda X: np.full(X.shape[1], 1e100),
    "a row at 1e300": lambda X: np.full(X.shape[1], 1e300),
    "a row at -1.7e308": lambda X: np.full(X.shape[1], -1.7e308),
    "subnormal values": lambda X: np.full(X.shape[1], 5e-324),
    "a duplicate": lambda X: X[1].copy(),
    "a near duplicate": lambda X: X[1] + 1e-12,
}


@pytest.mark.parametrize("tile_rows", [64, 1024])
@pytest.mark.parametrize("name", NEIGHBOURS)
def test_one_row_changes_the_explicit_work_by_its_own_pairs_at_most(monkeypatch, name, tile_rows):
    X = _base()
    neighbour = X.copy()
    neighbour[7] = NEIGHBOURS[name](X)
    base = _explicit_pairs(monkeypatch, X, tile_rows)
    changed = _explicit_pairs(monkeypatch, neighbour, tile_rows)
    assert abs(changed - base) <= len(X) - 1, (base, changed)
    if tile_rows >= len(X) and "row at" in name:
        # One tile: its farthest row is computed explicitly whether or not it is far.
        assert changed == base


def _hostile():
    rng = np.random.default_rng(7)
    tiny = rng.standard_normal((41, 3)) * 1e-300
    tiny[5] = [1e300, -2e299, 3e298]  # one row at 1e300 among rows at 1e-300
    spread = rng.standard_normal((37, 2)) * 2.0 ** rng.integers(-600, 600, size=(37, 1))
    mixed = rng.standard_normal((33, 3))
    mixed[[3, 20]] = 1e100
    mixed[9] = 5e-324
    mixed[10] = mixed[11]
    mixed[12] = mixed[13] * (1 + 1e-15)
    return {
        "1e300 among 1e-300": tiny,
        "rows spanning 2^-600 to 2^600": spread,
        "1e100 rows, subnormals, duplicates": mixed,
        "shifted by 1e6": _base(31, 3, 1) + 1e6,
        "shifted by 1e15": _base(31, 3, 2) + 1e15,
        "p = 1": _base(29, 1, 3),
        "all rows equal": np.ones((9, 3)),
        "half the rows at 1e200": np.r_[_base(16, 2, 4), _base(15, 2, 5) * 1e200],
    }


@pytest.mark.parametrize("tile_rows", [1, 8, 1024])
@pytest.mark.parametrize("name", list(_hostile()))
def test_tiles_match_the_direct_kernel_on_rows_of_any_magnitude(name, tile_rows):
    X = _hostile()[name]
    fast = unit_kendall(X, SphericalSign(), tile_rows=tile_rows)
    assert np.max(np.abs(fast - direct_kendall(X))) <= TOLERANCE
    radius = float(np.median(np.abs(X))) or 1.0
    if not 1e-100 < radius < 1e100:  # the reference squares it
        return
    fast = unit_kendall(X, WinsorizedSign(radius), tile_rows=tile_rows)
    reference = direct_kendall(X, winsorized_h2(radius)) / radius**2
    assert np.max(np.abs(fast - reference)) <= TOLERANCE


def test_a_wide_matrix_matches_the_direct_kernel():
    X = _base(23, 4, 8) @ np.random.default_rng(9).standard_normal((4, 50))
    X[3] = 1e120
    fast = unit_kendall(X, SphericalSign(), tile_rows=8)
    assert np.max(np.abs(fast - direct_kendall(X))) <= TOLERANCE


def _brute_force(rho2, limit_a, limit_b, same):
    near = (rho2 <= limit_a[:, None]) | (rho2 <= limit_b[None, :])
    if same:
        near |= near.T
        near &= np.triu(np.ones_like(near), 1).astype(bool)
    rows, cols = np.nonzero(near)
    return set(zip(rows.tolist(), cols.tolist(), strict=True))


@pytest.mark.parametrize("same", [True, False])
def test_the_near_pair_search_finds_exactly_the_brute_force_pairs(same):
    rng = np.random.default_rng(11)
    for _ in range(20):
        A = rng.standard_normal((40, 3))
        B = A if same else rng.standard_normal((30, 3))
        B = B.copy()
        if same:
            A[5] = A[6]
            A[7] = A[8] + 1e-3
        else:
            B[2] = A[4]
            B[9] = A[4] + 1e-2
        rho2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
        if same:
            B = A
            rho2 = ((A[:, None, :] - A[None, :, :]) ** 2).sum(axis=2)
            np.fill_diagonal(rho2, np.inf)
            i, j = rng.integers(0, 40, 2)
            if i != j:  # rounding makes a pair's two entries differ: one is near, one is not
                rho2[i, j] = 0.0
        limit_a = NEAR_DUPLICATE_RATIO * (A**2).sum(axis=1)
        limit_b = NEAR_DUPLICATE_RATIO * (B**2).sum(axis=1)
        rows, cols = near_pairs(rho2, limit_a, limit_b, same)
        found = set(zip(rows.tolist(), cols.tolist(), strict=True))
        assert len(found) == len(rows)
        assert found == _brute_force(rho2, limit_a, limit_b, same)


@pytest.mark.parametrize("same", [True, False])
def test_pairs_near_by_the_larger_rows_limit_only_are_found(same):
    """A pair within tau of its larger row's squared norm but not of its smaller row's is near
    through its column only: the search of the rows whose minimum is within twice their own
    limit still finds it (squared distances computed as the tiles compute them)."""
    rng = np.random.default_rng(15)
    A = rng.standard_normal((60, 4)) * 2.0 ** rng.integers(-3, 4, size=(60, 1))
    B = A.copy() if same else rng.standard_normal((50, 4))
    for k, gap in enumerate(np.linspace(0.0705, 0.0765, 12)):  # sqrt(tau) = 0.0707
        if same:
            A[30 + k] = A[k] * (1.0 + gap)
        else:
            B[k] = A[k] * (1.0 + gap)
    B = A if same else B
    squared_a, squared_b = (A**2).sum(axis=1), (B**2).sum(axis=1)
    rho2 = (
        np.hstack([A, squared_a[:, None], np.ones((len(A), 1))])
        @ np.hstack([-2.0 * B, np.ones((len(B), 1)), squared_b[:, None]]).T
    )
    if same:
        np.fill_diagonal(rho2, np.inf)
    limit_a, limit_b = NEAR_DUPLICATE_RATIO * squared_a, NEAR_DUPLICATE_RATIO * squared_b
    by_column_only = (rho2 <= limit_b[None, :]) & (rho2 > limit_a[:, None])
    assert by_column_only.sum() >= 4
    rows, cols = near_pairs(rho2, limit_a, limit_b, same)
    assert set(zip(rows.tolist(), cols.tolist(), strict=True)) == _brute_force(
        rho2, limit_a, limit_b, same
    )


def _exact_kendall(X, radius=None):
    """The unit-space Kendall matrix from exact differences (fractions: no overflow, no
    underflow), each pair's unit vector rounded once and the pairs summed exactly (``fsum``)."""
    n, p = X.shape
    values = [[Fraction(float(v)) for v in row] for row in X]
    terms = []
    for i in range(n):
        for j in range(i + 1, n):
            diff = [a - b for a, b in zip(values[i], values[j], strict=True)]
            largest = max(abs(d) for d in diff)
            if largest == 0:
                terms.append(np.zeros((p, p)))
                continue
            unit = np.array([float(d / largest) for d in diff])
            unit /= np.linalg.norm(unit)
            h2 = 1.0
            if radius is not None:  # min(r, s)^2 / r^2 with s^2 = ||diff||^2 / 2
                ratio = sum(d * d for d in diff) / 2 / Fraction(radius) ** 2
                h2 = float(min(ratio, Fraction(1)))
            terms.append(h2 * np.outer(unit, unit))
    flat = np.array(terms).reshape(len(terms), -1)
    return np.array([math.fsum(flat[:, e]) for e in range(p * p)]).reshape(p, p) / len(terms)


def _overflowing_shift():
    """Most rows equal the shift in their first value (1e308) and differ only in subnormal
    values; one row at -1e308 makes its shifted value overflow. The tile's scale is then that of
    the subnormals: the row that overflows is outside the band, and nothing is halved (halving
    rounds subnormals, which at that scale would move every pair)."""
    rng = np.random.default_rng(12)
    X = np.empty((21, 3))
    X[:, 0] = 1e308
    X[:, 1:] = rng.integers(1, 40, size=(21, 2)) * 5e-324
    X[4, 0] = -1e308
    return X


def _hostile_for_the_bound():
    rng = np.random.default_rng(13)
    cases = dict(_hostile())
    near = 10.0 + rng.standard_normal((30, 3))
    near[15:] = near[:15] + 1e-9 * rng.standard_normal((15, 3))
    wide = _base(17, 4, 14) @ rng.standard_normal((4, 50))
    wide[3] = 1e120
    cases.update(
        {
            "subnormal rows": rng.integers(-60, 60, size=(27, 3)) * 5e-324,
            "near duplicates": near,
            "p = 50": wide,
            "an overflowing shift among subnormals": _overflowing_shift(),
        }
    )
    return cases


@pytest.mark.parametrize("tile_rows", [4, 1024])
@pytest.mark.parametrize("name", list(_hostile_for_the_bound()))
def test_tiles_stay_within_the_proven_bound_of_the_exact_matrix(name, tile_rows):
    X = _hostile_for_the_bound()[name]
    bound = unit_error_bound(X.shape[1], SphericalSign(), None)
    exact = _exact_kendall(X)
    fast = unit_kendall(X, SphericalSign(), tile_rows=tile_rows)
    assert np.linalg.norm(fast - exact) <= bound
    radius = float(np.quantile(np.abs(X), 0.5, method="lower")) or 1.0
    if MIN_BOUND <= radius <= MAX_BOUND:
        fast = unit_kendall(X, WinsorizedSign(radius), tile_rows=tile_rows)
        assert np.linalg.norm(fast - _exact_kendall(X, radius)) <= bound


def test_a_row_that_overflows_is_outside_the_band_unless_the_tile_is_that_large():
    X = _overflowing_shift()
    shift = block_shift(X)
    tile = _working_tile(X, X, shift)
    assert tile is not None
    assert np.flatnonzero(tile.outside_first).tolist() == [4]
    with np.errstate(over="ignore"):
        shifted = X - shift
    shifted[4] = 0.0
    assert np.array_equal(tile.first, np.ldexp(shifted, -tile.exponent))  # exact: not halved
    # Rows at +-1e308 alone: the tile's scale is theirs, so its values are halved and the rows
    # that overflowed (0, 3, 6, 9) are in the band.
    big = np.where(np.arange(12)[:, None] % 3 == 0, -1e308, 1e308) * np.ones((12, 2))
    big[:, 1] *= np.linspace(0.5, 1.0, 12)
    tile = _working_tile(big, big, block_shift(big))
    assert tile is not None and tile.exponent > 1000
    assert tile.outside_first.sum() == 1  # the farthest row, computed explicitly all the same
    assert (np.abs(tile.first[[0, 3, 6, 9]]).max(axis=1) > 0).sum() >= 3
    assert np.isfinite(tile.first).all() and np.abs(tile.first).max() < 2.0**BAND_EXPONENT
    assert np.linalg.norm(
        unit_kendall(big, SphericalSign(), tile_rows=5) - _exact_kendall(big)
    ) <= unit_error_bound(2, SphericalSign(), None)
