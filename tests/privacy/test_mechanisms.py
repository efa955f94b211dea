"""The Gaussian mechanism object: its symmetric (vecd) release, its scale and its draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dppca.privacy.calibration import analytic_gaussian_multiplier, gdp_mu
from dppca.privacy.durfee import DurfeeQuantile
from dppca.privacy.histograms import HistogramMechanism
from dppca.privacy.mechanisms import GaussianMechanism, Noise
from dppca.privacy.quantiles import GridQuantile

DRAWS = 20000
P = 4
#: A mechanism whose scale is sigma = 0.3: sensitivity 0.3 / multiplier.
MECHANISM = GaussianMechanism(0.3 / analytic_gaussian_multiplier(1.0, 1e-6), 10, 1.0, 1e-6)
SIGMA = 0.3


@pytest.fixture(scope="module")
def noise_draws():
    noise = Noise("continuous", np.random.default_rng(42))
    zero = np.zeros((P, P))
    return np.stack([MECHANISM.randomise_symmetric(zero, noise) for _ in range(DRAWS)])


def test_scale_is_the_calibrated_multiplier_times_the_sensitivity():
    assert pytest.approx(0.3, rel=1e-12) == MECHANISM.scale
    steps = GaussianMechanism(0.5, 3, 1.0, 1e-6, compositions=9)
    assert steps.scale == pytest.approx(0.5 * 3 / gdp_mu(1.0, 1e-6), rel=1e-12)


def test_variances(noise_draws):
    """Diagonal variance sigma^2, off-diagonal sigma^2 / 2.

    A sample variance of m normal draws has relative standard deviation sqrt(2 / m) (0.01 here);
    the tolerance is five of those.
    """
    variance = noise_draws.var(axis=0)
    expected = np.full((P, P), SIGMA**2 / 2)
    np.fill_diagonal(expected, SIGMA**2)
    tolerance = 5 * math.sqrt(2 / DRAWS)
    assert np.all(np.abs(variance / expected - 1) < tolerance)
    assert np.all(np.abs(noise_draws.mean(axis=0)) < 5 * np.sqrt(expected / DRAWS))


def test_entries_uncorrelated(noise_draws):
    """Distinct upper-triangle entries are independent: |correlation| < 5 / sqrt(m)."""
    rows, cols = np.triu_indices(P)
    entries = noise_draws[:, rows, cols]
    correlation = np.corrcoef(entries, rowvar=False)
    off = correlation[~np.eye(len(rows), dtype=bool)]
    assert np.all(np.abs(off) < 5 / math.sqrt(DRAWS))


def test_frobenius_norm_is_the_vecd_norm(noise_draws):
    """E[||E||_F^2] = sigma^2 p (p + 1) / 2, the squared norm of the vecd noise vector."""
    squared = np.einsum("kij,kij->k", noise_draws, noise_draws)
    dimension = P * (P + 1) / 2
    # ||E||_F^2 / sigma^2 is chi-square with p(p+1)/2 degrees of freedom: sd sqrt(2 dim).
    tolerance = 5 * math.sqrt(2 * dimension / DRAWS)
    assert abs(squared.mean() / SIGMA**2 - dimension) < tolerance


def test_a_mechanism_refuses_a_source_of_the_other_sampler():
    with pytest.raises(ValueError, match="samples 'continuous'"):
        MECHANISM.randomise(np.zeros(3), Noise("discrete", np.random.default_rng(0)))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: GaussianMechanism(1.0, 3, 1.0, 1.5), "delta must be < 1"),
        (lambda: GaussianMechanism(1.0, 3, 0.0, 1e-6), "epsilon must be > 0"),
        (lambda: GaussianMechanism(1.0, 3, 1.0, 1e-6, calibration="Analytic"), "calibration"),
        (lambda: GaussianMechanism(1.0, 3, 1.0, 1e-6, sampler="Discrete"), "sampler"),
        (lambda: GaussianMechanism(0.0, 3, 1.0, 1e-6), "l2_sensitivity must be > 0"),
        (lambda: GaussianMechanism(1.0, 3, 1.0, 1e-6, compositions=0), "compositions"),
        (lambda: HistogramMechanism("Add", 1.0, 1e-6), "method must be one of"),
        (lambda: HistogramMechanism("sparse", 1.0, 2.0), "delta must be < 1"),
        (lambda: GridQuantile("Log", 0.5, 1.0), "grid must be one of"),
        (
            lambda: GridQuantile("linear", 0.5, 1.0).release(
                np.zeros(3), Noise("continuous", np.random.default_rng(0)), step=0.0
            ),
            "step must be a positive normal",
        ),
        (lambda: GridQuantile("log", 0.5, 1.0, sampler="Discrete"), "sampler must be one of"),
        (lambda: DurfeeQuantile(1.5, 1.0), "q must be < 1"),
        (lambda: DurfeeQuantile(0.5, 1.0, beta=1.0), "beta must be > 1"),
        (lambda: Noise("Discrete", np.random.default_rng(0)), "sampler must be one of"),
    ],
)
def test_mechanism_objects_refuse_bad_settings(build, message):
    """The mechanisms are public building blocks: none silently falls back to another setting."""
    with pytest.raises(ValueError, match=message):
        build()


def test_mechanisms_keep_the_checked_floats_whatever_type_was_passed():
    """A float32 epsilon would otherwise run the search in float32 arithmetic, a little off the
    recorded epsilon; a Fraction would break the ledger's formatting."""
    from fractions import Fraction

    search = DurfeeQuantile(np.float32(0.5), np.float32(0.3), np.float32(0.0))
    assert all(type(value) is float for value in (search.q, search.epsilon, search.lower))
    assert type(DurfeeQuantile(0.5, Fraction(1, 3)).epsilon) is float
    assert type(GridQuantile("log", 0.5, np.float32(0.3)).epsilon) is float
    gaussian = GaussianMechanism(np.float32(1.0), 3, np.float32(0.5), np.float32(1e-6))
    assert type(gaussian.epsilon) is float and type(gaussian.l2_sensitivity) is float


@pytest.mark.parametrize(
    ("grid", "step", "message"),
    [
        ("linear", None, "step must be a positive normal float"),
        ("linear", True, "step must be a positive normal float"),
        ("linear", 1e308, "step must be a positive normal float at most"),
        ("log", 1.0, "takes no step"),
    ],
)
def test_the_linear_grid_needs_a_step_and_the_log_grid_takes_none(grid, step, message):
    noise = Noise("continuous", np.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        GridQuantile(grid, 0.5, 1.0).release(np.zeros(3), noise, step=step)


def test_every_mechanism_refuses_a_source_of_the_other_sampler():
    discrete = Noise("discrete", np.random.default_rng(0))
    with pytest.raises(ValueError, match="samples 'continuous'"):
        HistogramMechanism("sparse", 1.0, 1e-6).randomise(np.array([5.0]), discrete)
    with pytest.raises(ValueError, match="samples 'continuous'"):
        DurfeeQuantile(0.5, 1.0).release(np.zeros(3), discrete)
