"""The Laplacian tiles: one row changes the work on its own pairs only (a row at 1e100 does not
send its tile to the explicit path), the result stays exact on rows of any magnitude, and the
near-pair search finds exactly the pairs of a brute-force test."""

from __future__ import annotations

import numpy as np
import pytest

import dppca.numerics.pair_sums as pair_sums
from dppca.numerics.kendall import unit_kendall
from dppca.numerics.pair_sums import NEAR_DUPLICATE_RATIO, near_pairs
from dppca.numerics.signs import SphericalSign, WinsorizedSign

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
