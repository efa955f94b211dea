"""Durfee's one-sided unbounded quantile (the winsorization radius uses it)."""

from __future__ import annotations

import numpy as np
import pytest

from dppca import DurfeeStepLimitWarning
from dppca.privacy.quantiles import durfee_upper_quantile


@pytest.mark.parametrize(("centre", "scale"), [(0.0, 1.0), (50.0, 1e-3), (1e6, 1e4)])
def test_median_lands_near_the_true_median(centre, scale):
    rng = np.random.default_rng(3)
    n = 20000
    lower = centre - 10 * scale
    x = np.clip(centre + scale * rng.standard_normal(n), lower, None)
    truth = np.quantile(x, 0.5)
    # Grid resolution at the median: one step is a factor beta of (t - lower + 1).
    resolution = 0.01 * (truth - lower + 1)
    hits = 0
    for _ in range(40):
        estimate = durfee_upper_quantile(x, 0.5, 1.0, rng, lower=lower)
        # Exponential noise of mean 2/epsilon = 2 counts moves the rank by a few: one or two grid
        # steps at most, plus the rank error measured in value units.
        rank = np.searchsorted(np.sort(x), estimate) / n
        hits += abs(rank - 0.5) < 0.01 or abs(estimate - truth) <= 2 * resolution
    assert hits >= 36


def test_never_returns_below_lower_bound_and_is_on_the_grid():
    rng = np.random.default_rng(0)
    x = rng.uniform(2.0, 3.0, 500)
    for _ in range(50):
        value = durfee_upper_quantile(x, 0.1, 0.5, rng, lower=2.0)
        assert value >= 2.0 + 0.01
        step = np.log1p(value - 2.0) / np.log(1.01)
        assert abs(step - round(step)) < 1e-6


def test_step_limit_warning_returns_last_grid_point():
    rng = np.random.default_rng(0)
    x = np.full(100, 1e9)
    with pytest.warns(DurfeeStepLimitWarning, match="max_steps=50"):
        value = durfee_upper_quantile(x, 0.5, 1.0, rng, max_steps=50)
    assert value == pytest.approx(1.01**50 - 1, rel=1e-12)


def test_errors():
    rng = np.random.default_rng(0)
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="lower bound"):
        durfee_upper_quantile(x - 5, 0.5, 1.0, rng)
    with pytest.raises(ValueError, match="q must be < 1"):
        durfee_upper_quantile(x, 1.0, 1.0, rng)
    with pytest.raises(ValueError, match="beta must be > 1"):
        durfee_upper_quantile(x, 0.5, 1.0, rng, beta=1.0)
    with pytest.raises(ValueError, match="non-empty 1-D"):
        durfee_upper_quantile(np.array([np.nan]), 0.5, 1.0, rng)
