"""dp_scale: private robust scales, against the sample standard deviation and by construction."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dppca import Budget, dp_pca, dp_scale
from dppca.exceptions import NoiseDominatedWarning
from dppca.releases.scale import clipped_normal_mean, scaled


def test_clipped_normal_mean_against_numerical_integration():
    for level in (0.5, 0.9, 0.99):
        z = stats.norm.ppf((1 + level) / 2)
        exact, _ = integrate.quad(lambda t, z=z: min(abs(t), z) * stats.norm.pdf(t), -40, 40)
        assert clipped_normal_mean(level) == pytest.approx(exact, rel=1e-9)


@pytest.mark.long
def test_normal_scales_estimate_the_standard_deviation_within_their_error():
    """Over 40 samples of three normal variables in units 1, 100 and 0.01, every released scale
    lies within 5 standard errors of the sample sd. The standard error combines the sampling
    error of a mean absolute half-difference of ``m`` pairs, ``sqrt(1 - 2/pi) / sqrt(m)``
    relative to ``sqrt(2/pi)``, and the released noise sd over the normal constant."""
    rng = np.random.default_rng(3)
    n, units = 20000, np.array([1.0, 100.0, 0.01])
    sampling = math.sqrt(1 - 2 / math.pi) / math.sqrt(n // 2) / math.sqrt(2 / math.pi)
    worst = 0.0
    for seed in range(40):
        X = rng.standard_normal((n, 3)) * units
        result = dp_scale(X, 1.0, 1e-6, random_state=seed, on_weak="release")
        sd = X.std(axis=0, ddof=1)
        noise = result.settings["noise_sd"] / clipped_normal_mean(result.settings["level"]) / sd
        error = np.abs(result.scales / sd - 1) / np.hypot(sampling, noise)
        worst = max(worst, float(error.max()))
    assert worst < 5.0


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_scales_follow_the_units(sampler):
    """The same seed gives the scales times c for the data times c (c = 1e-3, 1e3), and a change
    of units of one variable changes only that variable's scale."""
    X = np.random.default_rng(0).standard_t(4, size=(3000, 3)) * [1.0, 5.0, 0.2]
    base = dp_scale(X, 2.0, 1e-6, random_state=1, sampler=sampler, on_weak="release").scales
    for c in (1e-3, 1e3):
        again = dp_scale(
            X * c, 2.0, 1e-6, random_state=1, sampler=sampler, on_weak="release"
        ).scales
        np.testing.assert_allclose(again, base * c, rtol=1e-9)
    one = X * [1.0, 1e3, 1.0]
    moved = dp_scale(one, 2.0, 1e-6, random_state=1, sampler=sampler, on_weak="release").scales
    np.testing.assert_allclose(moved, base * [1.0, 1e3, 1.0], rtol=1e-9)


def test_ledger_holds_one_quantile_per_variable_and_the_means():
    X = np.random.default_rng(1).standard_normal((2000, 4))
    result = dp_scale(X, 1.0, 1e-6, random_state=0, on_weak="release")
    entries = result.privacy.entries
    assert len(entries) == 5 and {e.component for e in entries} == {"scale"}
    assert all(e.delta == 0 for e in entries[:4]) and entries[4].delta == 1e-6
    assert entries[0].epsilon == pytest.approx(0.5 / 4)
    total = result.privacy.total
    assert total <= Budget(1.0, 1e-6) and total.isclose(Budget(1.0, 1e-6))


def test_mostly_zero_variables_get_a_positive_scale_or_are_flagged():
    """A variable that is zero in 80 % of rows (about 68 % of pairs tied, as the capital gains
    of the Adult data) gets a positive scale of its non-zero spread; one that is zero in 99 %
    of rows is flagged and given the geometric mean of the others; when every variable is
    constant, nothing is scaled."""
    rng = np.random.default_rng(2)
    n = 20000
    base = rng.standard_normal((n, 2)) * [1.0, 10.0]
    sparse = np.where(rng.random(n) < 0.2, rng.exponential(1000.0, n), 0.0)
    rare = np.where(rng.random(n) < 0.01, 500.0, 0.0)
    X = np.c_[base, sparse, rare]
    with pytest.warns(NoiseDominatedWarning, match="X4 is unreliable"):
        result = dp_scale(X, 2.0, 1e-6, random_state=0, on_weak="release")
    assert 100.0 < result.scales[2] < 2000.0
    assert result.settings["unreliable"] == ["X4"]
    assert result.scales[3] == pytest.approx(float(np.exp(np.log(result.scales[:3]).mean())))
    with pytest.warns(NoiseDominatedWarning, match="were not scaled"):
        constant = dp_scale(np.ones((1000, 2)), 2.0, 1e-6, random_state=0, on_weak="release")
    assert constant.scales.tolist() == [1.0, 1.0]


