"""The SSCM's radial weights, adapted to the data's tails once the budget can afford it: from
public values and released scales only.

The matrix weighs each row's spatial sign by ``min(1, (r / rho_in)^2) min(1, (rho_out / r)^2)``
(:func:`~dppca.numerics.sscm.matrix_weights`). With the clip ``tau`` (about the released pair
scale ``s``) alone, ``rho_in = tau / 2`` and ``rho_out = 3 tau``: nearly every row counts as
its sign, which wastes little when the budget's noise dominates the error, and outliers beyond
three scales fade out. Where the noise is small against the sampling error, the spatial
sign's efficiency costs more than it buys on light tails: for Gaussian rows the sample
covariance's eigenvectors have less error (Croux, Ollila and Oja 2002 give the SSCM's
asymptotic efficiency), and a clipped second moment with its clip at the rows' median distance
from the centre (Analyze Gauss about a private centre) had less error than the SSCM at
``d = 10``, ``n = 20,000``, epsilon 4; counting the rows within the median distance ``m`` as
their squared distance (``rho_in = m``) recovers it. On heavy tails that gains little
(``rho_in = 0.7 m`` there). The outer radius stays ``3 tau`` whatever the tails: on heavy tails
a fifth of Cauchy rows lie beyond it and their signs carry information, but an outer radius
moved out to ten clips let 5 % of rows at 60 along one direction, among multivariate t3 rows,
take the third direction, a loss of robustness out of all proportion to the gain.

A third pure-DP median tells light tails from heavy ones: ``m``, the median of the rows'
distances from the released centre, over the pair scale ``s`` (the median of
``||x_i - x_j|| / sqrt 2`` within disjoint pairs) is about 1 for Gaussian rows, 0.89 for
multivariate t3 and 0.68 for Cauchy rows (for alpha-stable rows ``2^(1/2 - 1/alpha)``), at any
dimension; 5 % of outliers far away move it little. It is released only
where the adaptation ``g`` (:func:`adaptation`, from ``n epsilon / d^1.5``) is positive and its
share of epsilon (:func:`spread_epsilon`) small; elsewhere the radii are those of the clip alone,
and the release is what it was without it.

Every radius is a function of released values (``tau``, ``s``, ``m``) and public ones, so the
weights are post-processing, and they lie in ``[0, 1]`` whatever the radii: the matrix's
sensitivity is ``sqrt(2) / n`` as before.
"""

from __future__ import annotations

import math

from dppca.numerics.sscm import Radii
from dppca.privacy.quantiles import locating_reach
from dppca.releases.loading.schedule import MEDIAN_MARGIN

#: How much less of the spread the inner radius is for heavy tails.
HEAVY_INNER = 0.3
#: The spread over the pair scale at and above which the tails count as light, and at and below
#: which as heavy (:func:`heaviness`).
LIGHT_RATIO = 0.95
HEAVY_RATIO = 0.90
#: The adaptation grows from 0 to 1 as ``n epsilon / d^1.5`` goes from the first to the second.
ADAPTATION_RANGE = (50.0, 200.0)
#: The spread's share of epsilon: at least the first, and released only when what locates it is
#: at most the second.
SPREAD_SHARE = 0.02
SPREAD_LIMIT = 0.05


def adaptation(n: int, d: int, epsilon: float) -> float:
    """``g = clip(ln(n epsilon / (50 d^1.5)) / ln 4, 0, 1)`` (public): 0 while the noise
    dominates the error, 1 from ``n epsilon = 200 d^1.5``.

    Examples
    --------
    >>> adaptation(2000, 50, 1.0), adaptation(20000, 10, 4.0)
    (0.0, 1.0)
    >>> round(adaptation(10000, 50, 4.0), 3)
    0.589
    """
    low, high = ADAPTATION_RANGE
    ratio = n * epsilon / (low * d**1.5)
    if not ratio > 1.0:
        return 0.0
    return min(1.0, math.log(ratio) / math.log(high / low))


def spread_epsilon(n: int, d: int, epsilon: float) -> float:
    """The spread's share of epsilon: ``MEDIAN_MARGIN`` times what locates a log-grid median of
    ``n / 2 - 1`` values (:func:`~dppca.privacy.quantiles.locating_reach`), at least
    ``SPREAD_SHARE epsilon``; 0 (no spread: the clip's radii) where :func:`adaptation` is 0 or
    that is more than ``SPREAD_LIMIT epsilon`` (public).

    Examples
    --------
    >>> spread_epsilon(2000, 50, 1.0), spread_epsilon(20000, 10, 4.0)
    (0.0, 0.08)
    """
    if adaptation(n, d, epsilon) == 0.0 or n < 4:
        return 0.0
    located = MEDIAN_MARGIN * locating_reach(1.0, "log") / (n / 2.0 - 1.0)
    if located > SPREAD_LIMIT * epsilon:
        return 0.0
    return max(SPREAD_SHARE * epsilon, located)


def heaviness(ratio: float) -> float:
    """How heavy the tails are, from the spread over the pair scale ``ratio``: 0 from
    ``LIGHT_RATIO`` (0.95) up, 1 up to ``HEAVY_RATIO`` (0.90), linear between (NaN: 0).

    Examples
    --------
    >>> heaviness(1.0), heaviness(0.68), round(heaviness(0.925), 3), heaviness(float("nan"))
    (0.0, 1.0, 0.5, 0.0)
    """
    if not ratio < LIGHT_RATIO:
        return 0.0
    return min(1.0, (LIGHT_RATIO - ratio) / (LIGHT_RATIO - HEAVY_RATIO))


def matrix_radii(clip: float, pair_scale: float, spread: float | None, strength: float) -> Radii:
    """The matrix's radii: without a ``spread`` (or at ``strength`` 0, the adaptation), those of
    the ``clip`` alone (:meth:`~dppca.numerics.sscm.Radii.of_clip`); with it and the tails'
    :func:`heaviness` ``h`` of ``m / s``, the inner radius ``(1 - g) tau / 2 + g (1 - 0.3 h) m``
    (heavy tails gain little from counting rows as their squared distance); the outer radius is
    the clip's, ``3 tau``, whatever the tails.

    Examples
    --------
    >>> matrix_radii(2.0, 2.0, None, 1.0)
    Radii(inner=1.0, outer=6.0)
    >>> matrix_radii(2.0, 2.0, 2.0, 1.0)  # light tails, full adaptation
    Radii(inner=2.0, outer=6.0)
    >>> radii = matrix_radii(2.0, 2.0, 1.36, 0.5)  # Cauchy-like tails, half way
    >>> round(radii.inner, 6), radii.outer
    (0.976, 6.0)
    """
    fixed = Radii.of_clip(clip)
    if spread is None or strength == 0.0:
        return fixed
    heavy = heaviness(spread / pair_scale)
    inner = (1.0 - strength) * fixed.inner + strength * (1.0 - HEAVY_INNER * heavy) * spread
    return Radii(inner, fixed.outer)
