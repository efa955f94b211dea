"""Durfee's unbounded quantiles: one-sided (public lower bound) and two-sided."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dppca import Budget, DurfeeStepLimitWarning, dp_quantile
from dppca.privacy.durfee import DurfeeQuantile
from dppca.privacy.mechanisms import Noise

N = 20000
REPETITIONS = 30
#: Rank allowance: each search compares a count plus Exp(mean 2/epsilon_branch) noise with a
#: target plus the same noise; with epsilon_branch = 0.5 (two-sided, epsilon = 1) the difference
#: exceeds 60 counts with probability about exp(-60 / 4) < 1e-6.
RANK_ALLOWANCE = 60


def durfee_upper_quantile(x, q, epsilon, rng, *, lower=0.0, max_steps=5000):
    """The one-sided search through its mechanism object, on the continuous sampler."""
    mechanism = DurfeeQuantile(q, epsilon, lower, max_steps=max_steps)
    return mechanism.release(x, Noise("continuous", rng))


def durfee_signed_quantile(x, q, epsilon, rng, *, max_steps=5000):
    """The two-sided search through its mechanism object, on the continuous sampler."""
    mechanism = DurfeeQuantile(q, epsilon, None, max_steps=max_steps)
    return mechanism.release(x, Noise("continuous", rng))


def _within_resolution(estimate, x, q, beta=1.01):
    """Within two grid steps of the empirical quantiles at q +- RANK_ALLOWANCE / n."""
    low, high = np.quantile(x, [q - RANK_ALLOWANCE / len(x), q + RANK_ALLOWANCE / len(x)])
    step = 2 * (beta - 1) * (max(abs(low), abs(high)) + 1)
    return low - step <= estimate <= high + step


@pytest.mark.parametrize("centre", [0.0, 1e6, -1e6])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3, 1e6])
def test_two_sided_median_lands_within_the_grid_resolution(centre, scale):
    rng = np.random.default_rng(int(abs(centre)) % 97 + int(math.log10(scale)) + 10)
    x = centre + scale * rng.standard_normal(N)
    hits = sum(
        _within_resolution(float(dp_quantile(x, 0.5, 1.0, random_state=rng)), x, 0.5)
        for _ in range(REPETITIONS)
    )
    assert hits >= 0.9 * REPETITIONS


@pytest.mark.parametrize("q", [0.1, 0.9])
def test_two_sided_other_levels(q):
    rng = np.random.default_rng(1)
    x = 50.0 + 20.0 * rng.standard_t(3, N)
    hits = sum(
        _within_resolution(float(dp_quantile(x, q, 1.0, random_state=rng)), x, q)
        for _ in range(REPETITIONS)
    )
    assert hits >= 0.9 * REPETITIONS


@pytest.mark.parametrize(("lower", "centre", "scale"), [(0.0, 5.0, 1.0), (-1e6, 0.0, 1e4)])
def test_one_sided_lands_within_the_grid_resolution(lower, centre, scale):
    rng = np.random.default_rng(2)
    x = np.maximum(centre + scale * rng.standard_normal(N), lower)
    hits = 0
    for _ in range(REPETITIONS):
        estimate = dp_quantile(x, 0.5, 1.0, lower=lower, random_state=rng).value
        low, high = np.quantile(x, [0.5 - RANK_ALLOWANCE / N, 0.5 + RANK_ALLOWANCE / N])
        step = 2 * 0.01 * (high - lower + 1)  # the grid lower + 1.01^i - 1
        hits += low - step <= estimate <= high + step
    assert hits >= 0.9 * REPETITIONS


def test_one_sided_never_returns_below_lower_bound_and_stays_on_the_grid():
    rng = np.random.default_rng(0)
    x = rng.uniform(2.0, 3.0, 500)
    for _ in range(100):
        value = durfee_upper_quantile(x, 0.01, 0.1, rng, lower=2.0)
        assert value >= 2.0 + 0.01
        step = np.log1p(value - 2.0) / np.log(1.01)
        assert abs(step - round(step)) < 1e-6


def test_two_sided_answers_are_on_the_signed_grid():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(300) * 5
    for _ in range(50):
        value = durfee_signed_quantile(x, 0.3, 1.0, rng)
        step = np.log1p(abs(value)) / np.log(1.01)
        assert abs(step - round(step)) < 1e-6
    # Data all at 0 move to beta - 1, which is the first grid point expm1(log beta) up to its
    # last bit (numpy's expm1 and log round it differently from one version to the next): the
    # strict count there is 0 or all, so the answer is that point or 0.
    assert durfee_signed_quantile(np.zeros(1000), 0.5, 5.0, rng) in (0.0, pytest.approx(0.01))
    # Data all at -3: the positive branch stops at k = 0 and the negative one answers with the
    # first grid point strictly above 3 (strict counts), negated.
    first_above = next(k for k in range(1000) if 1.01**k - 1 > 3.0)
    value = durfee_signed_quantile(np.full(1000, -3.0), 0.5, 5.0, rng)
    assert value == pytest.approx(-(1.01**first_above - 1), rel=1e-12)


def test_step_limit_warnings():
    rng = np.random.default_rng(0)
    x = np.full(100, 1e9)
    with pytest.warns(DurfeeStepLimitWarning, match="max_steps=50"):
        value = durfee_upper_quantile(x, 0.5, 1.0, rng, max_steps=50)
    assert value == pytest.approx(1.01**50 - 1, rel=1e-12)
    with pytest.warns(DurfeeStepLimitWarning) as record:
        assert durfee_signed_quantile(x, 0.5, 1.0, rng, max_steps=50) == 0.0
    assert len(record) == 1  # one warning for the two branches
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        durfee_signed_quantile(x, 0.5, 1.0, rng)  # 1e9 is reachable in 5000 steps


def test_result_records_its_release():
    result = dp_quantile(np.arange(100.0), 0.5, 0.3, random_state=0)
    assert result.privacy.total == Budget(0.3, 0.0)
    assert float(result) == result.value
    assert "two-sided" in result.privacy.entries[0].mechanism
    same = dp_quantile(np.arange(100.0), 0.5, 0.3, random_state=0)
    assert same.value == result.value


def test_input_not_modified():
    x = np.array([3.0, 1.0, 2.0] * 20)
    before = x.copy()
    dp_quantile(x, 0.5, 1.0, random_state=0)
    assert np.array_equal(x, before)


def test_values_below_the_lower_bound_count_as_the_bound():
    """Whether a value lies below a public bound is private: such values are clamped to the
    bound, never refused."""
    x = np.arange(20.0) - 5.0
    low = dp_quantile(x, 0.3, 1.0, lower=0.0, random_state=4)
    clamped = dp_quantile(np.maximum(x, 0.0), 0.3, 1.0, lower=0.0, random_state=4)
    assert low.value == clamped.value


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"q": 1.0}, ValueError, "q must be < 1"),
        ({"q": 0.0}, ValueError, "q must be > 0"),
        ({"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
        ({"beta": 1.0}, ValueError, "beta must be > 1"),
        ({"max_steps": 0}, ValueError, "max_steps must be an integer >= 1"),
        ({"x": np.array([np.nan, 1.0])}, ValueError, "x must contain only finite"),
        ({"x": np.array([])}, ValueError, "at least 1 value"),
        ({"x": np.ones((3, 2))}, ValueError, "x must be 1-D"),
        ({"x": ["a", "b"]}, TypeError, "x must hold real numbers"),
        ({"lower": math.inf}, ValueError, "lower must be finite"),
        ({"random_state": "x"}, TypeError, "random_state"),
    ],
)
def test_errors(kwargs, error, message):
    arguments = {"x": np.arange(10.0), "q": 0.5, "epsilon": 1.0, **kwargs}
    with pytest.raises(error, match=message):
        dp_quantile(**arguments)
