"""The Kendall kernel's sums of pair terms, and their proven floating-point error bound.

A pair ``(i, j)`` contributes ``g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)`` to the
Kendall matrix (:mod:`dppca.numerics.kendall`, which chooses the pairs and cuts the work into
tasks). Everything here works in unit space, ``g / h_max``, so that every pair contributes a
positive semi-definite matrix of trace at most 1.

Two ways to add up pairs:

* **explicit** (any ``h``; the incomplete design; near-duplicates): each pair's difference is
  formed from the caller's values. When its squared norm ``q`` lies in ``SAFE_SQUARED`` (the
  common case) the pair's vector is ``v = (x_i - x_j) sqrt(h_unit^2 / q)``; otherwise the
  difference is scaled by its own largest entry (halved first if it overflows) and normalised.
  Either way a pair's contribution ``v v^T = h^2 u u^T`` depends on that pair alone; chunks of
  at most ``CHUNK_PAIRS`` pairs are summed by one product ``V^T V``;
* **graph-Laplacian** (all pairs, Lipschitz ``h``):
  ``sum c_ij (y_i - y_j)(y_i - y_j)^T = Y^T diag(C 1) Y - Y^T C Y`` with
  ``c = h^2 / ||y_i - y_j||^2``, ``O(n^2 d + n^2 d^2 / B)`` instead of ``O(n^2 d^2)``, in tiles of
  ``B = TILE_ROWS`` rows against ``B`` rows. Each tile is shifted by the coordinate medians of its
  row block and scaled by ``2^-e``, ``e`` the lower median of the binary exponents of its nonzero
  rows' largest entries (after the shift): no statistic of the whole data set enters, no row outside
  a tile changes how the tile is computed, and no single row sets the tile's scale. A row whose
  largest entry's exponent is more than ``K = BAND_EXPONENT`` from ``e`` is outside the band: its
  values are zeroed and its pairs computed explicitly (a row at 1e100 among rows near 1 costs its
  own pairs, not the tile's; a tile with no such row computes the pairs of its first block's
  farthest row explicitly all the same, so that one far row does not change the work). A row whose
  shifted values overflow has exponent ``1025`` and is outside the band unless ``e >= 1025 - K``;
  only then are the tile's values halved before the shift (``x / 2 - s / 2``), and ``e`` taken again
  from the halves, where it is at least ``768``. So in working units every other row is zero or has
  entries below ``2^K``, squared norm below ``p 2^(2K)`` and at least ``2^(-2K-2)``. A pair whose
  squared distance is at most ``tau = NEAR_DUPLICATE_RATIO`` times the larger squared norm of its
  two rows (after the shift) would cancel catastrophically: it is computed explicitly too (so is a
  pair of two zero rows, whose squared distance is 0; a pair of equal rows contributes 0 and is left
  out). Every other pair has squared distance above ``tau 2^(-2K-2)``, so its weight is below
  ``2^(2K+3) / tau``; a weight times an entry of one of its pair's rows is below ``2^(K+2) / tau``,
  and a weight times two such entries below ``2 / tau``: nothing overflows. The near pairs are found
  by the same pass over every tile (its row minima against twice the rows' limits, which every near
  entry meets, see :func:`near_pairs`; then only the rows they flag), so a duplicate does not change
  the work done on the rest of the tile.

**Error bound.** With unit roundoff ``u = 2^-53`` and ``gamma_m = m u / (1 - m u)`` (Higham 2002,
Chapter 3), the computed unit-space matrix ``K_hat`` and the exact one satisfy
``||K_hat - K||_F <= E`` for every finite input, with ``E`` from :func:`kendall_error_bound`:

* explicit pairs: forming and normalising a difference costs at most ``(p + 8) u`` in each
  entry's relative error, plus an absolute error below ``2^-1074`` where an entry underflows.
  Rescaled by the largest entry: the difference of two floats, or of their halves, is correctly
  rounded, and scaling by the largest entry avoids overflow and underflow. Direct
  (``2^-960 <= q <= 2^1000``): the difference is correctly rounded, ``q`` is within
  ``gamma_p`` of its exact value (terms that underflow add below ``p 2^-1074``, negligible
  against ``q``); ``h`` is evaluated at ``sqrt(q / 2)``, whose relative error (below
  ``gamma_p / 2 + 2 u``) is at most doubled in a winsorized ``h^2``, which adds ``3 u`` of its
  own (the ratio ``s / r`` and the square; a callable ``h`` is compared at the computed norm,
  see below), and the quotient, square root and product add ``3 u``: each entry of ``v`` is
  within ``(p + 8) u`` of ``h u_j``. So a pair's computed
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
* underflow adds absolute errors below ``2^-1074`` in working units: to a shifted value scaled
  by ``2^-e``; to a halved value (it rounds only below ``2^-1021``, by less than ``2^-1075`` of
  the caller's units, below ``2^-1843`` in working units as ``e >= 768``); to a weight (the
  winsorized cap); to a partial product. In a squared distance, which exceeds
  ``tau 2^(-2K-2)``, that is a relative error below ``2^-550``; in a term of the form it is
  multiplied by the term's other factors (at most a weight below ``2^(2K+3) / tau`` and an
  entry below ``2^K``, or two entries): below ``2^-295`` per term, a few ``p^2`` terms per
  pair, negligible against the room left in the per-pair bound (over ``300000 u``). The
  compensated sums and the final division by ``N`` add at most ``7 u``: a level of Neumaier
  sums is within ``2 u`` of each of its sums (plus ``O(T u^2)``), whose Frobenius norms, as
  positive semi-definite matrices, add up to at most their trace, ``N`` in unit space; there
  are at most three levels (within a task, of a chunk's tasks on a Dask worker, of all the
  partial sums), and the division adds ``u``.

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
from typing import NamedTuple, cast

import numpy as np

from dppca.numerics.signs import SignTransform

#: ``tau``: pairs with ``||y_i - y_j||^2 <= tau max(||y_i||^2, ||y_j||^2)`` (after a tile's shift)
#: leave the Laplacian form and are computed explicitly.
NEAR_DUPLICATE_RATIO = 5e-3
#: ``K``: a tile's rows whose largest entry (after the shift) has a binary exponent within ``K``
#: of the tile's median row enter the Laplacian form; the pairs of the others are explicit.
BAND_EXPONENT = 256
#: The binary exponent (``frexp``) of a shifted value that overflows (``2^1024 <= |x - s| <
#: 2^1025``): such a row is in the band only when the tile's exponent is at least ``1025 - K``.
OVERFLOW_EXPONENT = 1025
#: ``B``: rows of a Laplacian tile (a tile holds ``B x B`` pairs, 8 MiB of weights).
TILE_ROWS = 1024
#: ``R``: the most pairs summed by one product in the explicit path.
CHUNK_PAIRS = 8192
UNIT_ROUNDOFF = 2.0**-53
#: Squared difference norms an explicit pair may have to be computed directly (no rescaling):
#: their square roots and reciprocals are normal floats and the terms' underflow is negligible.
SAFE_SQUARED = (2.0**-960, 2.0**1000)


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


def _careful_pair_sum(first: np.ndarray, second: np.ndarray, sign: SignTransform) -> np.ndarray:
    """``sum h_unit^2 u u^T`` over the pairs ``(first[i], second[i])``, each difference scaled
    by its own largest entry (halved first where it overflows): safe for any finite rows."""
    with np.errstate(over="ignore", invalid="ignore"):
        diffs = first - second
    halved = ~np.isfinite(diffs).all(axis=1)
    if halved.any():  # |x_i - x_j| beyond the largest float: halving is exact at that scale
        diffs[halved] = first[halved] * 0.5 - second[halved] * 0.5
    largest = np.max(np.abs(diffs), axis=1)
    keep = largest > 0  # exact duplicates contribute 0
    if not keep.any():
        return np.zeros((first.shape[1], first.shape[1]))
    diffs, largest, halved = diffs[keep], largest[keep], halved[keep]
    with np.errstate(under="ignore"):
        units = diffs / largest[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", units, units))
    units /= lengths[:, None]
    mantissas, exponents = np.frexp(largest)
    # s = ||x_i - x_j|| / sqrt(2) = mantissa * length / sqrt(2) * 2**(exponent + halved)
    weights = sign.unit_h2(mantissas * lengths / math.sqrt(2.0), exponents + halved)
    return cast("np.ndarray", units.T @ (weights[:, None] * units))


def pair_sum(
    first: np.ndarray, second: np.ndarray, sign: SignTransform, buffer: np.ndarray | None = None
) -> np.ndarray:
    """``sum h_unit^2 u u^T`` over the pairs ``(first[i], second[i])`` (equal shapes).

    A pair whose squared difference norm lies in ``SAFE_SQUARED`` (the common case) is computed
    directly: ``v = (x_i - x_j) sqrt(h_unit^2 / ||x_i - x_j||^2)``, summed as ``V^T V``; every
    other pair (an overflowing difference, a duplicate, a norm whose square would underflow)
    takes :func:`_careful_pair_sum`. Which path a pair takes depends on that pair alone.

    ``buffer``, a float64 array with at least as many rows, holds the differences (its
    contents are overwritten): a caller that sums many runs of pairs allocates it once, which
    matters where each large allocation is a fresh mapping of memory (as in Dask's worker
    processes, which set ``MALLOC_TRIM_THRESHOLD_``).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        diffs = np.subtract(first, second, out=None if buffer is None else buffer[: len(first)])
        squared = np.einsum("ij,ij->i", diffs, diffs)
    direct = (squared >= SAFE_SQUARED[0]) & (squared <= SAFE_SQUARED[1])
    careful = None
    if not direct.all():
        rest = ~direct
        careful = _careful_pair_sum(first[rest], second[rest], sign)
        diffs, squared = diffs[direct], squared[direct]
    if sign.name == "spherical":
        factors = 1.0 / np.sqrt(squared)
    else:  # h at the direct pairs' own norms only
        mantissas, exponents = np.frexp(np.sqrt(squared * 0.5))
        factors = np.sqrt(sign.unit_h2(mantissas, exponents) / squared)
    with np.errstate(under="ignore"):
        np.multiply(diffs, factors[:, None], out=diffs)
    total = diffs.T @ diffs
    return cast("np.ndarray", total if careful is None else total + careful)


