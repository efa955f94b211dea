"""Competitor methods: accuracy with a huge epsilon, calibration, errors."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from dppca.baselines import (
    SpikedModel,
    analyze_gauss,
    diffprivlib_pca,
    nsggd,
    opendp_pca,
    projector_pca,
    projector_sensitivity,
    sgpca,
    sin_theta,
    sklearn_pca,
    spiked_model_bounds,
    spiked_model_rate_sensitivity,
)
from dppca.privacy.calibration import analytic_gaussian_multiplier, gdp_mu
from dppca.privacy.mechanisms import Noise


def _spiked(n=4000, d=8, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((d, 2)))
    Z = rng.standard_normal((n, d)) + rng.standard_normal((n, 2)) @ (np.sqrt(20.0) * U.T)
    return Z, U


def test_sin_theta():
    e = np.eye(3)
    assert sin_theta(e[:, :2], e[:, :2]) == pytest.approx(0.0, abs=1e-12)
    assert sin_theta(e[:, :1], e[:, 1:2]) == pytest.approx(1.0)
    tilted = np.array([[math.cos(0.3)], [math.sin(0.3)], [0.0]])
    assert sin_theta(e[:, :1], tilted) == pytest.approx(math.sin(0.3))


@pytest.mark.parametrize(
    "method",
    [
        lambda X: analyze_gauss(X, 2, 1e6, 1e-6, clip=30.0, random_state=0).components,
        lambda X: nsggd(X, 2, 1e6, 1e-6, steps=200, random_state=0).components,
        lambda X: analyze_gauss(X + 5.0, 2, 1e6, 1e-6, center="private", random_state=0).components,
        lambda X: nsggd(X + 5.0, 2, 1e6, 1e-6, center="private", random_state=0).components,
        lambda X: nsggd(X, 2, 1e6, 1e-6, step="normalised", steps=200, random_state=0).components,
        lambda X: (
            projector_pca(
                X, 2, 1e6, 1e-6, truncation=30.0, eigengap=10.0, random_state=0
            ).components
        ),
        lambda X: (
            sgpca(X, 2, 1e6, 1e-6, model=SpikedModel((20.0, 20.0)), random_state=0).components
        ),
        lambda X: (
            sgpca(
                X, 2, 1e6, 1e-6, model=SpikedModel((20.0, 20.0)), bounds="rate", random_state=0
            ).components
        ),
        lambda X: sklearn_pca(X, 2),
    ],
)
def test_huge_epsilon_recovers_the_spike(method):
    X, U = _spiked()
    assert sin_theta(method(X), U) < 0.1


def test_noise_scales_follow_their_calibrations():
    X, _ = _spiked(1000)
    ag = analyze_gauss(X, 2, 1.0, 1e-6, clip=5.0, random_state=0)
    assert ag.sigma == pytest.approx(math.sqrt(2) * analytic_gaussian_multiplier(1.0, 1e-6))
    walk = nsggd(X, 2, 1.0, 1e-6, steps=25, random_state=0)
    assert walk.sigma == pytest.approx(2 * math.sqrt(25) / (1000 * gdp_mu(1.0, 1e-6)))
    projector = projector_pca(X, 2, 1.0, 1e-6, truncation=5.0, eigengap=4.0, random_state=0)
    shift = 2 * 25.0 / 1000  # the gap can close by 2 T^2 / n along the path
    sensitivity = math.log(4.0 / (4.0 - shift)) / math.sqrt(2)
    assert projector.sigma == pytest.approx(sensitivity * analytic_gaussian_multiplier(1.0, 1e-6))
    for result, epsilon in ((ag, 1.0), (walk, 1.0), (projector, 1.0)):
        assert result.privacy.total.epsilon == epsilon


def test_ag_noise_is_symmetric_with_sigma_on_the_diagonal_and_sigma_over_root_2_off_it(
    monkeypatch,
):
    """The matrix AG releases, captured before its eigenvectors: on all-zero rows it is the
    noise alone, whose sd must be sigma on the diagonal and sigma / sqrt(2) off it (the ``vecd``
    release, as g-DPPCA's), with sigma = sqrt(2) times the analytic multiplier."""
    captured = []

    def capture(matrix):
        captured.append(matrix)
        return np.linalg.eigh(matrix)

    monkeypatch.setattr("dppca.baselines.second_moment.descending_eigh", capture)
    X = np.zeros((50, 3))
    draws = 20000
    rng = np.random.default_rng(0)
    for _ in range(draws):
        analyze_gauss(X, 1, 1.0, 1e-6, clip=1.0, random_state=rng)
    noise = np.array(captured)
    sigma = math.sqrt(2) * analytic_gaussian_multiplier(1.0, 1e-6)
    assert np.array_equal(noise, noise.transpose(0, 2, 1))
    sd = noise.std(axis=0) / sigma
    expected = np.where(np.eye(3, dtype=bool), 1.0, 1.0 / math.sqrt(2))
    # the sd of a sample sd is about sd / sqrt(2 draws): five of those
    assert np.all(np.abs(sd / expected - 1) < 5 / math.sqrt(2 * draws))


@pytest.mark.parametrize("shift", [0.0, 1e3, -1e6])
@pytest.mark.parametrize("units", [1e-3, 1.0, 1e3])
def test_ag_with_its_private_centre_finds_the_spike_at_any_units_and_location(shift, units):
    X, U = _spiked(4000, 8, seed=3)
    fit = analyze_gauss(X * units + shift, 2, 4.0, 1e-6, center="private", random_state=1)
    assert sin_theta(fit.components, U) < 0.25
    uncentred = analyze_gauss(X * units + shift, 2, 4.0, 1e-6, random_state=1)
    if abs(shift) > 100 * units:  # far from the origin, the uncentred matrix is the mean's
        assert sin_theta(uncentred.components, U) > 0.5


def test_ag_clipped_at_the_centres_scale_spends_nothing_more_and_finds_the_spike():
    X, U = _spiked(4000, 8, seed=5)
    t3 = X / np.sqrt(np.random.default_rng(0).chisquare(3, size=(4000, 1)) / 3)
    fit = analyze_gauss(t3 + 300.0, 2, 4.0, 1e-6, clip="scale", center="private", random_state=1)
    assert sin_theta(fit.components, U) < 0.25
    assert len(fit.privacy) == 4  # two medians, the thresholds' reserve, steps and matrix
    assert fit.privacy.total.epsilon == pytest.approx(4.0)
    assert fit.settings["clip_norm"] < np.median(np.linalg.norm(t3, axis=1))
    assert fit.settings["centre_reached"]
    with pytest.raises(
        ValueError, match=r'clip="scale" .* needs center="private"; got center=None'
    ):
        analyze_gauss(X, 2, 4.0, 1e-6, clip="scale")


@pytest.mark.parametrize(
    ("units", "clip", "center"),
    [
        (1e-170, "scale", "private"),
        (1e-170, "private", "private"),
        (1e-170, 1e-170, None),
        (1e20, 5e-301, None),
        (1e300, 1.0, None),
    ],
)
def test_ag_rows_stay_in_the_unit_ball_at_any_scale(monkeypatch, units, clip, center):
    """Found in review: norms that underflowed (entries below 1e-162) left rows unclipped, and a
    clip divided into a subnormal quotient let a row reach norm 2: the matrix whose noise is
    calibrated to rows in the unit ball then moved by up to 8e260 in trace per row."""
    from dppca.privacy.gaussian_budget import GaussianPart
    from dppca.privacy.mechanisms import GaussianMechanism

    seen = []
    for owner in (GaussianPart, GaussianMechanism):
        original = owner.randomise_symmetric

        def capture(self, matrix, noise, original=original):
            seen.append(matrix)
            return original(self, matrix, noise)

        monkeypatch.setattr(owner, "randomise_symmetric", capture)
    X, _ = _spiked(2000, 5, seed=6)
    analyze_gauss(X * units, 2, 2.0, 1e-6, clip=clip, center=center, random_state=0)
    assert np.trace(seen[-1]) <= 2000 * (1 + 1e-12)


def test_ag_with_its_private_centre_spends_exactly_its_budget():
    """The pure parts (two medians of the centre, the clip) add their epsilon; the centre's
    steps and the matrix share one Gaussian budget, whose multipliers, recomputed from the noise
    they drew, compose to the mu of the rest."""
    X, _ = _spiked(3000, 6, seed=4)
    epsilon, delta = 2.0, 1e-7
    fit = analyze_gauss(X + 50.0, 2, epsilon, delta, center="private", random_state=2)
    entries = fit.privacy.to_frame()
    pure = entries[entries["delta"] == 0]["epsilon"].sum()
    assert len(entries) == 5 and fit.privacy.total.epsilon == pytest.approx(epsilon)
    assert fit.privacy.total.delta == pytest.approx(delta)
    assert (entries["delta"] > 0).sum() == 2  # the Gaussian budget and the thresholds' reserve
    gaussian = entries[entries["epsilon"] > 0]["epsilon"].sum() - pure
    assert pure + gaussian == pytest.approx(epsilon)
    assert math.sqrt(2) / fit.sigma < gdp_mu(gaussian, delta)
    # Found in review: the coarse location's thresholds must be planned at AG's whole epsilon
    # (the clip's included), or the tight composition of its own ledger exceeded the claim.
    from dppca.privacy.composition import composed_delta

    for total in (1.0, 40.0):
        big = analyze_gauss(X + 50.0, 2, total, delta, center="private", random_state=2)
        assert composed_delta(big.privacy.losses, total) <= delta


def test_clipping_bounds_the_rows():
    X = np.array([[100.0, 0.0], [0.0, 0.5], [3.0, 4.0]])
    result = analyze_gauss(X, 1, 1e9, 1e-6, clip=1.0, random_state=0)
    # Rows are clipped to norm 1 then scaled to the unit ball: the top direction is e1 or e2.
    assert np.max(np.abs(result.components[:, 0])) > 0.7


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda X: analyze_gauss(X, 2, 1.0, 1e-6, clip=-1.0), ValueError, "clip must be > 0"),
        (lambda X: analyze_gauss(X, 2, 1.0, 1e-6, clip="auto"), ValueError, "clip must be one"),
        (lambda X: nsggd(X, 2, 1.0, 1e-6, center="mean"), ValueError, "center must be one"),
        (lambda X: nsggd(X, 2, 1.0, 1e-6, step="adam"), ValueError, "step must be one"),
        (lambda X: analyze_gauss(X, 9, 1.0, 1e-6, clip=1.0), ValueError, "k must be"),
        (lambda X: nsggd(X, 2, 0.0, 1e-6), ValueError, "epsilon must be > 0"),
        (lambda X: nsggd(X, 2, 1.0, 1e-6, steps=0), ValueError, "steps must be"),
        (
            lambda X: projector_pca(X, 2, 1.0, 2.0, truncation=1.0, eigengap=1.0),
            ValueError,
            "delta must be < 1",
        ),
        (
            lambda X: projector_pca(X, 2, 1.0, 1e-6, truncation=1.0, eigengap=0.0),
            ValueError,
            "eigengap must be > 0",
        ),
        (
            lambda X: projector_pca(X, 2, 1.0, 1e-6, truncation=5.0, eigengap=1.0),
            ValueError,
            r"eigengap must exceed 2 truncation\^2 / n = 1",
        ),
        (lambda X: sgpca(X, 2, 1.0, 1e-6, model=(20.0, 20.0)), TypeError, "SpikedModel"),
        (
            lambda X: sgpca(X, 2, 1.0, 1e-6, model=SpikedModel((20.0, 20.0)), bounds="tight"),
            ValueError,
            "bounds must be one of",
        ),
        (
            lambda X: sgpca(X, 2, 1.0, 1e-6, model=SpikedModel((20.0,))),
            ValueError,
            "k=2 spikes; got 1",
        ),
        (
            lambda X: sgpca(X, 2, 1.0, 1e-6, model=SpikedModel((5.0, 20.0))),
            ValueError,
            "decreasing order",
        ),
        (
            lambda X: sgpca(X, 2, 1.0, 1e-6, model=SpikedModel((20.0, -1.0))),
            ValueError,
            "model.spikes must be > 0",
        ),
        (
            lambda X: sgpca(X, 2, 1.0, 1e-6, model=SpikedModel((20.0, 2.0))),
            ValueError,
            "no eigen-gap to protect",
        ),
        (
            lambda X: sgpca(X, 8, 1.0, 1e-6, model=SpikedModel((9.0,) * 8)),
            ValueError,
            "k must be below p=8",
        ),
        (
            lambda X: analyze_gauss(X[:, :1].ravel(), 1, 1.0, 1e-6, clip=1.0),
            ValueError,
            "X must be 2-D",
        ),
    ],
)
def test_errors(call, error, message):
    X, _ = _spiked(50)
    with pytest.raises(error, match=message):
        call(X)


