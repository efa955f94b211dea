"""The discrete sampler: exact integer distributions on a secure stream, its accounting, and the
releases that use it (grid, reproducibility, ledger)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dppca
from dppca.privacy.calibration import gdp_mu, zcdp_delta, zcdp_rho
from dppca.privacy.discrete import (
    SecureBits,
    bernoulli_exp_neg,
    discrete_gaussian,
    discrete_laplace,
    one_sided_geometric,
    rational_at_least,
    rational_at_most,
)
from dppca.privacy.mechanisms import GRID_STEPS, GaussianMechanism, Noise
from integer_samples import chi_square, secure_source

DRAWS = 20_000


@pytest.mark.parametrize(("a", "b"), [(0, 1), (3, 10), (1, 1), (27, 10), (5, 2)])
def test_bernoulli_exp_neg_has_the_exact_probability(a, b):
    source = secure_source(a * 10 + b)
    hits = sum(bernoulli_exp_neg(source, a, b) for _ in range(DRAWS))
    assert stats.binomtest(hits, DRAWS, math.exp(-a / b)).pvalue > 1e-4


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(5, 2), Fraction(40, 3)])
def test_discrete_laplace_matches_its_distribution(scale):
    source = secure_source(7)
    samples = [discrete_laplace(source, scale.denominator, scale.numerator) for _ in range(DRAWS)]
    bound = int(12 * scale) + 3
    pvalue = chi_square(samples, lambda y: math.exp(-abs(y) / scale), bound)
    assert pvalue > 1e-4
    assert abs(np.mean(samples)) < 5 * math.sqrt(2 * float(scale) ** 2 + 0.5) / math.sqrt(DRAWS)


@pytest.mark.parametrize("variance", [Fraction(1, 4), Fraction(9, 4), Fraction(307, 10)])
def test_discrete_gaussian_matches_its_distribution(variance):
    source = secure_source(11)
    samples = [discrete_gaussian(source, variance) for _ in range(DRAWS)]
    bound = int(8 * math.sqrt(variance)) + 2
    pmf = lambda y: math.exp(-(y * y) / (2 * variance))  # noqa: E731
    assert chi_square(samples, pmf, bound) > 1e-4
    # Its variance is at most sigma^2 (CKS 2020, Corollary 9).
    assert np.var(samples) < float(variance) * (1 + 5 * math.sqrt(2 / DRAWS))


def test_one_sided_geometric_matches_its_distribution():
    source = secure_source(13)
    samples = [one_sided_geometric(source, 3, 10) for _ in range(DRAWS)]
    assert min(samples) == 0
    assert chi_square(samples, lambda y: math.exp(-0.3 * y) if y >= 0 else 0.0, 60) > 1e-4


def test_the_stream_is_reproducible_only_under_its_key():
    first, again, other = secure_source(1), secure_source(1), secure_source(2)
    draws = [first.bits(61) for _ in range(200)]
    assert draws == [again.bits(61) for _ in range(200)]
    assert draws != [other.bits(61) for _ in range(200)]
    assert all(0 <= secure_source(3).below(7) < 7 for _ in range(100))
    with pytest.raises(ValueError, match="32 bytes"):
        SecureBits(b"short")


def test_rational_bounds_bracket_the_value():
    for value in (1e-300, 0.1, 1.0 / 3.0, 7.25, 1e300):
        low, high = rational_at_most(value), rational_at_least(value)
        assert low <= Fraction(value) <= high
        assert float(high - low) <= value * 2.0**-38


def test_zcdp_conversion_matches_dp_accounting_and_costs_a_little_noise():
    from dp_accounting.rdp.rdp_privacy_accountant import compute_delta

    orders = np.r_[np.linspace(1.001, 20, 40_000), np.linspace(20, 5000, 40_000)]
    for rho, epsilon in [(0.5, 2.0), (0.01, 1.0), (2.0, 5.0), (0.03, 1.0)]:
        reference, _ = compute_delta(orders, orders * rho, epsilon)
        ours = zcdp_delta(rho, epsilon)
        assert ours <= reference * (1 + 1e-9)  # the exact optimum is at most a grid's
        assert ours == pytest.approx(reference, rel=1e-3)
    rho = zcdp_rho(1.0, 1e-6)
    assert zcdp_delta(rho, 1.0) <= 1e-6
    assert zcdp_delta(rho * (1 + 1e-9), 1.0) > 1e-6 * (1 - 1e-6)
    ratio = (1 / math.sqrt(2 * rho)) * gdp_mu(1.0, 1e-6)
    assert 1.0 < ratio < 1.1  # zCDP costs under 10 % more noise than the analytic Gaussian


def test_discrete_gaussian_mechanism_releases_on_the_grid_with_the_stated_noise():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(40)
    noise = Noise("discrete", np.random.default_rng(5))
    sensitivity, epsilon, delta = 0.01, 1.0, 1e-6
    grid = sensitivity / (GRID_STEPS * math.sqrt(values.size))
    residuals = []
    mechanism = GaussianMechanism(sensitivity, values.size, epsilon, delta, "discrete")
    sd = mechanism.scale
    for _ in range(200):
        released = mechanism.randomise(values, noise)
        steps = released / grid
        assert np.allclose(steps, np.rint(steps), rtol=0, atol=1e-6)
        residuals.append(np.rint(steps) - np.rint(values / grid))
    residuals = np.concatenate(residuals)
    sigma = sd / grid
    rho = zcdp_rho(epsilon, delta)
    expected = (GRID_STEPS + 2) * math.sqrt(values.size) / math.sqrt(2 * rho)
    assert sigma == pytest.approx(expected, rel=1e-12)
    assert abs(residuals.std() / sigma - 1) < 5 / math.sqrt(2 * residuals.size)
    assert abs(residuals.mean()) < 5 * sigma / math.sqrt(residuals.size)


def test_discrete_releases_are_recorded_reproducible_with_a_seed_and_fresh_without():
    X = np.random.default_rng(1).standard_normal((1000, 4)) * [3, 2, 1, 1]
    first = dppca.dp_pca(
        X, 3.0, 1e-6, random_state=4, score={"bins": 5}, noise={"sampler": "discrete"}
    )
    again = dppca.dp_pca(
        X, 3.0, 1e-6, random_state=4, score={"bins": 5}, noise={"sampler": "discrete"}
    )
    fresh = dppca.dp_pca(X, 3.0, 1e-6, score={"bins": 5})  # the default sampler, fresh entropy
    assert np.array_equal(first.directions, again.directions)
    assert not np.array_equal(first.directions, fresh.directions)
    assert all(entry.mechanism.endswith("[discrete, secure]") for entry in first.privacy)
    assert first.settings["sampler"] == "discrete"
    assert first.privacy.total.epsilon <= 3.0
    continuous = dppca.dp_loading(X, 1.0, 1e-6, random_state=0, sampler="continuous")
    discrete = dppca.dp_loading(X, 1.0, 1e-6, random_state=0)  # the default
    assert 1.0 < discrete.sigma / continuous.sigma < 1.1
    assert dppca.dp_quantile(X[:, 0], 0.5, 1.0, sampler="discrete", random_state=0).privacy


@pytest.mark.parametrize(
    "call",
    [
        lambda X: dppca.dp_loading(X, 1.0, 1e-6, sampler="exact"),
        lambda X: dppca.dp_pca(X, 1.0, 1e-6, noise={"sampler": 3}),
        lambda X: dppca.dp_score(X, 1.0, 1e-6, bins=3, directions=np.eye(3), sampler="gauss"),
        lambda X: dppca.DPPCA(sampler="x").fit(X),
    ],
)
def test_unknown_samplers_are_refused_by_name(call):
    X = np.random.default_rng(0).standard_normal((30, 3))
    with pytest.raises((ValueError, TypeError), match=r"sampler('\])? must be one of"):
        call(X)


def test_the_default_is_discrete_except_for_the_papers_classical_gaussian():
    X = np.random.default_rng(0).standard_normal((300, 3))
    assert dppca.dp_loading(X, 0.5, 1e-6, random_state=0).settings["sampler"] == "discrete"
    paper = dppca.dp_loading(X, 0.5, 1e-6, mechanism="paper", random_state=0)
    assert paper.settings["sampler"] == "continuous"  # the R package's mechanism, exactly
    assert paper.sigma == 4 * math.sqrt(2 * math.log(1.25e6)) / (300 * 0.5)
    with pytest.raises(ValueError, match=r"calibration='classical'.*sampler='continuous'"):
        dppca.dp_loading(X, 0.5, 1e-6, calibration="classical", sampler="discrete")
    assert (
        dppca.DPPCA(scree=None, random_state=0)
        .fit(X)
        .privacy_ledger_.entries[0]
        .mechanism.endswith("[discrete, secure]")
    )
