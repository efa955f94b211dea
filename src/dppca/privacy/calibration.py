"""Calibration of Gaussian noise to an (epsilon, delta) guarantee.

Two calibrations of the noise multiplier ``s`` (noise standard deviation per unit of L2
sensitivity) are offered:

* ``"analytic"`` (Balle and Wang 2018, Theorem 8): the smallest ``s`` with
  ``Phi(1/(2s) - epsilon s) - exp(epsilon) Phi(-1/(2s) - epsilon s) <= delta``, valid for every
  ``epsilon > 0``;
* ``"classical"`` (Dwork and Roth 2014, Theorem A.1): ``s = sqrt(2 ln(1.25/delta)) / epsilon``,
  proved only for ``epsilon < 1``.

The analytic condition is the Gaussian-DP trade-off of Dong, Roth and Su (2022, Corollary 2.13):
a Gaussian mechanism with sensitivity ``Delta`` and noise ``sigma`` is ``mu``-GDP with
``mu = Delta / sigma``, and ``mu``-GDP implies (epsilon, delta(epsilon))-DP for every epsilon with
``delta(epsilon) = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2)``.
So the analytic multiplier is ``1 / mu(epsilon, delta)``; this module solves that one equation
(in log space, so that ``exp(epsilon)`` never overflows) and derives everything from it.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable

from scipy.special import log_ndtr

from dppca._stack import user_stacklevel
from dppca._validation import check_delta, check_epsilon, check_option, check_real
from dppca.exceptions import PrivacyWarning

CALIBRATIONS = ("analytic", "classical")

#: Relative width at which the bisections stop (the issue asks for 1e-12).
_RELATIVE_TOLERANCE = 1e-14


_SMALLEST_NORMAL = 2.0**-1022
_LARGEST_SEARCHED = 2.0**1000

#: Below this gap relative to the logs' size, ``log(first) - log(second)`` is not trusted.
_CANCELLATION = 1e-6


def _log_gdp_delta(mu: float, epsilon: float) -> float:
    """``log delta(epsilon)`` of a ``mu``-GDP mechanism, never below the true value.

    ``delta = first - second`` with ``first = Phi(mu/2 - epsilon/mu)`` and
    ``second = exp(epsilon) Phi(-epsilon/mu - mu/2)``. For a tiny ``mu`` the two logs agree to
    within their rounding and their difference says nothing (it once read as ``delta = 0`` and
    gave a ``mu`` far too large at epsilon 1e-20): where the gap is below ``_CANCELLATION``
    times their size, ``first`` alone, an upper bound of delta, is returned.
    """
    log_first = float(log_ndtr(mu / 2.0 - epsilon / mu))
    log_second = epsilon + float(log_ndtr(-epsilon / mu - mu / 2.0))
    gap = log_first - log_second
    if gap <= _CANCELLATION * (1.0 + abs(log_first) + abs(log_second)):
        return log_first
    return log_first + math.log1p(-math.exp(-gap))


def _bisect_log(
    satisfied: Callable[[float], bool], start: float, *, satisfied_below: bool
) -> float:
    """Bisection on ``log x`` for the boundary of a monotone condition on ``x > 0``.

    ``satisfied_below`` says whether the condition holds below the boundary (True) or above it.
    Returns a point where the condition holds, within a relative ``_RELATIVE_TOLERANCE`` of the
    boundary.
    """
    toward_boundary = 2.0 if satisfied_below else 0.5
    inside = outside = start
    if satisfied(start):
        while satisfied(outside):
            inside, outside = outside, outside * toward_boundary
    else:
        while not satisfied(inside):
            outside, inside = inside, inside / toward_boundary
            if not _SMALLEST_NORMAL <= inside <= _LARGEST_SEARCHED:
                raise ValueError("the boundary lies beyond the normal floats")
    while abs(outside - inside) > _RELATIVE_TOLERANCE * min(inside, outside):
        product = inside * outside  # its square root, unless it underflows
        middle = (
            math.sqrt(product)
            if product >= _SMALLEST_NORMAL
            else (math.sqrt(inside) * math.sqrt(outside))
        )
        if middle in (inside, outside):
            break
        if satisfied(middle):
            inside = middle
        else:
            outside = middle
    return inside


def gdp_delta(mu: float, epsilon: float) -> float:
    """The delta at which a ``mu``-GDP mechanism is (epsilon, delta)-DP.

    ``delta = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2)``
    (Dong, Roth and Su 2022, Corollary 2.13).
    """
    mu = check_real(mu, "mu", low=0.0)
    epsilon = check_real(epsilon, "epsilon", low=0.0, low_inclusive=True)
    return math.exp(_log_gdp_delta(mu, epsilon))


def gdp_mu(epsilon: float, delta: float) -> float:
    """The largest ``mu`` such that ``mu``-GDP implies (epsilon, delta)-DP.

    Solved by bisection on ``log mu`` to a relative error below 1e-12; the returned value is on
    the safe side (its delta is at most the requested one).
    """
    return gdp_mu_kernel(check_epsilon(epsilon), check_delta(delta))


def gdp_mu_kernel(epsilon: float, delta: float) -> float:
    """:func:`gdp_mu` of validated values (the mechanisms' calibration; no checks). Refuses
    (epsilon, delta) so small that no normal float ``mu`` meets them."""
    log_delta = math.log(delta)
    try:
        return _bisect_log(
            lambda mu: _log_gdp_delta(mu, epsilon) <= log_delta, 1.0, satisfied_below=True
        )
    except ValueError:
        raise ValueError(
            f"epsilon={epsilon:g} with delta={delta:g} is too small for Gaussian noise in "
            "floating point: no normal float multiplier mu meets it. Give a larger budget."
        ) from None


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon such that a ``mu``-GDP mechanism is (epsilon, delta)-DP."""
    mu = check_real(mu, "mu", low=0.0)
    delta = check_delta(delta)
    log_delta = math.log(delta)
    if _log_gdp_delta(mu, 0.0) <= log_delta:
        return 0.0
    return _bisect_log(lambda eps: _log_gdp_delta(mu, eps) <= log_delta, 1.0, satisfied_below=False)


def analytic_gaussian_multiplier(epsilon: float, delta: float) -> float:
    """Noise standard deviation per unit of L2 sensitivity, analytic Gaussian mechanism.

    ``s = 1 / mu(epsilon, delta)``: the smallest ``s`` with
    ``Phi(1/(2s) - epsilon s) - exp(epsilon) Phi(-1/(2s) - epsilon s) <= delta``
    (Balle and Wang 2018, Theorem 8).
    """
    return 1.0 / gdp_mu(epsilon, delta)


def classical_gaussian_multiplier(epsilon: float, delta: float) -> float:
    """``sqrt(2 ln(1.25/delta)) / epsilon`` (Dwork and Roth 2014, Theorem A.1).

    Warns
    -----
    PrivacyWarning
        When ``epsilon >= 1``: the theorem's proof needs ``epsilon < 1``.
    """
    return _classical_kernel(check_epsilon(epsilon), check_delta(delta))


def _classical_kernel(epsilon: float, delta: float) -> float:
    if epsilon >= 1.0:
        warnings.warn(
            f"The classical Gaussian calibration is proved only for epsilon < 1 (got "
            f"epsilon={epsilon:g}); the (epsilon, delta) guarantee is not established. "
            'Use calibration="analytic", which is exact for every epsilon.',
            PrivacyWarning,
            stacklevel=user_stacklevel(),
        )
    return math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def gaussian_multiplier(epsilon: float, delta: float, calibration: str = "analytic") -> float:
    """Noise multiplier of the Gaussian mechanism under the named calibration.

    The noise standard deviation is ``sensitivity * gaussian_multiplier(epsilon, delta)``.
    """
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    return multiplier_kernel(check_epsilon(epsilon), check_delta(delta), calibration)


def multiplier_kernel(epsilon: float, delta: float, calibration: str) -> float:
    """:func:`gaussian_multiplier` of validated values (the mechanisms' calibration)."""
    if calibration == "analytic":
        return 1.0 / gdp_mu_kernel(epsilon, delta)
    if calibration == "classical":
        return _classical_kernel(epsilon, delta)
    raise ValueError(f"calibration must be one of {', '.join(CALIBRATIONS)}; got {calibration!r}.")


def _log_zcdp_delta_at(alpha: float, rho: float, epsilon: float) -> float:
    """``log delta`` of the bound at Renyi order ``alpha``:
    ``(alpha - 1)(alpha rho - epsilon) + (alpha - 1) log(1 - 1/alpha) - log(alpha)``."""
    return (alpha - 1) * (alpha * rho - epsilon + math.log1p(-1 / alpha)) - math.log(alpha)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The delta at which a ``rho``-zCDP mechanism is (epsilon, delta)-DP.

    ``delta = min_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) (1 - 1/alpha)^(alpha - 1)
    / alpha`` (Canonne, Kamath and Steinke 2020, Proposition 12 with Renyi divergence
    ``rho alpha`` at every order). The exponent is convex in ``alpha``, with derivative
    ``2 alpha rho - rho - epsilon + log(1 - 1/alpha)``; the minimum is found by bisection on it.

    Examples
    --------
    >>> round(zcdp_delta(0.5, 2.0), 4)
    0.0543
    """
    return _zcdp_delta_kernel(
        check_real(rho, "rho", low=0.0),
        check_real(epsilon, "epsilon", low=0.0, low_inclusive=True),
    )


def _zcdp_delta_kernel(rho: float, epsilon: float) -> float:
    def slope(alpha: float) -> float:
        return 2 * alpha * rho - rho - epsilon + math.log1p(-1 / alpha)

    # Bisection on log(alpha - 1): the optimum may be near 1 or near 1 / rho.
    # (epsilon + 1) / (2 rho) + 2 bounds the optimum; its log is computed without overflow, and
    # orders are kept below 1e300 (any order gives a valid bound; the cap only loosens it).
    ceiling = math.log(1e300)
    low = math.log(1e-12)
    high = min(max(0.0, math.log1p(epsilon) - math.log(2 * rho)) + 2.0, ceiling)
    while slope(1 + math.exp(high)) < 0 and high < ceiling:
        high = min(high + math.log(2.0), ceiling)
    for _ in range(300):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if slope(1 + math.exp(middle)) < 0:
            low = middle
        else:
            high = middle
    best = min(_log_zcdp_delta_at(1 + math.exp(t), rho, epsilon) for t in (low, high))
    return math.exp(min(best, 0.0))


#: The range searched for ``rho``: budgets beyond it give noise scales that are refused anyway.
_RHO_RANGE = (1e-300, 1e300)


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ``rho`` such that ``rho``-zCDP implies (epsilon, delta)-DP (on the safe side:
    its delta is at most the requested one), within ``[1e-300, 1e300]``: a huge budget gets
    the largest end, or a ``ValueError`` when even the smallest does not reach delta."""
    return zcdp_rho_kernel(check_epsilon(epsilon), check_delta(delta))


@functools.lru_cache(maxsize=4096)
def zcdp_rho_kernel(epsilon: float, delta: float) -> float:
    """:func:`zcdp_rho` of validated values (the discrete sampler's calibration; no checks).
    Cached: a mechanism's scale and its privacy loss, and the plans a tight composition
    searches through, ask for the same values again."""
    target = delta * (1.0 - 1e-9)  # a margin for the rounding of the conversion itself
    low, high = _RHO_RANGE
    if _zcdp_delta_kernel(high, epsilon) <= target:
        return high
    if _zcdp_delta_kernel(low, epsilon) > target:
        raise ValueError(
            f"epsilon={epsilon:g} and delta={delta:g} are too small for the discrete sampler: no "
            "rho >= 1e-300 reaches them. Use a larger budget."
        )
    while high / low > 1.0 + _RELATIVE_TOLERANCE:  # bisection on log rho; low stays satisfied
        middle = math.sqrt(low) * math.sqrt(high)
        if middle in (low, high):
            break
        if _zcdp_delta_kernel(middle, epsilon) <= target:
            low = middle
        else:
            high = middle
    return low
