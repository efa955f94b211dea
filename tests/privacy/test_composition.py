"""Tight composition against independent computations, and the pipeline planned by it."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

import dppca
from dppca import Accountant, Budget, BudgetExceededError
from dppca.privacy.calibration import gdp_delta, gdp_mu, zcdp_delta
from dppca.privacy.composition import PrivacyLoss, composed_delta, tightest_factor

MIXTURES = [
    [PrivacyLoss("gaussian", mu=0.7), PrivacyLoss("pure", epsilon=0.1)],
    [
        PrivacyLoss("gaussian", mu=0.4),
        PrivacyLoss("gaussian", mu=0.3),
        PrivacyLoss("pure", epsilon=0.05),
        PrivacyLoss("pure", epsilon=0.05),
        PrivacyLoss("pure", epsilon=0.3),
        PrivacyLoss("approximate", epsilon=0.2, delta=1e-7),
    ],
    [PrivacyLoss("pure", epsilon=0.5)] * 6,
]


def _dp_accounting_delta(losses, epsilon, interval):
    """dp-accounting's privacy loss distributions (another implementation, pessimistic on a
    grid of ``interval``): its delta(epsilon)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    composed = None
    for loss in losses:
        if loss.kind == "gaussian":
            part = pld.from_gaussian_mechanism(1 / loss.mu, value_discretization_interval=interval)
        else:
            parameters = common.DifferentialPrivacyParameters(loss.epsilon, loss.delta)
            part = pld.from_privacy_parameters(parameters, value_discretization_interval=interval)
        composed = part if composed is None else composed.compose(part)
    return composed.get_delta_for_epsilon(epsilon)


@pytest.mark.parametrize("losses", MIXTURES, ids=["gauss+pure", "mixed", "pure"])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_composed_delta_against_dp_accountings_grids(losses, epsilon):
    """Our exact value never exceeds dp-accounting's pessimistic estimates (grids of 1e-3 and
    1e-4) by more than its rounding margin (1e-8 relative; dp-accounting is exact for pure
    parts), and the finer grid's is within 2e-3 relative of it (its discretisation error is of
    the grid's order)."""
    ours = composed_delta(losses, epsilon)
    coarse = _dp_accounting_delta(losses, epsilon, 1e-3)
    fine = _dp_accounting_delta(losses, epsilon, 1e-4)
    assert ours <= min(fine, coarse) * (1 + 2e-8) + 1e-15
    assert ours == pytest.approx(fine, rel=2e-3, abs=1e-12)


def test_gaussian_parts_compose_to_the_closed_form():
    mus = [0.3, 0.5, 0.2, 0.6]
    losses = [PrivacyLoss("gaussian", mu=mu) for mu in mus]
    total = math.sqrt(sum(mu**2 for mu in mus))
    for epsilon in (0.1, 1.0, 3.0):
        exact = gdp_delta(total, epsilon)
        assert exact <= composed_delta(losses, epsilon) <= exact * (1 + 2e-8) + 1e-300


@pytest.mark.parametrize(
    ("mu", "epsilon"), [(0.00299, 0.01376), (0.05, 0.2), (0.3, 2.5), (2.0, 6.0), (0.01, 0.03)]
)
def test_the_gaussian_divergence_is_rounded_up_against_80_digit_arithmetic(mu, epsilon):
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) cancels when mu is small; the rounded
    result stays at or above the value computed with 80 digits."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 80
    m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
    exact = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    ours = composed_delta([PrivacyLoss("gaussian", mu=mu)], epsilon)
    assert ours >= float(exact) and ours <= float(exact) * (1 + 2e-8)


def test_pure_parts_against_brute_force_enumeration():
    """Randomized responses enumerated outcome by outcome: the hockey-stick divergence of the
    product distributions."""
    epsilons = [0.2, 0.2, 0.5, 0.1, 0.7]
    for epsilon in (0.3, 1.0, 1.5):
        total = 0.0
        for signs in itertools.product((1, -1), repeat=len(epsilons)):
            p = math.prod(
                (math.exp(e) if s > 0 else 1.0) / (1 + math.exp(e))
                for s, e in zip(signs, epsilons, strict=True)
            )
            q = math.prod(
                (1.0 if s > 0 else math.exp(e)) / (1 + math.exp(e))
                for s, e in zip(signs, epsilons, strict=True)
            )
            total += max(p - math.exp(epsilon) * q, 0.0)
        ours = composed_delta([PrivacyLoss("pure", epsilon=e) for e in epsilons], epsilon)
        assert total <= ours <= total * (1 + 2e-8) + 1e-15  # rounded up by its margin


