"""Every mechanism's privacy loss against an independent computation, one step and many, both
samplers; and the ledger of a plan of each shape, recomposed by another library. A loss that
claims too little (the square root of the number of steps dropped, say) fails here even where
the pinned releases do not move."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dppca
from dppca.privacy.calibration import zcdp_delta
from dppca.privacy.composition import composed_delta
from dppca.privacy.gaussian_budget import GaussianBudget
from dppca.privacy.mechanisms import GRID_STEPS, GaussianMechanism

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")


def _gaussian_curve(noise_multiplier: float, steps: int, epsilon: float) -> float:
    """delta(epsilon) of ``steps`` Gaussian mechanisms of sensitivity 1 and sd
    ``noise_multiplier`` composed (dp-accounting's privacy loss distribution, pessimistic on
    a grid of 1e-4)."""
    one = pld.from_gaussian_mechanism(noise_multiplier, value_discretization_interval=1e-4)
    return one.self_compose(steps).get_delta_for_epsilon(epsilon)


CONTINUOUS = [
    *(("analytic", steps, 0.5, 1e-6) for steps in (1, 3, 25)),
    *(("analytic", steps, 2.0, 1e-8) for steps in (1, 3, 25)),
    ("classical", 1, 0.5, 1e-6),  # one step, proved for epsilon < 1
]


@pytest.mark.parametrize(("calibration", "steps", "epsilon", "delta"), CONTINUOUS)
def test_a_continuous_gaussian_loss_is_the_curve_of_its_noise(calibration, steps, epsilon, delta):
    """The noise actually drawn, ``steps`` times at sd ``scale`` on sensitivity ``Delta``, has
    the privacy curve that the loss states, within dp-accounting's grid error; the curve meets
    the claim (the classical calibration with room to spare)."""
    sensitivity = 0.37
    mechanism = GaussianMechanism(
        sensitivity, 5, epsilon, delta, calibration=calibration, compositions=steps
    )
    actual = _gaussian_curve(mechanism.scale / sensitivity, steps, epsilon)
    claimed = composed_delta([mechanism.loss], epsilon)
    assert claimed == pytest.approx(actual, rel=5e-3)
    assert claimed <= delta * (1 + 1e-7)  # composed_delta rounds the curve up by 2e-8 at most
    if calibration == "analytic":
        assert claimed == pytest.approx(delta, rel=1e-6)  # the analytic calibration is exact


@pytest.mark.parametrize("steps", [1, 4, 30])
@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 1e-6), (3.0, 1e-9)])
@pytest.mark.parametrize("dimension", [1, 10])
def test_a_discrete_gaussian_loss_covers_its_grid_and_steps(steps, epsilon, delta, dimension):
    """The discrete sampler's noise, in grid steps, against the rounded statistic's sensitivity
    (``Delta / step`` plus at most one step per coordinate from rounding, derived here): each
    step is ``Delta_steps^2 / (2 sigma^2)``-zCDP (Canonne, Kamath and Steinke 2020), ``steps``
    of them add up; the loss states at least that, and converts to at most delta."""
    sensitivity = 0.37
    mechanism = GaussianMechanism(
        sensitivity, dimension, epsilon, delta, sampler="discrete", compositions=steps
    )
    grid = sensitivity / (GRID_STEPS * math.sqrt(dimension))
    sensitivity_steps = sensitivity / grid + math.sqrt(dimension)
    sigma_steps = mechanism.scale / grid
    rho = steps * sensitivity_steps**2 / (2 * sigma_steps**2)
    assert mechanism.loss.kind == "zcdp"
    assert rho <= mechanism.loss.rho <= rho * 1.002  # the library's bound is a step wider
    assert zcdp_delta(mechanism.loss.rho, epsilon) <= delta * (1 + 1e-9)


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_shares_of_a_gaussian_budget_add_up_to_its_loss(sampler):
    """Parts of one Gaussian budget at shares adding up to 1: their noise, recomputed, composes
    to the budget's loss (GDP: root of the summed squares; zCDP: the sum)."""
    budget = GaussianBudget(1.5, 1e-7, sampler, "parts")
    shares = [0.1, 0.25, 0.05, 0.6]
    parts = [budget.part(2.0, 4, share) for share in shares]
    if sampler == "continuous":
        total = math.sqrt(sum((2.0 / part.scale) ** 2 for part in parts))
        assert total == pytest.approx(budget.loss.mu, rel=1e-6)
        assert total <= budget.loss.mu
    else:
        grid = 2.0 / (GRID_STEPS * 2.0)
        steps = 2.0 / grid + 2.0
        total = sum(steps**2 / (2 * (part.scale / grid) ** 2) for part in parts)
        assert total <= budget.loss.rho <= total * 1.002


