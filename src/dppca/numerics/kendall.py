"""The generalized multivariate Kendall's tau matrix, computed fast and with a proven error bound.

``K = (1/N) sum_{pairs (i, j)} g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)``, over all
``N = n(n-1)/2`` pairs (a U-statistic) or over a regular design of ``N = n degree / 2`` pairs (an
incomplete U-statistic) (Kim and Jung 2025, Section 3). Everything here works in unit space,
``g / h_max``, so that every pair contributes a positive semi-definite matrix of trace at most 1.

Two ways to add up pairs:

* **explicit** (any ``h``; the incomplete design; near-duplicates): each pair's difference is
  formed from the caller's values, scaled by its own largest entry (halved first if it
  overflows) and normalised, so a pair's contribution ``h^2 u u^T`` depends on that pair alone;
  chunks of at most ``CHUNK_PAIRS`` pairs are summed by one product ``U^T diag(h^2) U``;
* **graph-Laplacian** (all pairs, Lipschitz ``h``): ``sum c_ij (y_i - y_j)(y_i - y_j)^T =
  Y^T diag(C 1) Y - Y^T C Y`` with ``c = h^2 / ||y_i - y_j||^2``, ``O(n^2 d + n^2 d^2 / B)``
  instead of ``O(n^2 d^2)``, in tiles of ``B = TILE_ROWS`` rows against ``B`` rows. Each tile is
  shifted by the coordinate medians of its row block and scaled by a power of two from its own
  values: no statistic of the whole data set enters, and no row outside a tile changes how the
  tile is computed. A pair whose squared distance is at most ``NEAR_DUPLICATE_RATIO`` times the
  larger squared norm of its two rows (after the shift), or at most ``TINY_SQUARED_DISTANCE``,
  would cancel catastrophically or underflow: it is computed explicitly instead.

Tile and chunk sums are accumulated with Neumaier's compensated summation.

**Error bound.** With unit roundoff ``u = 2^-53`` and ``gamma_m = m u / (1 - m u)`` (Higham 2002,
Chapter 3), the computed unit-space matrix ``K_hat`` and the exact one satisfy
``||K_hat - K||_F <= E`` for every finite input, with ``E`` from :func:`kendall_error_bound`:

* explicit pairs: forming and normalising a difference costs at most ``(p + 8) u`` in each
  entry's relative error (the difference of two floats, or of their halves, is correctly
  rounded; scaling by the largest entry avoids overflow and underflow), so a pair's computed
  ``h^2 u u^T`` is within ``3 (p + 8) u`` of the exact one in Frobenius norm; a product over
  ``R`` pairs adds at most ``gamma_R`` times the sum of the entrywise absolute terms, whose
  Frobenius norm is at most its trace, ``sum h^2 <= R``. Per pair: ``2 gamma_{R + 2p + 40}``;
* Laplacian tiles: every product in the form has inner dimension at most ``2B`` (the degrees,
  then the weighted sums), so each entry's error is at most ``gamma_{2B + 4}`` times
  ``G = sum_pairs c (|y_i| + |y_j|)(|y_i| + |y_j|)^T``, and ``||G||_F <= tr G <= 4 c M^2``
  summed over pairs, with ``M^2 = max(||y_i||^2, ||y_j||^2) <= ||y_i - y_j||^2 / (tau (1 -
  gamma))``: at most ``(4 / tau) gamma_{2B + 4}`` per pair. The computed weights, squared
  distances and shifted values add ``3200 gamma_{p + 2} + 270 u`` (the squared distance has
  absolute error ``4 gamma_{p + 2} M^2``, relative ``8 gamma_{p + 2} / tau``; ``h`` is
  1-Lipschitz). Per pair, with room to spare: ``1600 gamma_{2B + 4p + 400}``;
* underflow adds absolute errors below ``2^-1074`` times weights below ``1 / TINY``, and the
  compensated sums and the final division by ``N`` add at most ``4 u ||K||_F <= 4 u``.

So ``E`` does not grow with ``n``: about ``5e-10`` for the Laplacian form (``p = 50``) and
``2e-12`` for explicit pairs. :func:`dppca.numerics.sensitivity.kendall_sensitivity` adds ``2E`` to
the exact sensitivity, so the guarantee covers the matrix actually computed, not an idealised one.

For a callable ``h``, which may jump anywhere, the comparison is with the U-statistic of the
per-pair terms ``h(s_hat)^2 u_hat u_hat^T`` as each pair's own explicit computation gives them:
every such term depends on its pair alone and is positive semi-definite with trace at most
``(1 + 2(p + 8)u) h_max^2``, so that statistic has sensitivity at most
``2 sqrt(2) h_max^2 (1 + 2(p + 8)u) / n``, the excess within ``2E``; the computed matrix is
within ``E`` of it. (For the spherical and winsorized signs the per-pair terms are moreover
within the stated errors of the exact ones.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_data, check_random_state
from dppca.numerics.signs import SignTransform, make_sign_transform

#: ``tau``: pairs with ``||y_i - y_j||^2 <= tau max(||y_i||^2, ||y_j||^2)`` (after a tile's shift)
#: leave the Laplacian form and are computed explicitly.
NEAR_DUPLICATE_RATIO = 5e-3
#: Squared distances below this (in a tile's working units, where its largest entry is in
#: [0.5, 1)) are always computed explicitly, so Laplacian weights stay below ``1e100``.
TINY_SQUARED_DISTANCE = 1e-100
#: ``B``: rows of a Laplacian tile (a tile holds ``B x B`` pairs, 8 MiB of weights).
TILE_ROWS = 1024
#: ``R``: the most pairs summed by one product in the explicit path.
CHUNK_PAIRS = 8192
UNIT_ROUNDOFF = 2.0**-53


def _gamma(m: int) -> float:
    """``gamma_m = m u / (1 - m u)``, the relative error bound of a sum of ``m`` terms."""
    return m * UNIT_ROUNDOFF / (1.0 - m * UNIT_ROUNDOFF)


def kendall_error_bound(
    p: int,
    *,
    laplacian: bool,
    tile_rows: int = TILE_ROWS,
    chunk_pairs: int = CHUNK_PAIRS,
) -> float:
    """``E``: a bound on ``||K_hat - K||_F`` for the unit-space matrix, for any finite input.

    Parameters
    ----------
    p : int
        Number of variables.
    laplacian : bool
        Whether the graph-Laplacian form is used (all pairs with a Lipschitz ``h``); otherwise
        every pair is explicit.
    tile_rows, chunk_pairs : int
        The kernel's tile and chunk sizes.

    Returns
    -------
    float
        The largest per-pair error of the paths used plus the accumulation's (module docstring).

    Examples
    --------
    >>> kendall_error_bound(50, laplacian=True) < 1e-9
    True
    """
    explicit = 2.0 * _gamma(chunk_pairs + 2 * p + 40)
    fast = 1600.0 * _gamma(2 * tile_rows + 4 * p + 400) if laplacian else 0.0
    return max(explicit, fast) + 8.0 * UNIT_ROUNDOFF


class CompensatedSum:
    """Neumaier's compensated summation of equally shaped arrays (Higham 2002, Section 4.3).

    The sum of ``T`` terms is within ``2 u |S| + O(T u^2) sum |x_t|`` of the exact sum ``S``.
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.total = np.zeros(shape)
        self.carry = np.zeros(shape)

    def add(self, term: np.ndarray) -> None:
        total = self.total + term
        larger = np.abs(self.total) >= np.abs(term)
        self.carry += np.where(larger, (self.total - total) + term, (term - total) + self.total)
        self.total = total

    def value(self) -> np.ndarray:
        return self.total + self.carry