def _chunked_pair_sum(
    first: np.ndarray,
    rows: np.ndarray,
    second: np.ndarray,
    cols: np.ndarray,
    sign: SignTransform,
    chunk_pairs: int,
) -> np.ndarray:
    """:func:`pair_sum` over the pairs ``(first[rows], second[cols])``, gathered and summed in
    chunks of at most ``chunk_pairs`` pairs, compensated."""
    total = CompensatedSum((first.shape[1], first.shape[1]))
    for start in range(0, len(rows), chunk_pairs):
        stop = start + chunk_pairs
        total.add(pair_sum(first[rows[start:stop]], second[cols[start:stop]], sign))
    return total.value()


class WorkingTile(NamedTuple):
    """A tile's two row sets in working units, the exponent that turns a working-unit length
    back into the caller's units, and the rows outside the band (zeroed here)."""

    first: np.ndarray
    second: np.ndarray
    exponent: int
    outside_first: np.ndarray
    outside_second: np.ndarray


class _Rows(NamedTuple):
    """A tile's row sets minus its shift, each row's largest absolute entry and that entry's
    binary exponent, and the lower median of the exponents of the nonzero rows (None when
    every row is zero)."""

    first: np.ndarray
    second: np.ndarray
    tops_first: np.ndarray
    tops_second: np.ndarray
    exponents_first: np.ndarray
    exponents_second: np.ndarray
    median: int | None


