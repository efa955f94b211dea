"""Gaussian calibration: analytic (Balle and Wang 2018), classical, and Gaussian-DP conversions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from dppca import PrivacyWarning
from dppca.privacy.calibration import (
    analytic_gaussian_multiplier,
    classical_gaussian_multiplier,
    gaussian_multiplier,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
)

EPSILONS = np.geomspace(0.01, 50, 13)
DELTAS = [1e-12, 1e-9, 1e-6, 1e-4, 1e-2]


def _exact_delta(s: float, epsilon: float) -> float:
    """Balle-Wang's delta of noise multiplier s, straight from scipy's normal cdf."""
    return norm.cdf(1 / (2 * s) - epsilon * s) - math.exp(epsilon) * norm.cdf(
        -1 / (2 * s) - epsilon * s
    )


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_analytic_agrees_with_dp_accounting(epsilon, delta):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import dp_accounting

        expected = dp_accounting.get_sigma_gaussian(float(epsilon), delta)
    assert analytic_gaussian_multiplier(epsilon, delta) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("epsilon", "delta"), [(0.1, 1e-6), (1.0, 1e-5), (5.0, 1e-6), (3.0, 1e-2)])
def test_analytic_is_the_smallest_valid_multiplier(epsilon, delta):
    s = analytic_gaussian_multiplier(epsilon, delta)
    assert _exact_delta(s, epsilon) <= delta * (1 + 1e-9)
    assert _exact_delta(s * (1 - 1e-9), epsilon) > delta


def test_published_values():
    # Balle-Wang values quoted in the dependency check: (1, 1e-5) -> 3.7306316..., (10, 1e-9).
    assert analytic_gaussian_multiplier(1.0, 1e-5) == pytest.approx(3.7306316348159374, rel=1e-12)
    assert analytic_gaussian_multiplier(10.0, 1e-9) == pytest.approx(0.65025, rel=1e-4)


def test_classical_formula_and_warning():
    assert classical_gaussian_multiplier(0.5, 1e-5) == math.sqrt(2 * math.log(1.25e5)) / 0.5
    with pytest.warns(PrivacyWarning, match="not established"):
        classical_gaussian_multiplier(1.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        classical_gaussian_multiplier(0.99, 1e-5)


def test_analytic_is_smaller_than_classical_below_one():
    for epsilon in [0.05, 0.3, 0.9]:
        assert analytic_gaussian_multiplier(epsilon, 1e-6) < classical_gaussian_multiplier(
            epsilon, 1e-6
        )


@pytest.mark.parametrize(
    ("epsilon", "delta"), [(0.01, 1e-12), (0.5, 1e-6), (2.0, 1e-3), (30, 1e-8)]
)
def test_gdp_round_trips(epsilon, delta):
    mu = gdp_mu(epsilon, delta)
    # The analytic Gaussian's condition (Balle and Wang 2018, Theorem 8), with scipy's normal
    # distribution: noise sigma = s * Delta releases exactly delta at epsilon.
    s = analytic_gaussian_multiplier(epsilon, delta)
    exact = norm.cdf(1 / (2 * s) - epsilon * s) - math.exp(epsilon) * norm.cdf(
        -1 / (2 * s) - epsilon * s
    )
    assert exact == pytest.approx(delta, rel=1e-6) and s == pytest.approx(1 / mu, rel=1e-12)
    assert gdp_delta(mu, epsilon) == pytest.approx(delta, rel=1e-9)
    assert gdp_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-9)


def test_gdp_delta_matches_its_formula():
    mu, epsilon = 0.8, 0.7
    expected = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(
        -epsilon / mu - mu / 2
    )
    assert gdp_delta(mu, epsilon) == pytest.approx(expected, rel=1e-12)
    assert gdp_epsilon(0.01, 0.5) == 0.0  # delta above delta(0): no epsilon needed


def test_huge_epsilon_does_not_overflow():
    s = analytic_gaussian_multiplier(1e6, 1e-6)
    assert 0 < s < 1e-2


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: gaussian_multiplier(1.0, 1e-5, "laplace"), ValueError, "calibration must be"),
        (lambda: analytic_gaussian_multiplier(0.0, 1e-5), ValueError, "epsilon must be > 0"),
        (
            lambda: analytic_gaussian_multiplier(math.inf, 1e-5),
            ValueError,
            "epsilon must be finite",
        ),
        (lambda: analytic_gaussian_multiplier(1.0, 0.0), ValueError, "delta must be > 0"),
        (lambda: analytic_gaussian_multiplier(1.0, 1.0), ValueError, "delta must be < 1"),
        (lambda: analytic_gaussian_multiplier("1", 1e-5), TypeError, "epsilon must be a real"),
        (lambda: classical_gaussian_multiplier(True, 1e-5), TypeError, "epsilon must be a real"),
        (lambda: gdp_delta(-1.0, 1.0), ValueError, "mu must be > 0"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [
        (1e-300, 1e-300),
        (1e-20, 1e-20),
        (1e-16, 1e-17),
        (1e-12, 1e-20),
        (1e-6, 1e-6),
        (1e-3, 0.5),
        (0.1, 1e-6),
        (1.0, 1e-7),
        (50.0, 1e-300),
    ],
)
def test_the_multiplier_meets_delta_in_exact_arithmetic_at_any_budget(epsilon, delta):
    """Found in review: at tiny budgets the two terms of delta(epsilon) cancelled in floating
    point, read as delta = 0, and mu came out up to 1e284 times too large in delta. The delta of
    the returned mu, evaluated with 80 digits, is at most the request, up to the relative
    accuracy of the double-precision evaluation (a few 1e-12 where the terms do not cancel)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 80
    mu = mpmath.mpf(gdp_mu(epsilon, delta))
    exact = mpmath.ncdf(mu / 2 - epsilon / mu) - mpmath.exp(epsilon) * mpmath.ncdf(
        -epsilon / mu - mu / 2
    )
    assert exact <= delta * (1 + 1e-10)


def test_a_budget_beyond_floating_point_is_refused():
    with pytest.raises(ValueError, match="too small for Gaussian noise in floating point"):
        gdp_mu(1e-320, 1e-300)