@pytest.mark.skipif(
    importlib.util.find_spec("diffprivlib") is None,
    reason="diffprivlib is installed only in the benchmark environment",
)
def test_diffprivlib_adapter_does_not_modify_input():
    X, _ = _spiked(2000)
    before = X.copy()
    components = diffprivlib_pca(X, 2, 1e4, data_norm=40.0, bounds=(-40.0, 40.0))
    assert np.array_equal(X, before) and components.shape == (8, 2)


@pytest.mark.skipif(
    importlib.util.find_spec("opendp") is None,
    reason="opendp is installed only in the benchmark environment",
)
def test_opendp_adapter():
    X, _ = _spiked(500)
    assert opendp_pca(X, 2, 10.0, row_norm=40.0).shape == (8, 2)


def test_tuned_noise_scales_follow_their_calibrations_and_the_ledger_adds_up():
    """A private clip takes 10 % of epsilon; the centre's two medians take their shares of the
    rest (at n = 1000, 1.5 times what locates a log-grid median of n / 2 and n / 4 values); the
    matrix gets what the centre's steps leave of the Gaussian budget; the ledger's parts add up
    to the whole budget. Without a centre, the matrix gets 90 % of epsilon."""
    from dppca.privacy.modes import COUPLING_SHARE
    from dppca.privacy.quantiles import locating_reach
    from dppca.releases.loading.schedule import centre_share

    X, _ = _spiked(1000)
    tuned = analyze_gauss(X, 2, 1.0, 1e-6, center="private", random_state=0)
    medians = 1.5 * locating_reach(1.0, "log") * (1 / 499 + 1 / 249)
    mu = gdp_mu(0.9 - medians, 1e-6 * (1 - COUPLING_SHARE))  # the rest: the thresholds' reserve
    share = centre_share(1000, 8, mu)
    assert 0.02 <= share <= 0.3
    travelled = tuned.settings["travel_share"]
    matrix_share = 1 - share - travelled
    assert tuned.sigma == pytest.approx(math.sqrt(2) / (mu * math.sqrt(matrix_share)), rel=1e-9)
    within = analyze_gauss(X, 2, 1.0, 1e-6, center="private", travel=False, random_state=0)
    assert within.settings["travel_share"] == 0.0 <= travelled
    assert within.sigma == pytest.approx(math.sqrt(2) / (mu * math.sqrt(1 - share)), rel=1e-9)
    assert tuned.privacy.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert tuned.privacy.total.delta == pytest.approx(1e-6, rel=1e-12)
    assert len(tuned.privacy) == 1 + 2 + 1 + 1  # clip, medians, reserve, steps and matrix
    plain = analyze_gauss(X, 2, 1.0, 1e-6, random_state=0)
    assert plain.sigma == pytest.approx(math.sqrt(2) * analytic_gaussian_multiplier(0.9, 1e-6))
    walk = nsggd(X, 2, 1.0, 1e-6, steps=20, center="private", random_state=0)
    assert walk.sigma == pytest.approx(2 * math.sqrt(20) / (1000 * gdp_mu(0.5, 1e-6)))
    assert walk.privacy.total.epsilon == pytest.approx(1.0, rel=1e-12)