def _row_exponents(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's largest absolute entry and its binary exponent (``frexp``;
    ``OVERFLOW_EXPONENT`` for a row whose values overflowed)."""
    tops = np.max(np.abs(rows), axis=1) if rows.shape[1] else np.zeros(len(rows))
    exponents = np.frexp(tops)[1]
    exponents[np.isinf(tops)] = OVERFLOW_EXPONENT
    return tops, exponents


def _minus(rows: np.ndarray, shift: np.ndarray, halve: bool) -> np.ndarray:
    """``rows - shift`` (an overflow gives an infinite value), or ``rows / 2 - shift / 2``."""
    if halve:
        return cast("np.ndarray", rows * 0.5 - shift * 0.5)
    with np.errstate(over="ignore"):
        return cast("np.ndarray", rows - shift)


def _shifted_rows(
    first: np.ndarray, second: np.ndarray, shift: np.ndarray, same: bool, halve: bool
) -> _Rows:
    """:class:`_Rows` of ``first - shift`` and ``second - shift`` (``x / 2 - shift / 2`` when
    ``halve``; ``same``: the two sets are one)."""
    a = _minus(first, shift, halve)
    b = a if same else _minus(second, shift, halve)
    tops_a, exponents_a = _row_exponents(a)
    tops_b, exponents_b = (tops_a, exponents_a) if same else _row_exponents(b)
    # Within one block every row is listed once: the median of the list taken twice is the same.
    nonzero = exponents_a[tops_a > 0]
    if not same:
        nonzero = np.concatenate([nonzero, exponents_b[tops_b > 0]])
    median = None
    if nonzero.size:
        middle = (nonzero.size - 1) // 2
        median = int(np.partition(nonzero, middle)[middle])
    return _Rows(a, b, tops_a, tops_b, exponents_a, exponents_b, median)


def _working_tile(first: np.ndarray, second: np.ndarray, shift: np.ndarray) -> WorkingTile | None:
    """Both row sets shifted by ``shift`` and scaled by ``2^-e``, ``e`` the lower median of the
    exponents of the nonzero rows' largest entries (``second is first``: one block).

    A row is in the band when it is zero or its largest entry's exponent is within
    ``BAND_EXPONENT`` of ``e``; the others are zeroed and reported, so that their pairs are
    computed explicitly. A row whose shifted values overflow is in the band only if ``e`` is at
    least ``OVERFLOW_EXPONENT - BAND_EXPONENT``: only then are all values halved before the
    shift (at that scale the halving's rounding, below ``2^-1075``, underflows in working
    units). Returns None when every value equals the shift (all pairs are duplicates). One row
    changes ``e`` by at most one rank of the others.
    """
    same = first is second
    rows = _shifted_rows(first, second, shift, same, halve=False)
    exponent, extra = rows.median, 0
    if exponent is None:
        return None
    overflowed = (rows.exponents_first == OVERFLOW_EXPONENT).any() or (
        rows.exponents_second == OVERFLOW_EXPONENT
    ).any()
    if overflowed and exponent + BAND_EXPONENT >= OVERFLOW_EXPONENT:
        rows, extra = _shifted_rows(first, second, shift, same, halve=True), 1
        exponent = cast("int", rows.median)  # the rows that overflowed are not zero halved
    distance_a = np.where(rows.tops_first > 0, np.abs(rows.exponents_first - exponent), -1)
    outside_a = distance_a > BAND_EXPONENT
    outside_b = outside_a
    if not same:
        distance_b = np.abs(rows.exponents_second - exponent)
        outside_b = (rows.tops_second > 0) & (distance_b > BAND_EXPONENT)
    if not (outside_a.any() or outside_b.any()):
        # The same work whether or not one row is outside: the farthest row of the first block
        # is computed explicitly anyway (within one block, outside_b is the same array).
        outside_a[np.argmax(distance_a)] = True
    a, b = rows.first, rows.second
    a[outside_a] = 0.0
    if not same:
        b[outside_b] = 0.0
    with np.errstate(under="ignore"):
        A = np.ldexp(a, -exponent)
        B = A if same else np.ldexp(b, -exponent)
    return WorkingTile(A, B, exponent + extra, outside_a, outside_b)


def block_shift(rows: np.ndarray) -> np.ndarray:
    """A Laplacian tile's shift: the lower coordinate medians of its first row block (values of
    the block: finite, never an overflowing average)."""
    return cast("np.ndarray", np.quantile(rows, 0.5, axis=0, method="lower"))


def near_pairs(
    rho2: np.ndarray, limit_a: np.ndarray, limit_b: np.ndarray, same: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The entries ``(i, j)`` with ``rho2[i, j] <= limit_a[i]`` or ``<= limit_b[j]``, found with
    the same pass over the tile whatever it holds: the row minima select the rows that may have
    any, and only those rows are searched. In a tile of one block (``same``), a pair counts when
    either of its two entries does, and is returned once, as ``i < j``.

    ``rho2`` must hold a tile's computed squared distances (``+inf`` for the pairs left out)
    and the limits ``tau`` times its rows' computed squared norms. Then an entry within its
    column's limit is within twice its row's, so that the rows whose minimum is at most twice
    their limit hold every such entry. If ``||y_j|| <= ||y_i||`` (exact norms), ``limit_b[j]``
    exceeds ``limit_a[i]`` at most by the rounding of the squared norms and of their products
    by ``tau``, a factor below 1.01. Otherwise the exact squared distance is at most
    ``(tau + 8 gamma_{p + 2}) ||y_j||^2`` (the computed one's error, module docstring), so
    ``||y_i|| >= (1 - 0.0708) ||y_j||``, ``||y_i||^2 >= 0.86 ||y_j||^2`` and ``rho2[i, j] <=
    1.2 limit_a[i]``. (A zero row's entries are its partner's squared norm, never within
    ``tau`` of it, or 0 with another zero row, within both limits.)
    """
    rows_with = np.flatnonzero(rho2.min(axis=1) <= 2.0 * limit_a)
    candidates = rho2[rows_with]
    in_rows, cols = np.nonzero((candidates <= limit_a[rows_with, None]) | (candidates <= limit_b))
    rows = rows_with[in_rows]
    if same:
        rows, cols = np.minimum(rows, cols), np.maximum(rows, cols)
    keys = np.unique(rows * rho2.shape[1] + cols)
    return keys // rho2.shape[1], keys % rho2.shape[1]


