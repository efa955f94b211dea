"""Certified bounds on exp(-x), checked against mpmath at 400 bits."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dppca.numerics.exp_bounds import (
    UNDERFLOW_ARGUMENT,
    exp_neg_interval,
    exp_neg_scaled,
    exp_neg_table,
)

mpmath.mp.prec = 400


def _exact(x: float | Fraction) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator)
    return mpmath.exp(-mpmath.mpf(x))


def test_the_table_brackets_every_integer_argument_closely():
    lo, hi = exp_neg_table()
    for n in range(UNDERFLOW_ARGUMENT):
        exact = _exact(float(n))
        assert mpmath.mpf(lo[n]) <= exact <= mpmath.mpf(hi[n]), n
        if hi[n] > 2.0**-1000:  # normal range: a few units in the last place
            assert hi[n] - lo[n] <= 4 * math.ulp(hi[n]), n
    assert lo[UNDERFLOW_ARGUMENT] == 0.0 and _exact(float(UNDERFLOW_ARGUMENT)) < hi[-1]


def _arguments() -> np.ndarray:
    rng = np.random.default_rng(3)
    special = [
        0.0,
        5e-324,
        1e-300,
        2.0**-53,
        0.5,
        1.0 - 2.0**-53,
        1.0,
        1.0 + 2.0**-52,
        2.0,
        36.99999999999999,
        37.0,
        700.5,
        744.9,
        745.0,
        745.2,
        746.0,
        800.0,
        1e300,
    ]
    return np.concatenate(
        [
            special,
            rng.uniform(0, 1, 300),
            rng.uniform(0, 60, 300),
            rng.integers(0, 746, 100) + 0.0,
            rng.exponential(100, 100),
        ]
    )


def test_float_bounds_hold_and_are_tight_on_points():
    x = _arguments()
    lo, hi = exp_neg_interval(x, x)
    for value, low, high in zip(x, lo, hi, strict=True):
        exact = _exact(float(value))
        assert mpmath.mpf(low) <= exact <= mpmath.mpf(high), value
        # within 2^-42 relative in the normal range: 2 POLYNOMIAL_ERROR over exp(-f) >= 1 / e
        if exact > 2.0**-1000:
            assert high - low <= 2.0**-42 * float(exact), value


def test_float_bounds_hold_over_intervals():
    rng = np.random.default_rng(5)
    x_lo = rng.uniform(0, 50, 400)
    x_hi = x_lo + rng.choice([0.0, 1e-15, 1e-9, 1e-3, 0.3, 2.0], 400)
    lo, hi = exp_neg_interval(x_lo, x_hi)
    for a, b, low, high in zip(x_lo, x_hi, lo, hi, strict=True):
        assert mpmath.mpf(low) <= _exact(float(b)) and _exact(float(a)) <= mpmath.mpf(high)
        assert low >= 0.0


@pytest.mark.parametrize("precision", [53, 117, 245])
def test_integer_bounds_hold_and_are_tight(precision):
    rng = np.random.default_rng(precision)
    arguments = [
        Fraction(0),
        Fraction(1),
        Fraction(1, 3),
        Fraction(37),
        Fraction(10**40 + 1, 10**40),
    ]
    arguments += [
        Fraction(int(n), int(d))
        for n, d in zip(rng.integers(0, 10**6, 40), rng.integers(1, 10**5, 40), strict=True)
    ]
    arguments += [Fraction(int(rng.integers(1, 2**62)) ** 3, int(rng.integers(1, 2**62)) ** 3)]
    for q in arguments:
        lo, hi = exp_neg_scaled(q, precision)
        exact = _exact(q) * mpmath.mpf(2) ** precision
        assert lo <= exact <= hi, q
        assert hi - lo <= 8, q