def test_small_budgets_warn_before_anything_is_spent():
    X = np.random.default_rng(0).standard_normal((400, 30))
    with pytest.warns(NoiseDominatedWarning, match="scale: clip levels"):
        dp_scale(X, 0.5, 1e-6, random_state=0, on_weak="release")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"level": 0.3}, "level must be >= 0.5"),
        ({"level": 1.0}, "level must be < 1"),
        ({"clip_share": 0.0}, "clip_share must be > 0"),
        ({"epsilon": -1.0}, "epsilon must be > 0"),
        ({"delta": 1.0}, "delta must be < 1"),
    ],
)
def test_errors_name_the_parameter(options, message):
    X = np.random.default_rng(0).standard_normal((100, 2))
    arguments = {"epsilon": 1.0, "delta": 1e-6, **options}
    epsilon, delta = arguments.pop("epsilon"), arguments.pop("delta")
    with pytest.raises(ValueError, match=message):
        dp_scale(X, epsilon, delta, **arguments)


def test_scaled_clamps_instead_of_overflowing():
    out = scaled(np.array([[1e300, -1e300]]), np.array([1e-10, 1e-10]))
    assert out.tolist() == [[1e300, -1e300]]


# --- dp_pca(scale=..., on_weak="release") ---


def _mixed_units(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((4, 2)))
    Z = rng.standard_normal((n, 4)) + rng.standard_normal((n, 2)) @ (3.0 * U.T)
    return Z, U


def test_dp_pca_with_public_scales_is_dp_pca_of_the_scaled_data():
    Z, _ = _mixed_units()
    units = np.array([1.0, 1e3, 1e-2, 5.0])
    one = dp_pca(
        Z * units,
        4.0,
        1e-6,
        scale=units,
        random_state=3,
        on_weak="release",
        noise={"sampler": "continuous"},
    )
    other = dp_pca(Z, 4.0, 1e-6, random_state=3, on_weak="release", noise={"sampler": "continuous"})
    np.testing.assert_allclose(one.directions, other.directions, atol=1e-9)
    np.testing.assert_allclose(one.scree, other.scree, rtol=1e-9)
    assert one.scales.tolist() == units.tolist() and other.scales is None
    assert one.settings["scale"] == {"kind": "public"}


def test_private_scaling_makes_the_release_free_of_each_variables_units():
    """The same seed gives the same directions and scree for the data in other units per
    variable (to 1e-9; units that are powers of ten shift the clips' logarithmic grid
    exactly), and the scale's budget is a tenth of the total in the ledger."""
    Z, _ = _mixed_units()
    units = np.array([1.0, 1e3, 1e-2, 10.0])
    base = dp_pca(
        Z,
        4.0,
        1e-6,
        scale="private",
        random_state=3,
        on_weak="release",
        noise={"sampler": "continuous"},
    )
    moved = dp_pca(
        Z * units,
        4.0,
        1e-6,
        scale="private",
        random_state=3,
        on_weak="release",
        noise={"sampler": "continuous"},
    )
    np.testing.assert_allclose(moved.directions, base.directions, atol=1e-9)
    np.testing.assert_allclose(moved.scree, base.scree, rtol=1e-9)
    np.testing.assert_allclose(moved.scales, base.scales * units, rtol=1e-9)
    assert base.budgets.scale == Budget(0.4, 1e-7) and base.budgets.loading.epsilon == 1.2
    spent = base.privacy.select("scale").total  # tight: the share times the common factor
    factor = base.settings["composition"]["factor"]
    assert factor > 1 and spent.epsilon == pytest.approx(0.4 * factor)
    basic = dp_pca(
        Z,
        4.0,
        1e-6,
        scale="private",
        random_state=3,
        on_weak="release",
        noise={"composition": "basic"},
    )
    spent = basic.privacy.select("scale").total
    assert spent.epsilon == pytest.approx(0.4) and spent.delta == pytest.approx(1e-7)
    assert base.summary().budget.index[0] == "Scale"


def test_dp_pca_scale_errors_come_before_any_noise():
    Z, _ = _mixed_units(200)
    for scale, error, message in [
        ("robust", ValueError, "scale must be one of"),
        ([1.0, 2.0], ValueError, "4 positive numbers"),
        ([1.0, 2.0, -1.0, 1.0], ValueError, "scale must be > 0"),
        ([1.0, 2.0, "a", 1.0], TypeError, "scale must be a real number"),
    ]:
        with pytest.raises(error, match=message):
            dp_pca(Z, 1.0, 1e-6, scale=scale, on_weak="release")
    with pytest.raises(ValueError, match=r"keys \['scale', 'loading', 'scree', 'score'\]"):
        dp_pca(
            Z,
            1.0,
            1e-6,
            scale="private",
            split={"loading": 0.5, "scree": 0.3, "score": 0.2},
            on_weak="release",
        )