def _explicit_chunk(
    X: np.ndarray, rows: np.ndarray, cols: np.ndarray, sign: SignTransform
) -> np.ndarray:
    """``sum h_unit^2 u u^T`` over the given pairs, each from its own explicit difference."""
    with np.errstate(over="ignore", invalid="ignore"):
        diffs = X[rows] - X[cols]
    halved = ~np.isfinite(diffs).all(axis=1)
    if halved.any():  # |x_i - x_j| beyond the largest float: halving is exact at that scale
        diffs[halved] = X[rows[halved]] * 0.5 - X[cols[halved]] * 0.5
    largest = np.max(np.abs(diffs), axis=1)
    keep = largest > 0  # exact duplicates contribute 0
    if not keep.any():
        return np.zeros((X.shape[1], X.shape[1]))
    diffs, largest, halved = diffs[keep], largest[keep], halved[keep]
    with np.errstate(under="ignore"):
        units = diffs / largest[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", units, units))
    units /= lengths[:, None]
    mantissas, exponents = np.frexp(largest)
    # s = ||x_i - x_j|| / sqrt(2) = mantissa * length / sqrt(2) * 2**(exponent + halved)
    weights = sign.unit_h2(mantissas * lengths / math.sqrt(2.0), exponents + halved)
    return units.T @ (weights[:, None] * units)


def _add_explicit(
    X: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    sign: SignTransform,
    total: CompensatedSum,
    chunk_pairs: int,
) -> None:
    for start in range(0, len(rows), chunk_pairs):
        stop = start + chunk_pairs
        total.add(_explicit_chunk(X, rows[start:stop], cols[start:stop], sign))


def _working_tile(
    first: np.ndarray, second: np.ndarray, shift: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Both row sets shifted by ``shift`` and scaled by a power of two from their own values.

    Returns the two arrays in working units (largest entry in [0.5, 1)) and the exponent that
    turns a working-unit length back into the caller's units, or None when every value equals
    the shift (all pairs are duplicates).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        a, b = first - shift, second - shift
    extra = 0
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        a, b, extra = first * 0.5 - shift * 0.5, second * 0.5 - shift * 0.5, 1
    top = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    if top == 0.0:
        return None
    _, exponent = math.frexp(top)
    with np.errstate(under="ignore"):
        return np.ldexp(a, -exponent), np.ldexp(b, -exponent), exponent + extra


def _laplacian_tile(
    X: np.ndarray,
    first: tuple[int, int],
    second: tuple[int, int],
    shift: np.ndarray,
    sign: SignTransform,
    total: CompensatedSum,
    chunk_pairs: int,
) -> None:
    """Add the pairs of row block ``first`` with row block ``second`` (``i < j`` when they are
    the same block)."""
    same = first == second
    tile = _working_tile(X[slice(*first)], X[slice(*second)], shift)
    if tile is None:
        return
    A, B, exponent = tile
    squared_a = np.einsum("ij,ij->i", A, A)
    squared_b = squared_a if same else np.einsum("ij,ij->i", B, B)
    ones_a, ones_b = np.ones((len(A), 1)), np.ones((len(B), 1))
    rho2 = (
        np.hstack([A, squared_a[:, None], ones_a])
        @ np.hstack([-2.0 * B, ones_b, squared_b[:, None]]).T
    )
    limit_a = np.maximum(NEAR_DUPLICATE_RATIO * squared_a, TINY_SQUARED_DISTANCE)
    limit_b = (
        limit_a if same else np.maximum(NEAR_DUPLICATE_RATIO * squared_b, TINY_SQUARED_DISTANCE)
    )
    if same:
        rho2[np.diag_indices(len(A))] = np.inf  # a row with itself: weight 0
    # Near pairs are rare: one pass finds whether the tile has any before the full test.
    if rho2.min() <= max(limit_a.max(), limit_b.max()):
        near = rho2 <= limit_a[:, None]
        near |= rho2 <= limit_b[None, :]
        if same:  # rounding may make a pair's two entries differ slightly: either one counts
            near |= near.T.copy()
        rows, cols = np.nonzero(near)
        if same:
            once = rows < cols
            rows, cols = rows[once], cols[once]
        _add_explicit(X, rows + first[0], cols + second[0], sign, total, chunk_pairs)
        np.putmask(rho2, near, np.inf)
    weights = sign.unit_weights(rho2, exponent)
    products = weights @ np.hstack([B, ones_b])  # the weighted sums and the row sums
    row_sums, col_sums = products[:, -1], weights.sum(axis=0)
    cross = A.T @ products[:, :-1]
    if same:  # every pair appears in both orders: half of the full form
        part = A.T @ ((row_sums + col_sums)[:, None] * A) - cross - cross.T
        total.add(0.5 * part)
    else:
        total.add(A.T @ (row_sums[:, None] * A) + B.T @ (col_sums[:, None] * B) - cross - cross.T)


def _all_pairs(
    X: np.ndarray, sign: SignTransform, total: CompensatedSum, tile_rows: int, chunk_pairs: int
) -> None:
    n = X.shape[0]
    blocks = [(start, min(start + tile_rows, n)) for start in range(0, n, tile_rows)]
    for index, first in enumerate(blocks):
        if sign.laplacian:
            # The lower median is a value of the block: finite, never an overflowing average.
            shift = np.quantile(X[slice(*first)], 0.5, axis=0, method="lower")
            for second in blocks[index:]:
                _laplacian_tile(X, first, second, shift, sign, total, chunk_pairs)
            continue
        for second in blocks[index:]:
            grid_rows, grid_cols = np.meshgrid(np.arange(*first), np.arange(*second), indexing="ij")
            rows, cols = grid_rows.ravel(), grid_cols.ravel()
            if first == second:
                rows, cols = rows[rows < cols], cols[rows < cols]
            _add_explicit(X, rows, cols, sign, total, chunk_pairs)


def _regular_design(
    X: np.ndarray,
    sign: SignTransform,
    degree: int,
    rng: np.random.Generator,
    total: CompensatedSum,
    chunk_pairs: int,
) -> None:
    """The circulant ``degree``-regular design on a random permutation: ``n degree / 2``
    explicit pairs."""
    order = rng.permutation(X.shape[0])
    for offset in range(1, degree // 2 + 1):
        _add_explicit(X, order, np.roll(order, -offset), sign, total, chunk_pairs)


def check_pairs(pairs: Any, n: int) -> int | None:
    """Validate ``pairs``: ``"all"`` (returns None) or an even integer in ``[2, n - 1]``, the
    degree of the regular design (each row in that many pairs)."""
    if isinstance(pairs, str) and pairs == "all":
        return None
    if isinstance(pairs, bool | np.bool_) or not isinstance(pairs, int | np.integer):
        raise TypeError(f'pairs must be "all" or an even integer; got {pairs!r}.')
    if pairs < 2 or pairs % 2 or pairs > n - 1:
        raise ValueError(
            f'pairs must be "all" or an even integer with 2 <= pairs <= n - 1 = {n - 1}; '
            f"got {pairs!r}."
        )
    return int(pairs)


def pair_count(n: int, degree: int | None) -> int:
    """``N``: ``n(n-1)/2`` for all pairs, ``n degree / 2`` for the ``degree``-regular design."""
    return n * (n - 1) // 2 if degree is None else n * degree // 2


def unit_error_bound(p: int, sign: SignTransform, degree: int | None) -> float:
    """:func:`kendall_error_bound` for the paths :func:`unit_kendall` uses with these settings."""
    return kendall_error_bound(p, laplacian=sign.laplacian and degree is None)


def unit_kendall(
    X: np.ndarray,
    sign: SignTransform,
    degree: int | None = None,
    rng: np.random.Generator | None = None,
    *,
    tile_rows: int = TILE_ROWS,
    chunk_pairs: int = CHUNK_PAIRS,
) -> np.ndarray:
    """The Kendall matrix of ``g / h_max`` for validated float64 data (unit space).

    Within :func:`unit_error_bound` of the exact matrix in Frobenius norm, for any finite input.
    Multiply by ``sign.bound**2`` for the caller's units.
    """
    n, p = X.shape
    total = CompensatedSum((p, p))
    if degree is None:
        _all_pairs(X, sign, total, tile_rows, chunk_pairs)
    else:
        if rng is None:
            raise ValueError("An incomplete design (an integer degree) needs a random generator.")
        _regular_design(X, sign, degree, rng, total, chunk_pairs)
    matrix = total.value() / pair_count(n, degree)
    return (matrix + matrix.T) / 2.0


def kendall_matrix(
    X: Any,
    transform: Any = "spherical",
    radius: Any = None,
    pairs: Any = "all",
    random_state: Any = None,
) -> np.ndarray:
    """The generalized multivariate Kendall's tau matrix (non-private, for study).

    ``K = (1/N) sum_{pairs} g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)`` and
    ``g(t) = h(||t||) t / ||t||`` (Kim and Jung 2025, equation (3)).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    transform : {"spherical", "winsorized"} or callable, default "spherical"
        ``h = 1`` (spatial signs), ``h(s) = min(radius, s)``, or a vectorised callable ``h`` whose
        values are capped at its declared bound ``radius`` (computed pair by pair,
        ``O(n^2 d^2)``).
    radius : float, optional
        The winsorization radius, or the declared bound of a callable ``h``.
    pairs : "all" or int, default "all"
        ``"all"``: the U-statistic over all ``n(n-1)/2`` pairs, ``O(n^2 d + n d^2)`` time.
        An even integer: the incomplete U-statistic over a circulant regular graph of that
        degree on a random permutation of the rows (every row in exactly ``pairs`` pairs,
        ``N = n pairs / 2``), ``O(n pairs d^2)`` time.
    random_state : None, int, SeedSequence or Generator
        Draws the permutation of the incomplete design (data-independent).

    Returns
    -------
    ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite; for spherical signs without duplicate rows its trace
        is 1. This matrix is not private: see :func:`dppca.dp_loading` for its private release.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((200, 3)) * [3.0, 1.0, 1.0]
    >>> K = kendall_matrix(X)
    >>> round(float(np.trace(K)), 12), bool(K[0, 0] > K[1, 1])
    (1.0, True)
    """
    data, _ = check_data(X)
    sign = make_sign_transform(transform, radius)
    degree = check_pairs(pairs, data.shape[0])
    rng = check_random_state(random_state) if degree is not None else None
    return unit_kendall(data, sign, degree, rng) * sign.bound**2
