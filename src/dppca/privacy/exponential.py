"""The exponential mechanism over runs of a public grid, sampled exactly.

A candidate ``j`` of a public grid with utility ``-d_j``, where ``d_j`` moves by at most 1 when
one row is replaced, is chosen with probability proportional to ``exp(-epsilon d_j / 2)``:
epsilon-DP (McSherry and Talwar 2007). When consecutive candidates share a utility they form a
run; a run of ``N`` candidates at distance ``d`` has weight ``N exp(-epsilon d / 2)``, so the
sampler works on the runs (Smith 2011) however long the grid: it picks a run, then a uniform
candidate in it.

The run is chosen by the inverse distribution function at one uniform ``U``, decided exactly: a
floating-point pass with a proven error margin settles it unless ``U`` falls within that margin
of a boundary (rarely); then ``U`` is extended by more random bits and the weights are bounded
in decimal arithmetic with directed rounding, at growing precision, until the interval of ``U``
lies inside one run's interval. No floating-point rounding enters the probabilities (Mironov
2012 shows how it can leak), and the same random bits give the same run when every weight is
shifted along the grid, which makes grid searches equivariant.
"""

from __future__ import annotations

import bisect
import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

import numpy as np

from dppca.privacy.discrete import rational_at_most
from dppca.privacy.mechanisms import Noise

_UNIT_ROUNDOFF = 2.0**-53
#: Bits of the uniform in the floating-point pass (``k / 2^53`` is an exact float).
_FIRST_BITS = 53
#: Decimal digits of the first exact pass; doubled at each refinement.
_FIRST_PRECISION = 40
#: A larger epsilon is used as this one (less epsilon is always safe; at ``1e4`` a count one
#: away from the best already has weight ``e^-5000``).
MAX_EPSILON = 1e4


def exponential_runs(
    lengths: np.ndarray,
    counts: np.ndarray,
    target: float,
    epsilon: float,
    noise: Noise,
) -> tuple[int, int]:
    """Choose a candidate with probability proportional to ``exp(-epsilon |c - target| / 2)``.

    Parameters
    ----------
    lengths : ndarray of int, shape (R,)
        The number of candidates in each run (all ``>= 1``).
    counts : ndarray of int or float, shape (R,)
        Each run's count ``c`` (or the count of an interval of counts nearest the target);
        its distance to ``target`` is the negated utility.
    target : float
        The public target count (for a quantile, ``q n``).
    epsilon : float
        The mechanism's epsilon; a rational no larger than it (and than ``MAX_EPSILON``) is
        used, so the guarantee holds and every exponent stays a finite float.
    noise : Noise
        The source of the uniform bits (secure with the discrete sampler).

    Returns
    -------
    (int, int)
        The run's index and the candidate's offset within it.
    """
    rate = rational_at_most(min(epsilon, MAX_EPSILON)) / 2
    exact_target = Fraction(target)
    distances = np.abs(counts.astype(np.float64) - target)
    shifted = float(rate) * (distances - distances.min())  # at most 5e3 * 2^53: finite
    with np.errstate(under="ignore"):
        cumulative = np.cumsum(lengths * np.exp(-shifted))
    probabilities = cumulative / cumulative[-1]
    margin = _float_margin(float(rate), float(max(np.max(counts), abs(target))), len(lengths))

    bits, width = noise.bits(_FIRST_BITS), _FIRST_BITS
    low, high = math.ldexp(bits, -width), math.ldexp(bits + 1, -width)
    run = int(np.searchsorted(probabilities, high, side="left"))
    below = probabilities[run - 1] if run > 0 else 0.0
    if run < len(lengths) and below + margin <= low and high <= probabilities[run] - margin:
        return run, noise.below(int(lengths[run]))

    precision = _FIRST_PRECISION
    d_min = min(abs(Fraction(c) - exact_target) for c in counts.tolist())
    while True:
        bits, width = (bits << 64) | noise.bits(64), width + 64
        found = _exact_run(lengths, counts, exact_target, d_min, rate, precision, bits, width)
        if found is not None:
            return found, noise.below(int(lengths[found]))
        precision *= 2