@pytest.mark.long
def test_normal_variables_at_a_small_budget_are_rarely_flagged_or_far_off():
    """At n = 5000 with a scale budget of 0.2 (what dp_pca at total epsilon 2 gives it), the
    clip levels' level falls towards 1/2; a good release is flagged with probability about
    1 % per table, so over 50 tables of three normal variables at most 4 have a scale off by
    more than a factor 3 (expected about 1)."""
    rng = np.random.default_rng(0)
    units = np.array([1.0, 100.0, 1e4])
    far = 0
    for seed in range(50):
        X = rng.standard_normal((5000, 3)) * units
        ratio = (
            dp_scale(
                X, 0.2, 1e-6, random_state=seed, sampler="continuous", on_weak="release"
            ).scales
            / units
        )
        far += bool(np.any((ratio > 3) | (ratio < 1 / 3)))
    assert far <= 4


def test_a_clip_below_the_data_is_flagged():
    """When the clip levels cannot be located they can land far below the data (every pair
    above the clip): such variables are flagged, never given a scale of the clip's size."""
    rng = np.random.default_rng(4)
    for seed in range(20):
        X = rng.standard_normal((2000, 3))
        result = dp_scale(X, 0.2, 1e-7, random_state=seed, on_weak="release")
        reliable = [j for j in range(3) if f"X{j + 1}" not in result.settings["unreliable"]]
        assert all(1 / 3 < result.scales[j] < 3 for j in reliable)
        assert np.all(result.scales > 1e-3) and np.all(result.scales < 1e3)


def test_a_budget_whose_noise_overflows_is_refused_before_the_charge():
    from dppca import Accountant, Budget

    accountant = Accountant(Budget(1.0, 1e-6))
    X = np.array([[1e300, 1.0], [-1e300, 2.0]])
    with pytest.raises(ValueError, match="The scale's noise cannot be a normal float"):
        dp_scale(X, 1e-9, 1e-12, random_state=0, accountant=accountant, on_weak="release")
    assert accountant.spent == Budget(0.0, 0.0)


#: 20,000 rows: two variables with scales 1 and 100, and a constant one (every pair tied).
TIED = np.c_[np.random.default_rng(5).standard_normal((20000, 2)) * [1.0, 100.0], np.zeros(20000)]


def test_an_unreliable_scale_is_nan_without_consent():
    """By default a flagged variable's scale is NaN, its status says why; with
    ``on_weak="release"`` (consent) it is the geometric mean of the others."""
    with pytest.warns(NoiseDominatedWarning, match="X3 is unreliable.*released as NaN"):
        refused = dp_scale(TIED, 2.0, 1e-6, random_state=0)
    assert np.isnan(refused.scales[2]) and np.all(np.isfinite(refused.scales[:2]))
    assert refused.status.state == "lost in the noise" and not refused.status.usable
    with pytest.warns(NoiseDominatedWarning, match="geometric mean"):
        guessed = dp_scale(TIED, 2.0, 1e-6, random_state=0, on_weak="release")
    assert guessed.status.state == "guessed"
    assert guessed.scales[:2].tolist() == refused.scales[:2].tolist()  # the same seed
    assert guessed.scales[2] == pytest.approx(float(np.sqrt(guessed.scales[0] * guessed.scales[1])))


@pytest.mark.parametrize("composition", ["tight", "basic"])
@pytest.mark.parametrize("call", ["dp_pca", "DPPCA.fit"])
def test_a_pca_stops_after_an_unreliable_scale(call, composition):
    """dp_pca and DPPCA stop after the scales when one is flagged: the error holds the released
    scales and the accountant has paid for the scales alone; with consent they go on."""
    from dppca import DPPCA, Accountant, Budget, UnreliableScaleError, dp_pca

    def run(accountant, on_weak="refuse"):
        options = dict(
            scale="private",
            accountant=accountant,
            random_state=0,
            composition=composition,
            on_weak=on_weak,
        )
        if call == "dp_pca":
            composed = options.pop("composition")
            return dp_pca(TIED, 4.0, 1e-6, noise={"composition": composed}, **options)
        return DPPCA(n_components=2, epsilon=4.0, delta=1e-6, **options).fit(TIED)

    accountant = Accountant(Budget(4.0, 1e-6), composition=composition)
    with pytest.raises(
        UnreliableScaleError, match=f"{call} stopped after the private scales"
    ) as caught:
        run(accountant)
    released = caught.value.result
    assert np.isnan(released.scales[2]) and released.settings["unreliable"] == ["X3"]
    assert [entry.name for entry in accountant.ledger] == [f"{call}: private scales"]
    assert accountant.spent.isclose(released.privacy.total, rel_tol=1e-9)
    assert accountant.spent.epsilon < 4.0 / 2
    with pytest.warns(NoiseDominatedWarning, match="geometric mean"):
        run(None, on_weak="release")