@pytest.mark.parametrize("count", [1, 2, 7, 60, 1000, 5000])
@pytest.mark.parametrize("epsilon", [1e-6, 0.1, 1.0, 6.0, 40.0])
def test_the_randomized_response_counts_match_the_binomial_in_50_digits(count, epsilon):
    import mpmath

    from dppca.privacy.composition import _binomial_pmf

    ours = _binomial_pmf(count, epsilon)
    with mpmath.workdps(50):
        p, q = 1 / (1 + mpmath.exp(-epsilon)), 1 / (1 + mpmath.exp(epsilon))
        expected = np.array(
            [float(mpmath.binomial(count, k) * p**k * q ** (count - k)) for k in range(count + 1)]
        )
    relevant = expected > 1e-290  # below, both are lost to underflow
    # Three log-gamma terms of size count * log(count), each off by a few of their ulps.
    tolerance = 1e-15 * count * math.log(count + 1) + 1e-14
    assert np.allclose(ours[relevant], expected[relevant], rtol=tolerance, atol=0)
    assert np.all(ours[~relevant] < 1e-280)


def test_zcdp_parts_and_the_choice_of_pure_parts_to_join():
    rho = [PrivacyLoss("zcdp", rho=0.05), PrivacyLoss("zcdp", rho=0.02)]
    assert composed_delta(rho, 1.0) == pytest.approx(zcdp_delta(0.07, 1.0), rel=2e-8)
    big = [*rho, PrivacyLoss("pure", epsilon=0.8)]  # better added than converted
    added = zcdp_delta(0.07, 1.0 - 0.8)
    converted = zcdp_delta(0.07 + 0.8**2 / 2, 1.0)
    assert composed_delta(big, 1.0) == pytest.approx(min(added, converted), rel=2e-8)


@pytest.mark.parametrize(
    ("epsilon", "delta", "expected"), [(4.0, 1e-7, 0.604), (1.0, 1e-6, 0.587), (0.5, 1e-6, 0.582)]
)
def test_three_equal_gaussian_parts_need_about_40_percent_less_noise(epsilon, delta, expected):
    """Three Gaussian releases planned on thirds of (epsilon, delta) against the same three
    composed exactly: the noise ratio is mu_basic / mu_tight, here found by the factor search
    on planned (continuous) mechanisms and compared with the closed form."""
    from dppca.privacy.mechanisms import GaussianMechanism

    def losses_at(factor):
        return [GaussianMechanism(1.0, 1, factor * epsilon / 3, delta / 3).loss for _ in range(3)]

    factor = tightest_factor(losses_at, epsilon, delta)
    basic = GaussianMechanism(1.0, 1, epsilon / 3, delta / 3).scale
    tight = GaussianMechanism(1.0, 1, factor * epsilon / 3, delta / 3).scale
    closed = gdp_mu(epsilon / 3, delta / 3) / (gdp_mu(epsilon, delta) / math.sqrt(3))
    # The search stops within 1e-4 of the largest factor, on the safe side (more noise).
    assert closed <= tight / basic <= closed * (1 + 2e-4)
    assert tight / basic == pytest.approx(expected, abs=1e-3)


def _configurations():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4000, 4)) * [3, 2, 1, 0.5]
    labels = rng.choice(["a", "b"], size=4000)
    V = np.eye(4)
    return X, [
        {},
        {"noise": {"sampler": "continuous"}},
        {"score": "sparse"},
        {"score": "add", "noise": {"sampler": "continuous"}},
        {"groups": labels},
        {"scree": "huber"},
        {"scree": {"method": "pmwm", "control": {"a": 0, "b": 50, "trim_const": 5, "eta": 0.01}}},
        {"loading": {"transform": "winsorized", "radius": "auto"}},
        {"scale": "private"},
        {"directions": V, "noise": {"sampler": "continuous"}},
    ]


def _held(value):
    """The mechanisms a plan holds, found by walking its fields, mappings and sequences (an
    object whose ``loss`` is a PrivacyLoss is a mechanism): independent of what it declares."""
    from dataclasses import fields, is_dataclass

    if isinstance(getattr(value, "loss", None), PrivacyLoss):
        return [value]
    if isinstance(value, dict) or hasattr(value, "keys"):
        return [m for item in value.values() for m in _held(item)]
    if isinstance(value, list | tuple):
        return [m for item in value for m in _held(item)]
    if is_dataclass(value) and not isinstance(value, type):
        return [m for field in fields(value) for m in _held(getattr(value, field.name))]
    return []


@pytest.mark.parametrize(
    "settings", _configurations()[1] + [{"score": {"frame": ((-9, 9), (-9, 9))}}]
)
def test_every_plan_declares_every_mechanism_it_holds(settings):
    """Composition reads what the plans declare; a mechanism a plan holds but does not declare
    would leave the composition, so each plan of every kind of call is walked and compared."""
    from dppca import plan_pca
    from dppca.privacy.composition import plan_mechanisms

    settings = {key: value for key, value in settings.items() if key != "groups"}
    planned = plan_pca((4000, 4), 3.0, 1e-6, **settings)
    plans = planned.planner(planned.factor)
    declared = plan_mechanisms(plans)
    assert Counter(map(id, declared)) == Counter(map(id, _held(plans)))
    assert len(declared) >= 3


