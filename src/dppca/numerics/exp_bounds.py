"""Certified bounds on ``exp(-x)``: float intervals for whole arrays, integers to any precision.

An exact sampler must decide ``X < exp(-x)`` for a uniform ``X`` without ever trusting a rounded
``exp``. Two tools here make that cheap:

* :func:`exp_neg_interval` gives floats ``lo <= exp(-x) <= hi`` for every ``x`` in a float
  interval ``[x_lo, x_hi]``, from IEEE 754 operations alone (each correctly rounded, so each
  error is bounded; no library ``exp``): ``x = n + f`` with ``n`` an integer and ``f`` in
  ``[0, 1)`` (exact in floating point); ``exp(-n)`` from a table of certified bounds computed
  once in integer arithmetic; ``exp(-f)`` from its Taylor polynomial of degree ``K = 17``
  evaluated by Horner's rule, whose error is at most ``gamma_{2K+1} sum_k f^k / k! <= 35 u e``
  (Higham 2002, Section 5.1; ``u = 2^-53``, coefficients rounded to nearest), below ``1.1e-14``,
  plus the truncation ``1 / 18! < 2e-16``: ``POLYNOMIAL_ERROR = 2^-45`` bounds both. Every
  product is then rounded outward (one float towards zero or infinity), so the interval holds.
  Over ``[x_lo, x_hi]`` of width ``w``, ``exp(-x_hi) >= exp(-x_lo) (1 - w)``.
* :func:`exp_neg_scaled` gives integers ``lo <= 2^P exp(-q) <= hi`` for a rational ``q`` and any
  precision ``P``, from the alternating series of ``exp(-f)`` and of ``exp(-1)`` in exact rational
  arithmetic: slow, and used only where a float interval leaves a comparison undecided.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np

#: Degree of the Taylor polynomial of ``exp(-f)`` on ``[0, 1)``.
TAYLOR_DEGREE = 17
_COEFFICIENTS = [1.0 / math.factorial(k) for k in range(TAYLOR_DEGREE + 1)]
#: Bound on the absolute error of the computed polynomial, rounding and truncation together.
POLYNOMIAL_ERROR = 2.0**-45
#: ``exp(-x)`` for ``x >= UNDERFLOW_ARGUMENT`` is below the smallest subnormal float.
UNDERFLOW_ARGUMENT = 746
_TABLE_BITS = 1200


def _exp_neg_one_bounds(bits: int) -> tuple[int, int]:
    """Integers ``lo <= 2^bits exp(-1) <= hi``, ``hi - lo <= 3``."""
    total, term, k = Fraction(0), Fraction(1), 0
    while term > Fraction(1, 2 ** (bits + 2)):
        total += term if k % 2 == 0 else -term
        k += 1
        term /= k
    # An alternating series of decreasing terms lies within its next term of the partial sum.
    scaled = total * 2**bits
    return math.floor(scaled) - 1, math.ceil(scaled) + 1


@cache
def exp_neg_table() -> tuple[np.ndarray, np.ndarray]:
    """Floats ``lo[n] <= exp(-n) <= hi[n]`` for ``n = 0 .. UNDERFLOW_ARGUMENT`` (the last entry
    bounds every larger argument: ``[0, 2^-1074]``), each within a few units in the last place.

    Examples
    --------
    >>> lo, hi = exp_neg_table()
    >>> bool(lo[1] <= 0.36787944117144233 <= hi[1]), float(hi[0])
    (True, 1.0)
    """
    e_lo, e_hi = _exp_neg_one_bounds(_TABLE_BITS)
    lo, hi = [1.0], [1.0]
    low, high = 1 << _TABLE_BITS, 1 << _TABLE_BITS
    for _ in range(1, UNDERFLOW_ARGUMENT):
        low = (low * e_lo) >> _TABLE_BITS  # floor keeps a lower bound
        high = -((-high * e_hi) >> _TABLE_BITS)  # ceiling keeps an upper bound
        # int / int is correctly rounded (subnormals included); one step outward makes it safe.
        lo.append(math.nextafter(low / (1 << _TABLE_BITS), 0.0))
        hi.append(math.nextafter(high / (1 << _TABLE_BITS), math.inf))
    lo.append(0.0)
    hi.append(math.ulp(0.0))
    return np.array(lo), np.array(hi)


def _taylor_exp_neg(f: np.ndarray) -> np.ndarray:
    """Horner's rule for ``sum_k (-f)^k / k!``, ``k <= TAYLOR_DEGREE``."""
    value = np.full_like(f, _COEFFICIENTS[-1])
    for coefficient in reversed(_COEFFICIENTS[:-1]):
        value *= f
        np.subtract(coefficient, value, out=value)
    return value