def _float_margin(rate: float, largest_count: float, runs: int) -> float:
    """A bound on the error of the floating-point cumulative probabilities, doubled.

    The distances are within ``2u`` times the largest count and the shifted exponents within
    ``4u rate`` times it; a weight that is not negligible (exponent above -800) is then within
    ``rho = 4u (rate c_max + 202)`` relative, a negligible one within ``1e-300`` of the total;
    recursive summation adds ``R u`` relative and the division ``u``, so each probability is
    within ``2 rho + 2 (R + 1) u + 1e-300 R``.
    """
    rho = 4.0 * _UNIT_ROUNDOFF * (rate * (largest_count + 1.0) + 202.0)
    return 2.0 * (2.0 * rho + 2.0 * (runs + 1) * _UNIT_ROUNDOFF + 1e-300 * runs)


def _exact_run(
    lengths: np.ndarray,
    counts: np.ndarray,
    target: Fraction,
    d_min: Fraction,
    rate: Fraction,
    precision: int,
    bits: int,
    width: int,
) -> int | None:
    """The run whose interval contains ``[bits, bits + 1) / 2^width``, or None when the bounds at
    this precision cannot tell."""
    with localcontext() as context:
        context.prec = precision
        context.Emax, context.Emin = 10**9, -(10**9)
        ulp = Decimal(10) ** (1 - precision)
        tiny = Decimal(10) ** -(precision + 20)
        cutoff = 2.31 * (precision + 20) + 1.0  # exp(-a) < 10^-(precision + 20) beyond it
        lows, highs = [], []
        for length, count in zip(lengths.tolist(), counts.tolist(), strict=True):
            exponent = rate * (abs(Fraction(count) - target) - d_min)
            if float(exponent) > cutoff:
                lows.append(Decimal(0))
                context.rounding = ROUND_CEILING
                highs.append(tiny * length)
                continue
            context.rounding = ROUND_FLOOR
            low_exponent = Decimal(exponent.numerator) / Decimal(exponent.denominator)
            context.rounding = ROUND_CEILING
            high_exponent = Decimal(exponent.numerator) / Decimal(exponent.denominator)
            context.rounding = ROUND_HALF_EVEN  # exp is correctly rounded: within half an ulp
            largest, smallest = (-low_exponent).exp(), (-high_exponent).exp()
            context.rounding = ROUND_CEILING
            highs.append(largest * (1 + ulp) * length)
            context.rounding = ROUND_FLOOR
            lows.append(smallest * (1 - ulp) * length)
        context.rounding = ROUND_FLOOR
        low_sums = _running_sums(lows)
        context.rounding = ROUND_CEILING
        high_sums = _running_sums(highs)
        low_total, high_total = low_sums[-1], high_sums[-1]
        context.rounding = ROUND_FLOOR
        low_probabilities = [value / high_total for value in low_sums]
        context.rounding = ROUND_CEILING
        high_probabilities = [value / low_total for value in high_sums]
    lower, upper = _exact_decimal(bits, width), _exact_decimal(bits + 1, width)
    run = bisect.bisect_left(low_probabilities, upper)
    if run >= len(lengths):
        return None
    if run > 0 and high_probabilities[run - 1] > lower:
        return None
    return run


def _running_sums(values: list[Decimal]) -> list[Decimal]:
    sums, total = [], Decimal(0)
    for value in values:
        total = total + value
        sums.append(total)
    return sums


def _exact_decimal(numerator: int, width: int) -> Decimal:
    """``numerator / 2^width`` as an exact Decimal (``2^-w = 5^w 10^-w``)."""
    return Decimal(f"{numerator * 5**width}E-{width}")