@pytest.mark.long
def test_fairly_tuned_baselines_are_close_to_g_dppca_on_centred_gaussian_data():
    """The comparison is not rigged: at d = 10, n = 2000, epsilon = 1 (a spiked Gaussian with
    two spikes of 10, centred), AG with a private clip and NSGGD with its authors' shrinking
    step are within 0.03 of g-DPPCA's mean sin Theta over 20 repetitions."""
    from dppca import dp_loading

    errors: dict[str, list[float]] = {"ours": [], "AG": [], "NSGGD": []}
    for seed in range(20):
        rng = np.random.default_rng(seed)
        U, _ = np.linalg.qr(rng.standard_normal((10, 2)))
        X = rng.standard_normal((2000, 10)) + rng.standard_normal((2000, 2)) * math.sqrt(10) @ U.T
        delta = 1 / 2000**2
        ours = dp_loading(X, 1.0, delta, random_state=seed, sampler="continuous")
        errors["ours"].append(sin_theta(ours.directions[:, :2], U))
        errors["AG"].append(
            sin_theta(analyze_gauss(X, 2, 1.0, delta, random_state=seed).components, U)
        )
        errors["NSGGD"].append(sin_theta(nsggd(X, 2, 1.0, delta, random_state=seed).components, U))
    means = {name: float(np.mean(values)) for name, values in errors.items()}
    assert abs(means["AG"] - means["ours"]) < 0.03, means
    assert abs(means["NSGGD"] - means["ours"]) < 0.03, means


