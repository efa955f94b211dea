"""The generalized multivariate Kendall's tau matrix, computed fast and safely.

``K = (1/N) sum_{pairs (i, j)} g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)``, over all
``N = n(n-1)/2`` pairs (a U-statistic) or over a ``k``-regular design of ``N = nk/2`` pairs (an
incomplete U-statistic) (Kim and Jung 2025, Section 3; SPEC 2.2).

Since ``g(z) g(z)^T = c d d^T`` with ``d = x_i - x_j`` and ``c = h(||z||)^2 / ||d||^2``, the pair
sum is the graph-Laplacian quadratic form ``X^T (diag(C 1) - C) X``, which costs
``O(n^2 d + n d^2)`` instead of ``O(n^2 d^2)`` and is computed in row blocks (memory
``O(block * n + n d)``). To keep every pair's contribution accurate in floating point:

* the data are scaled by powers of two (exact) and shifted by their column medians (the statistic
  is translation invariant), so inputs from 1e-150 to 1e150 neither overflow nor underflow;
* near-duplicate pairs, whose squared distance is below ``NEAR_DUPLICATE_RATIO`` times
  ``||x_i||^2 + ||x_j||^2`` (after the shift) or below ``TINY_SQUARED_DISTANCE``, would cancel
  catastrophically in the Laplacian form: they are taken out of it and added as explicit outer
  products ``h^2 u u^T`` of their normalised explicit differences ``u``;
* exact duplicates contribute 0 (an error would itself reveal something about the data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca._validation import check_data, check_random_state
from dppca.stats.signs import SignTransform, make_sign_transform

#: Pairs with ``||x_i - x_j||^2 <= NEAR_DUPLICATE_RATIO (||x_i||^2 + ||x_j||^2)`` are computed
#: from explicit differences. Elsewhere the Laplacian form's relative rounding error is about
#: ``eps / NEAR_DUPLICATE_RATIO`` per pair (about 2e-13).
NEAR_DUPLICATE_RATIO = 1e-3
#: The symmetric test of the all-pairs kernel,
#: ``rho2 <= 5 NEAR_DUPLICATE_RATIO max(||y_i||^2, ||y_j||^2)``.
ROW_NEAR_DUPLICATE_RATIO = 5 * NEAR_DUPLICATE_RATIO
#: Squared distances below this (in working units, where the largest centred entry is in
#: (1, 2]) are always computed explicitly: rows close to the centre and to each other would
#: otherwise pass the relative test with weights ``1 / rho2`` that overflow.
TINY_SQUARED_DISTANCE = 1e-100


def block_rows(n: int) -> int:
    """Rows per block of the all-pairs kernel: about 2^19 / n, at least 64 while a block stays
    under 2^23 entries (64 MiB), at least 8, at most n (tuned on 2 cores; see the benchmark)."""
    return max(8, min(n, max(2**19 // n, min(64, 2**23 // n))))


@dataclass(frozen=True)
class _WorkingData:
    """The data in working units: ``unshifted = X / 2^e0``, ``centred = (unshifted - m) / 2^e1``.

    ``scale`` converts working-unit lengths back to the caller's units (``2^(e0 + e1)``).
    """

    unshifted: np.ndarray
    centred: np.ndarray
    inner_scale: float
    scale: float


def _power_of_two_scale(value: float) -> float:
    """A power of two in ``(value / 2, value]`` (``value > 0``): dividing by it is exact and
    leaves magnitudes up to ``value`` at most 2; it never overflows."""
    _, exponent = math.frexp(value)
    return math.ldexp(1.0, exponent - 1)


def _working_data(X: np.ndarray) -> _WorkingData:
    largest = float(np.max(np.abs(X)))
    outer = _power_of_two_scale(largest) if largest > 0 else 1.0
    unshifted = X / outer
    shifted = unshifted - np.median(unshifted, axis=0)
    spread = float(np.max(np.abs(shifted)))
    inner = _power_of_two_scale(spread) if spread > 0 else 1.0
    centred = shifted / inner
    with np.errstate(over="ignore"):
        scale = outer * inner
    return _WorkingData(unshifted, centred, inner, scale)


def _explicit_pair_sum(
    data: _WorkingData, sign: SignTransform, rows: np.ndarray, cols: np.ndarray
) -> np.ndarray:
    """``sum h(||z||)^2 u u^T`` over the given pairs, from their explicit differences."""
    p = data.centred.shape[1]
    diffs = (data.unshifted[rows] - data.unshifted[cols]) / data.inner_scale
    largest = np.max(np.abs(diffs), axis=1)
    keep = largest > 0  # exact duplicates contribute 0
    if not keep.any():
        return np.zeros((p, p))
    diffs, largest = diffs[keep], largest[keep]
    directions = diffs / largest[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", directions, directions))
    directions /= lengths[:, None]
    with np.errstate(over="ignore"):
        norms = (largest * lengths) * (data.scale / math.sqrt(2.0))
    weights = sign.squared_h(norms)
    return directions.T @ (weights[:, None] * directions)


def _laplacian_form(centred: np.ndarray, degrees: np.ndarray, cross: np.ndarray) -> np.ndarray:
    """``Y^T diag(degrees) Y - sym(cross)``, with ``cross = Y^T C Y``."""
    return centred.T @ (degrees[:, None] * centred) - (cross + cross.T) / 2.0


def _all_pairs_sum(data: _WorkingData, sign: SignTransform, block_size: int) -> np.ndarray:
    """Sum over all unordered pairs in row blocks, each block against the rows from its start on.

    Block ``b = [s, t)`` is paired with columns ``[s, n)``: the columns ``[s, t)`` hold each pair
    of the block twice (weight 1/2), the columns ``[t, n)`` each pair once, so every unordered pair
    is counted once and the work is about ``n^2 / 2`` entries. One product gives the squared
    distances ``||y_i||^2 + ||y_j||^2 - 2 y_i.y_j`` (augmented factors), a second gives
    ``C_b [Y | 1]`` (the weighted sums and row weights). Pair ``(i, j)`` is a near-duplicate when
    ``rho2_ij <= ROW_NEAR_DUPLICATE_RATIO max(||y_i||^2, ||y_j||^2)``: this symmetric test
    contains every pair with ``rho2 <= NEAR_DUPLICATE_RATIO (||y_i||^2 + ||y_j||^2)``, and outside
    it the computed ``rho2`` and the pair's Laplacian terms keep a relative error near
    ``eps / NEAR_DUPLICATE_RATIO``.
    """
    Y = data.centred
    n, p = Y.shape
    squared = np.einsum("ij,ij->i", Y, Y)
    ones = np.ones((n, 1))
    left = np.hstack([Y, squared[:, None], ones])
    right = np.hstack([-2.0 * Y, ones, squared[:, None]])
    values_and_ones = np.hstack([Y, ones])
    thresholds = np.maximum(ROW_NEAR_DUPLICATE_RATIO * squared, TINY_SQUARED_DISTANCE)
    degrees = np.zeros(n)
    cross = np.zeros((p, p))
    explicit = np.zeros((p, p))
    for start in range(0, n, block_size):
        stop = min(start + block_size, n)
        size = stop - start
        rho2 = left[start:stop] @ right[start:].T
        near = (rho2 <= thresholds[start:stop, None]) | (rho2 <= thresholds[None, start:])
        own = near[:, :size]
        own |= own.T.copy()  # rounding may make rho2 of a block's own pair slightly asymmetric
        diagonal = (np.arange(size), np.arange(size))
        near[diagonal] = False
        rho2[diagonal] = np.inf  # +inf: weight 0 (the pair of a row with itself)
        if near.any():  # rare: near-duplicates leave the Laplacian form for explicit sums
            np.putmask(rho2, near, np.inf)
            rows, cols = np.nonzero(near)
            once = cols > rows  # the block's own pairs appear in both orders
            explicit += _explicit_pair_sum(data, sign, rows[once] + start, cols[once] + start)
        with np.errstate(over="ignore"):
            weights = sign.laplacian_weights(rho2, data.scale)
        weights[:, :size] *= 0.5
        products = weights @ values_and_ones[start:]
        degrees[start:stop] += products[:, p]
        degrees[start:] += weights.sum(axis=0)
        cross += Y[start:stop].T @ products[:, :p]
    return _laplacian_form(Y, degrees, 2.0 * cross) + explicit


def _regular_design_sum(data: _WorkingData, sign: SignTransform, k: int, rng) -> np.ndarray:
    """Sum over the circulant ``k``-regular design on a random permutation: ``n k / 2`` pairs."""
    Y = data.centred
    n, p = Y.shape
    squared = np.einsum("ij,ij->i", Y, Y)
    order = rng.permutation(n)
    degrees = np.zeros(n)
    weighted = np.zeros((n, p))
    explicit = np.zeros((p, p))
    for offset in range(1, k // 2 + 1):
        partners = np.roll(order, -offset)
        diffs = Y[order] - Y[partners]
        rho2 = np.einsum("ij,ij->i", diffs, diffs)
        near = rho2 <= np.maximum(
            NEAR_DUPLICATE_RATIO * (squared[order] + squared[partners]), TINY_SQUARED_DISTANCE
        )
        np.putmask(rho2, near, np.inf)  # weight 0; these pairs are added explicitly below
        with np.errstate(over="ignore"):
            weights = sign.laplacian_weights(rho2, data.scale)
        # ``order`` and ``partners`` are permutations, so these fancy-index updates hit each row
        # once.
        degrees[order] += weights
        degrees[partners] += weights
        weighted[order] += weights[:, None] * Y[partners]
        weighted[partners] += weights[:, None] * Y[order]
        if near.any():
            explicit += _explicit_pair_sum(data, sign, order[near], partners[near])
    return _laplacian_form(Y, degrees, Y.T @ weighted) + explicit


def check_pairs(pairs: Any, n: int) -> int | None:
    """Validate ``pairs``: ``"all"`` (returns None) or an even integer ``k`` in ``[2, n - 1]``."""
    if isinstance(pairs, str) and pairs == "all":
        return None
    if isinstance(pairs, bool | np.bool_) or not isinstance(pairs, int | np.integer):
        raise TypeError(f'pairs must be "all" or an even integer; got {pairs!r}.')
    if pairs < 2 or pairs % 2 or pairs > n - 1:
        raise ValueError(
            f'pairs must be "all" or an even integer k with 2 <= k <= n - 1 = {n - 1}; '
            f"got {pairs!r}."
        )
    return int(pairs)


def pair_count(n: int, k: int | None) -> int:
    """``N``: ``n(n-1)/2`` for all pairs, ``n k / 2`` for the ``k``-regular design."""
    return n * (n - 1) // 2 if k is None else n * k // 2


def kendall_sum(
    X: np.ndarray,
    sign: SignTransform,
    k: int | None = None,
    rng: np.random.Generator | None = None,
    *,
    block_size: int | None = None,
) -> np.ndarray:
    """``sum_pairs g g^T`` for validated float64 data (the numerator of :func:`kendall_matrix`)."""
    n = X.shape[0]
    data = _working_data(X)
    if k is None:
        total = _all_pairs_sum(data, sign, block_size or block_rows(n))
    else:
        if rng is None:
            raise ValueError("An incomplete design (pairs=k) needs a random generator.")
        total = _regular_design_sum(data, sign, k, rng)
    return (total + total.T) / 2.0


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
        values are capped at its declared bound ``radius``.
    radius : float, optional
        The winsorization radius, or the declared bound of a callable ``h``.
    pairs : "all" or int, default "all"
        ``"all"``: the U-statistic over all ``n(n-1)/2`` pairs, ``O(n^2 d + n d^2)`` time.
        An even ``k``: the incomplete U-statistic over a circulant ``k``-regular graph on a random
        permutation of the rows (every row in exactly ``k`` pairs, ``N = nk/2``),
        ``O(n k d + n d^2)`` time.
    random_state : None, int, SeedSequence or Generator
        Draws the permutation of the incomplete design (data-independent).

    Returns
    -------
    ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite; for spherical signs without duplicate rows its trace
        is 1. This matrix is not private: see :func:`dppca.dp_loading` for its private release.
    """
    data, _ = check_data(X)
    sign = make_sign_transform(transform, radius)
    k = check_pairs(pairs, data.shape[0])
    rng = check_random_state(random_state) if k is not None else None
    return kendall_sum(data, sign, k, rng) / pair_count(data.shape[0], k)