@pytest.mark.long
def test_the_planned_losses_are_the_recorded_ones_and_the_total_holds():
    """For every kind of release dp_pca makes: the losses it charged (from the plans, in one
    charge or, with private scales, stage by stage) are exactly those of the ledger's entries
    (as multisets), and the ledger's composed total lies within the requested (epsilon, delta),
    close to it."""
    from dppca import orchestrator
    from dppca.privacy.composition import plan_losses

    X, configurations = _configurations()
    seen = []
    original = orchestrator.plan_losses

    def spy(*plans):
        found = original(*plans)
        seen.append(found)
        return found

    for settings in configurations:
        seen.clear()
        orchestrator.plan_losses = spy
        try:
            result = dppca.dp_pca(X, 3.0, 1e-6, random_state=0, **settings)
        finally:
            orchestrator.plan_losses = original
        recorded = [loss for entry in result.privacy.entries for loss in entry.privacy_losses]
        charged = [loss for losses in seen for loss in losses]
        assert Counter(charged) == Counter(recorded), settings
        total = result.privacy.total
        assert total.epsilon == 3.0 and total.delta <= 1e-6, settings
        factor = result.settings["composition"]["factor"]
        if factor > 1:
            assert total.delta > 0.99e-6, settings
        assert plan_losses  # the walker is the orchestrator's


def test_a_tight_accountant_reports_mu_the_curve_and_refuses_an_excess():
    accountant = Accountant(Budget(1.0, 1e-2))
    gaussian = PrivacyLoss("gaussian", mu=0.2)
    for _ in range(4):  # 0.4-GDP together: delta 0.0013 at epsilon 1
        accountant.spend(Budget(1.0, 1e-2), losses=[gaussian])
    assert accountant.mu == pytest.approx(0.4)
    epsilons = [0.5, 1.0, 2.0]
    exact = np.array([gdp_delta(0.4, e) for e in epsilons])
    curve = accountant.delta_curve(epsilons)  # rounded up by at most 1e-12 relative
    assert np.all(curve >= exact) and np.all(curve <= exact * (1 + 2e-8))
    assert accountant.spent.delta == pytest.approx(gdp_delta(0.4, 1.0), rel=2e-8)
    with pytest.raises(BudgetExceededError, match="tight composition"):
        accountant.spend(Budget(1.0, 1e-2), losses=[PrivacyLoss("gaussian", mu=2.0)])
    assert len(accountant.ledger) == 4
    with pytest.raises(ValueError, match='remaining is defined for composition="basic"'):
        _ = accountant.remaining


def test_tight_calls_share_a_tight_accountant():
    """Two tight dp_pca calls at (2, 1e-6) each fit a tight accountant of (3, 1e-5) that
    basic composition would refuse for the second... and a third is refused before any noise."""
    X, _ = _configurations()
    accountant = Accountant(Budget(3.0, 1e-5))
    dppca.dp_pca(
        X, 2.0, 1e-6, random_state=0, accountant=accountant, noise={"sampler": "continuous"}
    )
    dppca.dp_pca(
        X, 2.0, 1e-6, random_state=1, accountant=accountant, noise={"sampler": "continuous"}
    )
    assert accountant.spent.epsilon == 3.0 and accountant.spent.delta <= 1e-5
    with pytest.raises(BudgetExceededError):
        dppca.dp_pca(
            X, 2.0, 1e-6, random_state=2, accountant=accountant, noise={"sampler": "continuous"}
        )
    assert len(accountant.ledger) == 2


def test_a_continuous_pipeline_reports_its_gaussian_parameter_and_curve():
    """A dp_pca release whose parts are all continuous Gaussian mechanisms (given directions,
    public... here: the ledger of its Gaussian entries) reports mu = sqrt(sum mu_i^2) and the
    closed-form GDP curve; the JSON form keeps every loss and the composed total."""
    X, _ = _configurations()
    result = dppca.dp_pca(X, 3.0, 1e-6, random_state=0, noise={"sampler": "continuous"})
    gaussian = [e for e in result.privacy if e.losses and e.losses[0].kind == "gaussian"]
    assert {e.component for e in gaussian} == {"loading", "scree", "score.histogram"}
    assert result.privacy.mu is None  # the quantiles are pure-epsilon releases
    again = dppca.DPPCAResult.from_json(result.to_json())
    assert [e.losses for e in again.privacy] == [e.losses for e in result.privacy]
    assert again.privacy.total == result.privacy.total
    assert again.privacy.composition == "tight"
    part = dppca.PrivacyLedger(gaussian, composition="tight", target_epsilon=3.0)
    mu = math.sqrt(sum(e.losses[0].mu ** 2 for e in gaussian))
    assert part.mu == pytest.approx(mu, rel=1e-15)
    epsilons = [0.5, 1.0, 3.0]
    exact = np.array([gdp_delta(mu, e) for e in epsilons])
    curve = part.delta_curve(epsilons)
    assert np.all(curve >= exact) and np.all(curve <= exact * (1 + 2e-8))