def test_projector_sensitivity_bounds_the_projector_change_under_replacement():
    """The sensitivity against exact eigendecompositions: over random replacements and rows at
    the truncation norm along eigenvectors, the projector moves by at most the stated
    sensitivity for the sample's own gap, and the worst pair (``T (u_k +- w) / sqrt 2``, ``w``
    the next eigenvector) comes within 10 % of it (the constant is tight)."""
    rng = np.random.default_rng(4)
    n, d, k, T = 400, 6, 2, 3.0
    U, _ = np.linalg.qr(rng.standard_normal((d, k)))
    X = rng.standard_normal((n, d)) * 0.3 + rng.standard_normal((n, k)) * 1.5 @ U.T
    X *= np.minimum(1.0, T / np.linalg.norm(X, axis=1))[:, None]

    def projector_and_gap(data):
        values, vectors = np.linalg.eigh(data.T @ data / n)
        return vectors[:, -k:] @ vectors[:, -k:].T, values[-k] - values[-k - 1], vectors

    P, gap, vectors = projector_and_gap(X)
    bound = math.log(gap / (gap - 2 * T**2 / n)) / math.sqrt(2)  # of sqrt 2 T^2 / (n g_t)
    assert projector_sensitivity(T**2, n, gap) == pytest.approx(bound, rel=1e-12)
    ratios = []
    for trial in range(200):
        moved = X.copy()
        new = vectors[:, rng.integers(d)] if trial % 2 else rng.standard_normal(d)
        moved[rng.integers(n)] = T * new / np.linalg.norm(new)
        ratios.append(np.linalg.norm(projector_and_gap(moved)[0] - P) / bound)
    assert max(ratios) <= 1.0
    start, end = X.copy(), X.copy()
    start[0] = T * (vectors[:, -k] + vectors[:, -k - 1]) / math.sqrt(2)
    end[0] = T * (vectors[:, -k] - vectors[:, -k - 1]) / math.sqrt(2)
    P_start, gap_start, _ = projector_and_gap(start)
    worst = np.linalg.norm(projector_and_gap(end)[0] - P_start)
    assert 0.9 < worst / projector_sensitivity(T**2, n, gap_start) <= 1.0