SHAPES = {
    "default": {},
    "huber scree": {"scree": "huber"},
    "sscm": {"loading": {"statistic": "sscm"}},
    "private scales": {"scale": "private"},
    "automatic radius": {"loading": {"transform": "winsorized", "radius": "auto"}},
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_plans_ledger_recomposed_by_another_library_meets_its_claim(shape):
    """The ledger of a dp_pca call of each shape (continuous noise, tight composition): its
    losses recomposed by dp-accounting's privacy loss distributions give delta at the claimed
    epsilon within the claim (up to that library's grid error)."""
    X = np.random.default_rng(0).standard_normal((6000, 4)) * [3.0, 2.0, 1.0, 0.5]
    epsilon, delta = 4.0, 1e-6
    result = dppca.dp_pca(
        X, epsilon, delta, noise={"sampler": "continuous"}, random_state=0, **SHAPES[shape]
    )
    composed = None
    coupling = 0.0
    for loss in result.privacy.losses:
        if loss.kind == "gaussian":
            part = pld.from_gaussian_mechanism(1 / loss.mu, value_discretization_interval=1e-4)
        elif loss.kind == "coupling":
            coupling += loss.delta
            continue
        else:
            from dp_accounting.pld import common

            parameters = common.DifferentialPrivacyParameters(loss.epsilon, loss.delta)
            part = pld.from_privacy_parameters(parameters, value_discretization_interval=1e-4)
        composed = part if composed is None else composed.compose(part)
    recomposed = composed.get_delta_for_epsilon(epsilon) + (1 + math.exp(epsilon)) * coupling
    assert recomposed <= delta * (1 + 5e-3)
    assert result.privacy.total.epsilon <= epsilon * (1 + 1e-12)


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_the_sparse_histograms_laplace_noise_has_the_scale_its_epsilon_needs(sampler):
    """The stability histogram's noise on a count of sensitivity 2 (L1) at epsilon: Laplace of
    scale 2 / epsilon (the discrete one's ``P(y) ∝ exp(-|y| / s)``, variance
    ``2 r / (1 - r)^2`` with ``r = exp(-1 / s)``). Its sample variance over 20,000 draws is
    within 6 standard errors of that (from the Laplace laws' fourth moment, about 6 sigma^4,
    with room); half the scale would give a quarter of the variance."""
    from dppca.privacy.histograms import stability_parameters
    from dppca.privacy.mechanisms import Noise, laplace_counts

    epsilon = 0.8
    scale, _ = stability_parameters(epsilon, 1e-6)
    assert scale == pytest.approx(2.0 / epsilon)
    noise = Noise(sampler, np.random.default_rng(4))
    draws = laplace_counts(np.zeros(20_000), scale, noise)
    if sampler == "continuous":
        variance = 2 * scale**2
    else:
        assert np.all(draws == np.round(draws))
        r = math.exp(-1 / scale)
        variance = 2 * r / (1 - r) ** 2
    standard_error = variance * math.sqrt((6.0 + 2.0) / len(draws))
    assert abs(draws.var() - variance) < 6 * standard_error