def _outside_pairs(
    outside_a: np.ndarray, outside_b: np.ndarray, same: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair with a row outside the band, once (``i < j`` in a tile of one block)."""
    rows, cols = [np.zeros(0, np.intp)], [np.zeros(0, np.intp)]
    every_b = np.arange(len(outside_b))
    for i in np.flatnonzero(outside_a):
        # within one block, a pair of two outside rows is taken from its smaller row only
        if same:
            partners = np.flatnonzero((~outside_b | (every_b > i)) & (every_b != i))
        else:
            partners = every_b
        rows.append(np.full(len(partners), i))
        cols.append(partners)
    if not same:
        inside_a = np.flatnonzero(~outside_a)
        for j in np.flatnonzero(outside_b):
            rows.append(inside_a)
            cols.append(np.full(len(inside_a), j))
    first, second = np.concatenate(rows), np.concatenate(cols)
    if same:
        first, second = np.minimum(first, second), np.maximum(first, second)
    return first, second


def laplacian_tile_sum(
    first: np.ndarray,
    second: np.ndarray | None,
    shift: np.ndarray,
    sign: SignTransform,
    chunk_pairs: int = CHUNK_PAIRS,
) -> np.ndarray:
    """``sum h_unit^2 u u^T`` over the pairs of row block ``first`` with row block ``second``
    (``second=None``: the pairs ``i < j`` within ``first``), in the graph-Laplacian form, its
    near pairs and the pairs of rows outside the band explicitly. ``shift`` is
    :func:`block_shift` of ``first``."""
    p = first.shape[1]
    same = second is None
    partner = first if second is None else second
    tile = _working_tile(first, partner, shift)
    if tile is None:
        return np.zeros((p, p))
    A, B = tile.first, tile.second
    squared_a = np.einsum("ij,ij->i", A, A)
    squared_b = squared_a if same else np.einsum("ij,ij->i", B, B)
    ones_a, ones_b = np.ones((len(A), 1)), np.ones((len(B), 1))
    rho2 = (
        np.hstack([A, squared_a[:, None], ones_a])
        @ np.hstack([-2.0 * B, ones_b, squared_b[:, None]]).T
    )
    if same:
        rho2[np.diag_indices(len(A))] = np.inf  # a row with itself: weight 0
    rho2[tile.outside_first, :] = np.inf
    rho2[:, tile.outside_second] = np.inf
    near_rows, near_cols = near_pairs(
        rho2, NEAR_DUPLICATE_RATIO * squared_a, NEAR_DUPLICATE_RATIO * squared_b, same
    )
    rho2[near_rows, near_cols] = np.inf
    if same:
        rho2[near_cols, near_rows] = np.inf
    # Exact duplicates contribute 0: left out, they cost no call of the careful path.
    distinct = (first[near_rows] != partner[near_cols]).any(axis=1)
    near_rows, near_cols = near_rows[distinct], near_cols[distinct]
    far_rows, far_cols = _outside_pairs(tile.outside_first, tile.outside_second, same)
    explicit_sum = _chunked_pair_sum(
        first,
        np.concatenate([near_rows, far_rows]),
        partner,
        np.concatenate([near_cols, far_cols]),
        sign,
        chunk_pairs,
    )
    weights = sign.unit_weights(rho2, tile.exponent)
    products = weights @ np.hstack([B, ones_b])  # the weighted sums and the row sums
    row_sums, col_sums = products[:, -1], weights.sum(axis=0)
    cross = A.T @ products[:, :-1]
    if same:  # every pair appears in both orders: half of the full form
        part = 0.5 * (A.T @ ((row_sums + col_sums)[:, None] * A) - cross - cross.T)
    else:
        part = A.T @ (row_sums[:, None] * A) + B.T @ (col_sums[:, None] * B) - cross - cross.T
    return cast("np.ndarray", part + explicit_sum)


def explicit_tile_sum(
    first: np.ndarray, second: np.ndarray | None, sign: SignTransform, chunk_pairs: int
) -> np.ndarray:
    """:func:`laplacian_tile_sum`'s pairs, every one from its own explicit difference."""
    same = second is None
    partner = first if second is None else second
    grid_rows, grid_cols = np.meshgrid(
        np.arange(len(first)), np.arange(len(partner)), indexing="ij"
    )
    rows, cols = grid_rows.ravel(), grid_cols.ravel()
    if same:
        rows, cols = rows[rows < cols], cols[rows < cols]
    return _chunked_pair_sum(first, rows, partner, cols, sign, chunk_pairs)