def test_spiked_model_bounds_hold_on_model_samples():
    """The row bound and the eigen-gap bound at failure 0.2 hold on each of 200 model samples
    (together they fail with probability at most 0.2 per sample, in practice far less), and
    the gap bound lies below the population gap lambda_r."""
    rng = np.random.default_rng(2)
    n, d = 500, 10
    bound, gap = spiked_model_bounds(n, d, SpikedModel((10.0, 4.0)), 0.2)
    assert 0 < gap < 4.0
    for _ in range(200):
        U, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        X = rng.standard_normal((n, d)) + rng.standard_normal((n, 2)) * np.sqrt([10.0, 4.0]) @ U.T
        values = np.linalg.eigvalsh(X.T @ X / n)
        assert np.max(np.sum(X**2, axis=1)) <= bound
        assert values[-2] - values[-3] >= gap


def test_sgpca_noise_scale_ledger_and_accuracy():
    """Half of delta to the mechanism and half to the model's failure probability, the noise
    scale from the analytic calibration, and at d = 10, n = 20000, epsilon = 1 a mean sin
    Theta below 0.2 with the true model over 20 samples. (Not at n = 2000: bounds that hold for
    every row with probability 1 - delta / 2 put the largest squared row norm near 615,
    against 30 on average, and the noise drowns the projector.)"""
    n, d, delta = 20000, 10, 1 / 20000**2
    model = SpikedModel((10.0, 10.0))
    errors = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        U, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        X = rng.standard_normal((n, d)) + rng.standard_normal((n, 2)) * math.sqrt(10.0) @ U.T
        result = sgpca(X, 2, 1.0, delta, model=model, random_state=seed)
        errors.append(sin_theta(result.components, U))
    bound, gap = spiked_model_bounds(n, d, model, delta / 2)
    sensitivity = math.log(gap / (gap - 2 * bound / n)) / math.sqrt(2)
    assert result.sigma == pytest.approx(
        sensitivity * analytic_gaussian_multiplier(1.0, delta / 2), rel=1e-12
    )
    assert result.privacy.total.epsilon == 1.0 and result.privacy.total.delta == delta
    assert float(np.mean(errors)) < 0.2, np.mean(errors)
    centred = sgpca(X + 5.0, 2, 1.0, delta, model=model, center="private", random_state=0)
    assert centred.privacy.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert sin_theta(centred.components, U) < 0.5