def test_an_export_of_the_previous_version_reads_as_basic_composition():
    X, _ = _configurations()
    data = dppca.dp_pca(X, 3.0, 1e-6, random_state=0, noise={"composition": "basic"}).to_dict()
    data["version"] = 5
    del data["composition"], data["privacy_total"]
    for entry in data["privacy"]:
        del entry["losses"]
    old = dppca.DPPCAResult.from_dict(data)
    assert old.privacy.composition == "basic"
    assert old.privacy.total.isclose(Budget(3.0, 1e-6))


def test_tight_composition_refuses_the_classical_calibration():
    """The classical formula is a guarantee only for epsilon < 1: a tight plan, which gives
    each release more epsilon, cannot rest on it. None means basic with it."""
    X, _ = _configurations()
    with pytest.raises(ValueError, match="composition='tight' needs calibration='analytic'"):
        dppca.dp_pca(
            X, 3.0, 1e-6, random_state=0, noise={"calibration": "classical", "composition": "tight"}
        )
    with pytest.raises(ValueError, match="composition='tight' needs calibration='analytic'"):
        dppca.DPPCA(2, calibration="classical", composition="tight").fit(X)
    result = dppca.dp_pca(
        X, 2.4, 1e-6, random_state=0, noise={"calibration": "classical"}
    )  # 0.8 per part: the classical range
    assert result.settings["composition"] == {"rule": "basic", "factor": 1.0}


def test_plot_captions_state_what_each_part_spent():
    """Under tight composition a part spends more than its share: the captions read the
    ledger, not the split."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, _ = _configurations()
    result = dppca.dp_pca(X, 3.0, 1e-6, random_state=0)
    scree = result.privacy.select("scree").total
    score = result.privacy.select("score.frame", "score.histogram").total
    assert scree.epsilon > 1.0 * 1.2  # more than the share of a third
    titles = {kind: result.plot(kind).ax_.get_title() for kind in ("scree", "score")}
    plt.close("all")
    assert f"ε={scree.epsilon:.3g}, δ={scree.delta:.2g}" in titles["scree"]
    assert f"ε={score.epsilon:.3g}, δ={score.delta:.2g}" in titles["score"]


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"kind": "gausian", "mu": 50.0}, ValueError, "kind must be one of"),
        ({"kind": "gaussian", "mu": float("nan")}, ValueError, "mu must be finite"),
        ({"kind": "gaussian"}, ValueError, "needs mu > 0"),
        ({"kind": "zcdp", "rho": -1.0}, ValueError, "rho must be >= 0"),
        ({"kind": "approximate", "epsilon": 1.0, "delta": 1.0}, ValueError, "delta must be < 1"),
        ({"kind": "pure", "epsilon": "1"}, TypeError, "epsilon must be a real number"),
    ],
)
def test_a_privacy_loss_is_checked(arguments, error, message):
    """A mistyped or impossible loss would compose to no cost at all: it is refused."""
    with pytest.raises(error, match=message):
        PrivacyLoss(**arguments)


def test_composition_is_checked_on_every_entry_point():
    X, _ = _configurations()
    with pytest.raises(TypeError, match=r"composition must be one of \['tight', 'basic'\]"):
        Accountant(Budget(1.0, 1e-6), composition=3)
    assert Accountant(Budget(1.0, 1e-6)).composition == "tight"
    with pytest.raises(ValueError, match="composition must be one of"):
        dppca.dp_score(X, 1.0, 1e-6, bins=5, directions=np.eye(4), composition="exact")
    control = {"C_clip": 3.0}
    with pytest.raises(ValueError, match="composition='tight' needs calibration='analytic'"):
        dppca.dp_pca(
            X,
            1.0,
            1e-6,
            noise={"mechanism": "paper", "composition": "tight"},
            scree={"control": control},
        )


def test_a_tight_ledger_whose_deltas_add_past_one_still_has_a_total():
    """Tight totals compose the losses; the entries' own deltas may add up past 1."""
    ledger = dppca.PrivacyLedger(composition="tight", target_epsilon=1.0)
    loss = (PrivacyLoss("gaussian", mu=1e-3),)
    for j in range(3):
        ledger.record(f"part {j}", "Gaussian", Budget(1.0, 0.5), "loading", loss)
    total = ledger.total
    assert total.epsilon == 1.0 and total.delta == composed_delta(list(loss) * 3, 1.0)
