"""Private scree: accuracy, calibrated noise, post-processing, controls and errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dppca import Accountant, Budget, BudgetExceededError, dp_scree
from dppca.numerics.monotone import antitonic, proportions
from dppca.numerics.sensitivity import float_factor, row_clip_sensitivity
from dppca.privacy.calibration import gdp_mu
from dppca.privacy.mechanisms import Noise
from dppca.releases.scree import clip_share, joint_gaussian, means_mechanism, row_shares
from pair_reference import half_squared_differences

PMWM = {"a": 0.0, "b": 400.0, "trim_const": 10, "eta": 0.001}
HUBER = {"m2_frac": 0.25}
CONTROLS = {"clipped": None, "pmwm": PMWM, "huber": HUBER}


def _gaussian(n=20000, seed=0, scales=(5.0, 3.0, 2.0, 1.0, 0.5)):
    rng = np.random.default_rng(seed)
    p = len(scales)
    rotation, _ = np.linalg.qr(rng.standard_normal((p, p)))
    X = (rng.standard_normal((n, p)) * np.array(scales)) @ rotation.T + 7.0
    return X, rotation


@pytest.mark.parametrize("method", ["pmwm", "huber"])
def test_large_epsilon_recovers_the_variances(method):
    """Within sampling error of the pair-based estimate: sd of a mean of m chi-square(1) W's is
    var * sqrt(2 / m); five of those, plus 0.5 % for winsorizing or Huber bias."""
    X, rotation = _gaussian()
    result = dp_scree(
        X,
        5,
        1e5,
        1e-6,
        method=method,
        directions=rotation,
        random_state=1,
        control=CONTROLS[method],
        non_private=True,
        on_weak="release",
    )
    truth = result.non_private.variances
    m = len(X) // 2
    tolerance = truth * (5 * math.sqrt(2 / m) + 0.005)
    assert np.all(np.abs(result.values[method] - truth) <= tolerance)


def test_large_epsilon_gives_the_row_clipped_means_and_a_small_pve_bias():
    """At epsilon 1e5 the release is the noiseless row-clipped mean (noise sd below 1e-4 of it);
    the clipping shrinks rows above 2.5 x the 0.75 quantile of the row totals, which on this
    Gaussian (PC1 holds 64 % of the variance) costs PC1 a few % of its variance and the PVE at
    most 0.02."""
    X, rotation = _gaussian()
    result = dp_scree(
        X,
        5,
        1e5,
        1e-6,
        directions=rotation,
        random_state=1,
        non_private=True,
        sampler="continuous",
        on_weak="release",
    )
    details = result.settings["clipped"]
    W = _reproduce_pairs(X, rotation, 5, 1)
    target = row_shares(W, details["clip"]).mean(axis=0) * details["clip"]
    assert np.all(details["noise_sd"] < 1e-3 * target.min())
    assert np.all(np.abs(details["raw"] - target) < 6 * details["noise_sd"])
    truth = result.non_private.variances
    assert np.all(np.abs(result.pve["clipped"] - truth / truth.sum()) < 0.02)
    assert np.all(result.values["clipped"] >= 0.85 * truth)


@pytest.mark.parametrize("scale", [1e-3, 1e3, 1e-100, 1e100])
def test_default_is_equivariant_to_the_units(scale):
    """The same seed gives the clip level times scale^2 and the same PVE, to rounding."""
    X, rotation = _gaussian(5000, seed=2)
    base = dp_scree(X, 5, 2.0, 1e-6, directions=rotation, random_state=3, on_weak="release")
    scaled = dp_scree(
        X * scale, 5, 2.0, 1e-6, directions=rotation, random_state=3, on_weak="release"
    )
    ratio = scaled.settings["clipped"]["clip"] / base.settings["clipped"]["clip"]
    assert ratio == pytest.approx(scale**2, rel=1e-9)
    assert np.allclose(scaled.values["clipped"] / scale**2, base.values["clipped"], rtol=1e-9)
    assert np.allclose(scaled.pve["clipped"], base.pve["clipped"], rtol=1e-9, atol=1e-12)


def test_joint_gaussian_noise_is_calibrated():
    """sd_l = w_l sqrt(k) / (m mu) (times the float factor); checked over 4000 draws (5 relative
    sd of a sample sd), and the release is centred on the means of the values."""
    rng = np.random.default_rng(0)
    widths, lows = np.array([1.0, 4.0, 0.5]), np.array([0.0, 2.0, -1.0])
    values = lows + rng.random((10, 3)) * widths
    mechanism, noise = means_mechanism(10, 3, 0.3, 1e-6, "continuous"), Noise("continuous", rng)
    draws = np.array(
        [joint_gaussian(values, lows, widths, mechanism, noise)[0] for _ in range(4000)]
    )
    expected = widths * math.sqrt(3) * float_factor(10) / (10 * gdp_mu(0.3, 1e-6))
    assert np.all(np.abs(draws.std(axis=0) / expected - 1) < 5 / math.sqrt(2 * 4000))
    assert np.all(np.abs(draws.mean(axis=0) - values.mean(axis=0)) < 5 * expected / 63)


def test_winsorized_means_far_from_zero_keep_their_sensitivity():
    """A narrow public band far from 0 (the means are taken relative to its low end): one pair
    moved from the low to the high end moves the released mean by its width / m, not by an ulp
    of the low end (which would swallow the noise)."""
    m, low, width = 100_000, 1e6, 2.0**-26
    values = np.full((m, 1), low)
    moved = values.copy()
    moved[0, 0] = low + width
    mechanism = means_mechanism(m, 1, 1e9, 0.5, "continuous")
    first, second = (
        joint_gaussian(
            data,
            np.array([low]),
            np.array([width]),
            mechanism,
            Noise("continuous", np.random.default_rng(0)),
        )[0]
        for data in (values, moved)
    )
    assert abs((second - first)[0] - width / m) < 1e-9 * width / m + 1e-16 * low


def _reproduce_pairs(X, directions, k, seed):
    """W of a call with random_state=seed and given directions: its first draw is the pairing."""
    return half_squared_differences(X @ directions[:, :k], np.random.default_rng(seed))


def _standardised_noise(method, control, epsilon, draws=600):
    X, rotation = _gaussian(400, seed=4, scales=(3.0, 2.0, 1.0))
    residuals = []
    for seed in range(draws):
        result = dp_scree(
            X,
            3,
            epsilon,
            1e-6,
            method=method,
            directions=rotation,
            mono=False,
            control=control,
            random_state=seed,
            sampler="continuous",
            on_weak="release",
        )
        details = result.settings[method]
        W = _reproduce_pairs(X, rotation, 3, seed)
        if method == "clipped":
            base = row_shares(W, details["clip"]).mean(axis=0) * details["clip"]
        elif method == "pmwm":
            base = np.clip(W, details["lower"], details["upper"]).mean(axis=0)
        else:  # one step from mu0 = 0 with eta0 = 1: the clipped mean gradient
            base = np.clip(W, -details["thresholds"], details["thresholds"]).mean(axis=0)
        # Equal winsorizing bounds give a constant mean, released with the floor noise of a width
        # of 2^-1000 (noise scales are always normal floats).
        noisy = details["noise_sd"] > 1e-250
        assert np.allclose(details["raw"][~noisy], base[~noisy])
        residuals.extend((details["raw"][noisy] - base[noisy]) / details["noise_sd"][noisy])
    return np.array(residuals)


# A trim's search may stop at its step limit (pmwm: 1 of the 600 seeds); the noise is calibrated
# to the trims it released, which the residuals use.
@pytest.mark.filterwarnings("ignore::dppca.exceptions.DurfeeStepLimitWarning")
@pytest.mark.parametrize(
    ("method", "control"),
    [
        ("clipped", None),
        ("pmwm", {"a": 0.0, "b": 100.0, "trim_const": 5, "eta": 0.05}),
        ("huber", {**HUBER, "T": 1}),
    ],
)
def test_small_epsilon_noise_has_the_calibrated_sd(method, control):
    """(raw - noiseless estimate) / recorded sd is standard normal: sd within 5 sample-sd."""
    residuals = _standardised_noise(method, control, epsilon=0.5)
    assert len(residuals) > 1000
    assert abs(residuals.std() - 1) < 5 / math.sqrt(2 * residuals.size)
    assert abs(residuals.mean()) < 5 / math.sqrt(residuals.size)


def test_recorded_noise_follows_the_formulas():
    X, rotation = _gaussian(1000, seed=5, scales=(3.0, 2.0, 1.0))

    def continuous(method, control):
        return dp_scree(
            X,
            3,
            0.5,
            1e-6,
            method=method,
            directions=rotation,
            random_state=0,
            control=control,
            sampler="continuous",
            on_weak="release",
        )

    clipped = continuous("clipped", {"C_clip": 30.0})
    m = 500
    expected = 30.0 * math.sqrt(2) / (m * gdp_mu(0.5, 1e-6))
    assert np.allclose(clipped.settings["clipped"]["noise_sd"], expected, rtol=1e-12)
    assert row_clip_sensitivity(m, 3) == pytest.approx(math.sqrt(2) / m, rel=1e-12)
    assert row_clip_sensitivity(m, 1) == pytest.approx(1 / m, rel=1e-12)
    assert clipped.privacy.total == Budget(0.5, 1e-6)  # public clip levels: no quantile spend
    details = continuous("pmwm", PMWM).settings["pmwm"]
    widths = details["upper"] - details["lower"]
    assert np.allclose(details["noise_sd"], widths * math.sqrt(3) / (m * gdp_mu(0.25, 1e-6)))
    details = continuous("huber", HUBER).settings["huber"]
    mu = gdp_mu(0.5 * 0.75, 1e-6)
    assert np.allclose(
        details["noise_sd"], 2 * details["thresholds"] * math.sqrt(3 * details["steps"]) / (m * mu)
    )


@pytest.mark.parametrize("method", ["clipped", "pmwm", "huber"])
def test_results_non_negative_and_with_mono_non_increasing(method):
    X, rotation = _gaussian(600, seed=6, scales=(1.0, 1.0, 1.0, 1.0))
    for seed in range(10):
        result = dp_scree(
            X,
            4,
            0.2,
            1e-6,
            method=method,
            directions=rotation,
            control=CONTROLS[method],
            random_state=seed,
            on_weak="release",
        )
        values = result.values[method]
        assert np.all(values >= 0) and np.all(np.diff(values) <= 1e-12)
        assert result.pve[method].sum() == pytest.approx(1.0) or result.pve[method].sum() == 0
        raw = dp_scree(
            X,
            4,
            0.2,
            1e-6,
            method=method,
            directions=rotation,
            mono=False,
            control=CONTROLS[method],
            random_state=seed,
            on_weak="release",
        ).values[method]
        assert np.all(raw >= 0)


def test_antitonic_is_the_least_squares_fit():
    values = np.array([3.0, 5.0, 1.0, 2.0, -1.0])
    fit = antitonic(values)
    # Pool adjacent violators by hand: (3, 5) -> 4, 4; (1, 2) -> 1.5, 1.5; -1 -> 0.
    assert np.allclose(fit, [4.0, 4.0, 1.5, 1.5, 0.0])
    assert np.array_equal(antitonic(np.array([2.0])), np.array([2.0]))
    assert np.array_equal(proportions(np.zeros(3)), np.zeros(3))
    assert np.allclose(proportions(np.array([1.0, 3.0])), [0.25, 0.75])


def test_ledger_and_accountant():
    X, rotation = _gaussian(500, seed=7)
    result = dp_scree(
        X, 5, 0.6, 1e-6, loading_epsilon=0.4, loading_delta=1e-6, random_state=0, on_weak="release"
    )
    assert result.privacy.total.isclose(Budget(1.0, 2e-6))
    assert result.privacy.total <= Budget(1.0, 2e-6)
    quantiles = [e for e in result.privacy if "clip level" in e.name]
    share = clip_share({"clip_share": "auto", "clip_level": 0.75}, 250, 0.6)
    assert quantiles[0].epsilon == pytest.approx(0.6 * share) and quantiles[0].delta == 0
    assert share == 0.5  # 250 pairs at epsilon 0.6: the most the rule gives
    accountant = Accountant(Budget(1.5, 1e-5))
    dp_scree(
        X,
        5,
        0.6,
        1e-6,
        directions=rotation,
        accountant=accountant,
        random_state=0,
        on_weak="release",
    )
    assert accountant.spent == Budget(0.6, 1e-6)
    with pytest.raises(BudgetExceededError):
        dp_scree(
            X,
            5,
            0.5,
            1e-6,
            method=("clipped", "huber"),
            control={"huber": HUBER},
            directions=rotation,
            accountant=accountant,
            on_weak="release",
        )
    assert accountant.spent == Budget(0.6, 1e-6)


def test_several_methods_each_spend_the_full_budget():
    X, rotation = _gaussian(2000, seed=8)
    result = dp_scree(
        X,
        5,
        1.0,
        1e-6,
        method=("clipped", "pmwm"),
        control={"pmwm": PMWM},
        directions=rotation,
        random_state=0,
        non_private=True,
        on_weak="release",
    )
    assert result.privacy.total.isclose(Budget(2.0, 2e-6))
    frame = result.to_frame()
    assert list(frame.columns) == ["clipped", "pmwm"] and frame.index[0] == "PC1"
    assert result.non_private.eigenvalues[0] == pytest.approx(25.0, rel=0.1)


def test_dataframe_input_and_names():
    X, rotation = _gaussian(300, seed=9)
    frame = pd.DataFrame(X, columns=list("abcde"))
    result = dp_scree(frame, 2, 1.0, 1e-6, directions=rotation, random_state=0, on_weak="release")
    assert result.feature_names == list("abcde") and result.k == 2


BAD = [
    ({"k": 0}, ValueError, "k must be an integer >= 1"),
    ({"k": 6}, ValueError, r"k must be an integer in \[1, p=5\]"),
    ({"method": "trimmed"}, ValueError, "method must be one of"),
    ({"method": "pmwm"}, ValueError, r"needs the control parameter\(s\) \['a', 'b'"),
    ({"control": {"C": 3}}, ValueError, "Unknown control parameter"),
    ({"control": {"C_clip": -1.0}}, ValueError, "C_clip must be > 0; got -1.0"),
    ({"control": {"C_clip": [1.0, 2.0]}}, TypeError, "C_clip must be a real number"),
    ({"method": "huber", "control": {"k_min_m2": -20}}, ValueError, "Unknown control param"),
    ({"control": {"C_clip": "max"}}, ValueError, "C_clip must be one of"),
    ({"control": {"clip_level": 1.5}}, ValueError, "clip_level must be < 1"),
    ({"method": "pmwm", "control": {**PMWM, "b": -1.0}}, ValueError, "b must be > 0"),
    ({"method": "pmwm", "control": {**PMWM, "eta": 0.5}}, ValueError, "eta must be < 0.5"),
    ({"method": "huber", "control": {"m2_frac": 1.0}}, ValueError, "m2_frac must be < 1"),
    ({"control": {"C_clip": 1e-320}}, ValueError, "C_clip must lie between"),
    ({"control": {"C_clip": 1e305}}, ValueError, "C_clip must lie between"),
    (
        {"method": "pmwm", "control": {**PMWM, "b": 1e300}},
        ValueError,
        "b must lie between",
    ),
    ({"method": "huber", "control": {**HUBER, "T": 0}}, ValueError, "T must be an integer >= 1"),
    ({"method": ("clipped", "pmwm"), "control": PMWM}, ValueError, "keyed by method"),
    ({"control": {"huber": HUBER}}, ValueError, "not requested"),
    ({"mono": "yes"}, TypeError, "mono must be True or False"),
    ({"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
    ({"directions": None}, ValueError, "directions=None needs loading_epsilon"),
    ({"directions": np.ones((5, 5))}, ValueError, "orthonormal"),
    ({"accountant": "budget"}, TypeError, "accountant must be a dppca.Accountant"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD)
def test_errors_before_any_noise(kwargs, error, message):
    X, rotation = _gaussian(40, seed=10)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    arguments = {
        "X": X,
        "k": 5,
        "epsilon": 1.0,
        "delta": 1e-6,
        "directions": rotation,
        "random_state": rng,
        "on_weak": "release",
        **kwargs,
    }
    with pytest.raises(error, match=message):
        dp_scree(**arguments)
    assert rng.bit_generator.state == state


def test_huber_needs_eight_rows():
    X, rotation = _gaussian(7, seed=11)
    with pytest.raises(ValueError, match="needs at least 8 rows"):
        dp_scree(
            X, 2, 1.0, 1e-6, method="huber", control=HUBER, directions=rotation, on_weak="release"
        )