def test_sgpca_rate_form_noise_ledger_and_accuracy_at_n_2000():
    """The rate form at d = 10, n = 2000, epsilon = 1 (the setting of the comparison): the noise
    is ``2 sqrt(2) a b / (n lambda_r)`` times the analytic multiplier at delta / 2 (``a``, ``b``
    the Gaussian norm bounds at deviation ``sqrt(2 log n)``), the ledger says that no guarantee
    is established, and the mean sin Theta over 20 samples is below 0.2."""
    n, d, delta = 2000, 10, 1 / 2000**2
    model = SpikedModel((10.0, 10.0))
    errors = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        U, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        X = rng.standard_normal((n, d)) + rng.standard_normal((n, 2)) * math.sqrt(10.0) @ U.T
        result = sgpca(X, 2, 1.0, delta, model=model, bounds="rate", random_state=seed)
        errors.append(sin_theta(result.components, U))
    a = math.sqrt(11.0) * (math.sqrt(2) + math.sqrt(2 * math.log(n)))
    b = math.sqrt(8) + math.sqrt(2 * math.log(n))
    expected = 2 * math.sqrt(2) * a * b / (n * 10.0)
    assert result.sigma == pytest.approx(
        expected * analytic_gaussian_multiplier(1.0, delta / 2), rel=1e-12
    )
    (entry,) = result.privacy.entries
    assert "no privacy guarantee established" in entry.name
    assert result.privacy.total.delta == delta
    assert float(np.mean(errors)) < 0.2, np.mean(errors)