def exp_neg_interval(x_lo: np.ndarray, x_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats ``lo <= exp(-x) <= hi`` for every ``x`` in ``[x_lo, x_hi]``, ``0 <= x_lo <= x_hi``.

    Parameters
    ----------
    x_lo, x_hi : numpy.ndarray
        Float arrays of equal shape.

    Returns
    -------
    lo, hi : numpy.ndarray
        Certified bounds (module docstring), within about ``2^-42 + 2 w`` of each other relative
        to ``exp(-x_lo)``, ``w = x_hi - x_lo``.

    Examples
    --------
    >>> lo, hi = exp_neg_interval(np.array([0.5, 3.0]), np.array([0.5, 3.0]))
    >>> bool(np.all(lo <= np.exp(-np.array([0.5, 3.0]))) and np.all(hi - lo < 1e-12))
    True
    """
    if not (np.all(x_lo >= 0.0) and np.all(x_hi >= x_lo)):  # also refuses NaN
        raise ValueError("exp_neg_interval needs 0 <= x_lo <= x_hi.")
    table_lo, table_hi = exp_neg_table()
    x = np.minimum(x_lo, float(UNDERFLOW_ARGUMENT))
    whole = np.floor(x)
    fraction = x - whole  # exact: Sterbenz's lemma for x >= 1, whole = 0 below
    index = whole.astype(np.intp)
    polynomial = _taylor_exp_neg(fraction)
    hi = np.nextafter(table_hi[index] * (polynomial + POLYNOMIAL_ERROR), np.inf)
    lo = np.nextafter(table_lo[index] * (polynomial - POLYNOMIAL_ERROR), 0.0)
    # exp(-x) >= exp(-x_lo) exp(-w) >= exp(-x_lo) (1 - w); the factor 1 - 2w - 2^-50 absorbs the
    # rounding of this line (two roundings, each below 2^-53 relative).
    factor = 1.0 - 2.0 * (x_hi - x_lo) - 2.0**-50
    lo = np.where(factor > 0.0, np.nextafter(lo * np.maximum(factor, 0.0), 0.0), 0.0)
    return lo, hi


def _series_bounds(f: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals bracketing ``exp(-f)`` for ``0 <= f <= 1`` within ``2^-bits``."""
    total, term, k = Fraction(0), Fraction(1), 0
    while term > Fraction(1, 2**bits):
        total += term if k % 2 == 0 else -term
        k += 1
        term = term * f / k
    return total - term, total + term


def exp_neg_scaled(q: Fraction, precision: int) -> tuple[int, int]:
    """Integers ``lo <= 2^precision exp(-q) <= hi`` for a rational ``q >= 0``.

    ``hi - lo`` is a few units for any ``q``, so comparisons with a uniform variable refined to
    ``precision`` bits are decided with probability about ``1 - 2^(3 - precision)``.

    Examples
    --------
    >>> lo, hi = exp_neg_scaled(Fraction(1, 3), 60)
    >>> hi - lo <= 8, abs(lo / 2**60 - math.exp(-1 / 3)) < 1e-15
    (True, True)
    """
    whole = math.floor(q)
    if whole > (precision + 2) * math.log(2) + 1:  # below 2^-(precision + 2)
        return 0, 1
    guard = precision + 8 + 2 * whole.bit_length() + whole
    f_lo, f_hi = _series_bounds(q - whole, guard)
    e_lo, e_hi = _exp_neg_one_bounds(guard)
    scale = 2**precision
    lower = f_lo * Fraction(e_lo, 2**guard) ** whole * scale
    upper = f_hi * Fraction(e_hi, 2**guard) ** whole * scale
    return max(math.floor(lower), 0), math.ceil(upper)