def test_rate_sensitivity_is_the_first_order_change_at_its_row_sizes():
    """On a sample whose second moment is the model's exactly, replacing ``a u_r + b w`` by
    ``a u_r - b w`` (``w`` outside the spikes, ``a`` and ``b`` the rate form's sizes) moves the
    projector by the rate sensitivity to first order (within 5 % at n = 200000)."""
    rng = np.random.default_rng(0)
    n, d = 200_000, 6
    model = SpikedModel((10.0, 10.0))
    Z = rng.standard_normal((n, d))
    Z = Z @ np.linalg.inv(np.linalg.cholesky(Z.T @ Z / n)).T  # Z'Z / n = I exactly
    X = Z * np.sqrt([11.0, 11.0, 1.0, 1.0, 1.0, 1.0])  # spikes along e1, e2
    a = math.sqrt(11.0) * (math.sqrt(2) + math.sqrt(2 * math.log(n)))
    b = math.sqrt(4) + math.sqrt(2 * math.log(n))
    start, end = X.copy(), X.copy()
    start[0] = a * np.eye(d)[1] + b * np.eye(d)[2]
    end[0] = a * np.eye(d)[1] - b * np.eye(d)[2]

    def projector(data):
        vectors = np.linalg.eigh(data.T @ data / n)[1][:, -2:]
        return vectors @ vectors.T

    change = np.linalg.norm(projector(end) - projector(start))
    assert change == pytest.approx(spiked_model_rate_sensitivity(n, d, model), rel=0.05)


def test_bounded_centring_calibration_ledger_and_errors():
    """Means within public bounds: one Gaussian release of the d means with L2 sensitivity
    (high - low) sqrt(d) / n at a tenth of epsilon and of delta, the rest to the baseline."""
    from dppca.baselines import bounded_center
    from dppca.privacy.budget import Budget, PrivacyLedger

    X, U = _spiked(4000)
    shifted = np.clip(X + 10.0, 0.0, 20.0)
    ledger = PrivacyLedger()
    noise = Noise("continuous", np.random.default_rng(0))
    draws = np.array(
        [
            bounded_center(shifted, (0.0, 20.0), Budget(0.1, 1e-7), noise, ledger, "t")
            for _ in range(4000)
        ]
    )
    sd = 20.0 * math.sqrt(8) / 4000 * analytic_gaussian_multiplier(0.1, 1e-7)
    assert np.all(np.abs(draws.std(axis=0) / sd - 1) < 5 / math.sqrt(2 * 4000))
    np.testing.assert_allclose(draws.mean(axis=0), shifted.mean(axis=0), atol=5 * sd / 60)
    result = analyze_gauss(
        shifted, 2, 1.0, 1e-6, center="bounded", bounds=(0.0, 20.0), random_state=0
    )
    entries = {e.name.split(":")[1].strip(): e for e in result.privacy.entries}
    centre = entries["centre (means within public bounds)"]
    assert centre.epsilon == pytest.approx(0.1) and centre.delta == pytest.approx(1e-7)
    assert result.privacy.total.isclose(Budget(1.0, 1e-6))
    huge = analyze_gauss(shifted, 2, 1e6, 1e-6, center="bounded", bounds=(0.0, 20.0), clip=30.0)
    assert sin_theta(huge.components, U) < 0.1
    walk = nsggd(shifted, 2, 1e6, 1e-6, steps=200, center="bounded", bounds=(0.0, 20.0))
    assert sin_theta(walk.components, U) < 0.1
    with pytest.raises(ValueError, match=r'center="bounded" needs bounds=\(low, high\)'):
        analyze_gauss(shifted, 2, 1.0, 1e-6, center="bounded")
    with pytest.raises(ValueError, match="bounds apply only to it"):
        nsggd(shifted, 2, 1.0, 1e-6, bounds=(0.0, 1.0))
