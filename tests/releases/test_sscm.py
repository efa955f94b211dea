"""The spatial sign covariance matrix about a private centre (statistic="sscm"): its sensitivities
attained and never exceeded under adversarial replacements, its ledger recomputed from the noise
it drew, a schedule fixed by the medians and public values alone, equivariance, and its refusals
and marks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import dppca
from dppca.numerics.sscm import (
    Radii,
    centre_step_sum,
    centre_sum_error_bound,
    sscm,
    sscm_sensitivity,
)
from dppca.privacy.budget import Budget
from dppca.privacy.calibration import gdp_delta, gdp_mu
from dppca.privacy.modes import COUPLING_SHARE
from dppca.privacy.quantiles import GridQuantile
from dppca.releases.loading.centre import MODES_LIMIT, step_sensitivity
from dppca.releases.loading.schedule import (
    MAX_PARTS,
    MAX_STEPS,
    PARTS,
    POLISH,
    SHRINK,
    centre_schedule,
    centre_share,
    median_epsilons,
    travel_cap,
    with_travel,
)
from dppca.releases.loading.sscm import plan_sscm
from dppca.releases.loading.weights import spread_epsilon


def _replacements(X, centre, tau, rng, radii=None):
    """Rows an adversary would put in place of row 0: far away, at the centre, a duplicate, the
    origin, the mirror image about the centre, tiny and huge values, within and at the inner
    radius, just inside the clip and just beyond the soft weight's knee, at the matrix's
    ``radii``, and random rows."""
    d = X.shape[1]
    unit = rng.standard_normal(d)
    unit /= np.linalg.norm(unit)
    other = X[0] / 2 - centre / 2
    other = other / max(np.abs(other).max(), 1e-300)
    across = -other / max(np.linalg.norm(other), 1e-300)
    return [
        centre + 1e300 * unit / max(1.0, np.abs(centre).max() / 1e300),
        centre.copy(),
        X[1].copy(),
        np.zeros(d),
        2 * centre - X[0],
        np.full(d, 5e-324),
        np.full(d, -1.7e308),
        centre + 0.25 * tau * across,
        centre + 0.5 * tau * across,
        centre + 0.999 * tau * across,
        centre + 2.0 * tau * across,
        centre + 3.0 * tau * across,
        *(centre + radius * across for radius in ((radii.inner, radii.outer) if radii else ())),
        *(X[0] + rng.standard_normal(d) * scale for scale in (1e-8, 1.0, 1e6)),
    ]


@pytest.mark.parametrize("seed", range(60))
def test_the_matrix_and_the_centre_steps_never_move_more_than_their_sensitivity(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(3, 30)), int(rng.integers(1, 6))
    scale = 10.0 ** rng.uniform(-200, 200)
    X = rng.standard_normal((n, d)) * scale * rng.uniform(0.1, 10, size=d)
    if seed % 3 == 0:
        X[rng.integers(n)] *= 1e100  # one row far out among the others
    centre = np.median(X, axis=0) + rng.standard_normal(d) * scale * 0.1
    tau = scale * 10.0 ** rng.uniform(-1, 1)
    radii = Radii.of_clip(tau)
    if seed % 2:  # radii adapted to a spread (any positive radii keep the weights in [0, 1])
        radii = Radii(tau * 10.0 ** rng.uniform(-1, 0.5), tau * 10.0 ** rng.uniform(0, 1.5))
    base_matrix = sscm(X, centre, radii)
    base_sum = centre_step_sum(X, centre, tau)
    matrix_moves, sum_moves = [], []
    for row in _replacements(X, centre, tau, rng, radii):
        neighbour = X.copy()
        neighbour[0] = row
        matrix_moves.append(np.linalg.norm(sscm(neighbour, centre, radii) - base_matrix))
        moved = centre_step_sum(neighbour, centre, tau) / tau - base_sum / tau
        sum_moves.append(np.linalg.norm(moved))
    assert max(matrix_moves) <= sscm_sensitivity(n, d)
    assert max(sum_moves) <= centre_sum_error_bound(n, d)


def test_the_sensitivities_are_attained():
    """Two rows with weight 1 and orthogonal directions move the matrix by sqrt(2) / n; a row
    at twice the clip on one side, replaced by its mirror image, moves the sum by 2 tau."""
    n, tau = 10, 1.0
    X = np.zeros((n, 3))
    X[0] = [1.0, 0.0, 0.0]
    neighbour = X.copy()
    neighbour[0] = [0.0, 1.0, 0.0]
    radii = Radii.of_clip(tau)
    move = np.linalg.norm(sscm(neighbour, np.zeros(3), radii) - sscm(X, np.zeros(3), radii))
    assert move == pytest.approx(math.sqrt(2) / n, rel=1e-12)
    X[0] = [2.0, 0.0, 0.0]
    neighbour[0] = [-2.0, 0.0, 0.0]
    step = centre_step_sum(neighbour, np.zeros(3), tau) - centre_step_sum(X, np.zeros(3), tau)
    assert np.linalg.norm(step) == pytest.approx(2 * tau, rel=1e-12)


def test_the_statistic_is_equivariant_to_rotation_scale_and_shift():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 4)) * [3.0, 2.0, 1.0, 0.5]
    centre, tau = np.array([0.1, -0.2, 0.0, 0.3]), 1.5
    radii = Radii(2.0, 15.0)
    rotation = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    S = sscm(X, centre, radii)
    rotated = sscm(X @ rotation, centre @ rotation, radii)
    np.testing.assert_allclose(rotated, rotation.T @ S @ rotation, atol=1e-13)
    scaled = sscm(1e-3 * X, 1e-3 * centre, Radii(2e-3, 15e-3))
    np.testing.assert_allclose(scaled, S, atol=1e-13)
    np.testing.assert_allclose(sscm(X + 1e3, centre + 1e3, radii), S, atol=1e-10)
    total = centre_step_sum(X, centre, tau)
    np.testing.assert_allclose(
        centre_step_sum(X @ rotation, centre @ rotation, tau), total @ rotation, atol=1e-12
    )
    np.testing.assert_allclose(
        centre_step_sum(1e3 * X, 1e3 * centre, 1e3 * tau), 1e3 * total, rtol=1e-12, atol=1e-9
    )


def _spiked(n=3000, d=6, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * np.sqrt([10.0, 5.0, 3.0, 1.0, 1.0, 1.0][:d]) + shift


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_the_ledger_holds_the_claim_recomputed_from_the_noise_drawn(sampler):
    """Each centre step's and the matrix's multiplier, recomputed from the noise sd it drew and
    its sensitivity, compose to the Gaussian part's mu; with the medians' epsilons the total is
    (epsilon, delta), recomputed with the exact Gaussian-DP curve."""
    X = _spiked()
    epsilon, delta = 2.0, 1e-7
    result = dppca.dp_loading(X, epsilon, delta, statistic="sscm", sampler=sampler, random_state=4)
    settings = result.settings
    n, d = X.shape
    steps = [
        step_sensitivity(n, d) * clip / sd
        for clip, sd in zip(settings["centre_clips"], settings["centre_noise_sd"], strict=True)
    ]
    multipliers = [*steps, result.sensitivity / result.sigma]
    entries = result.privacy.to_frame()
    pure = entries[entries["delta"] == 0]["epsilon"].sum()
    gaussian_epsilon = epsilon - pure
    gaussian_delta = delta * (1 - COUPLING_SHARE)  # the rest is the thresholds' reserve
    mu = math.sqrt(sum(m * m for m in multipliers))
    if sampler == "continuous":
        assert mu == pytest.approx(gdp_mu(gaussian_epsilon, gaussian_delta), rel=1e-9)
        assert gdp_delta(mu, gaussian_epsilon) <= gaussian_delta * (1 + 1e-9)
    else:  # the discrete sampler's grid adds its rounding: more noise than mu needs
        assert mu < gdp_mu(gaussian_epsilon, gaussian_delta)
    assert result.privacy.total <= Budget(epsilon, delta)  # by the exact split of delta
    assert result.privacy.total.isclose(Budget(epsilon, delta))
    spread = spread_epsilon(n, d, epsilon)  # n epsilon / d^1.5 = 408: the weights adapt
    locating = 2.0 * (math.log(600_001) + math.log(1000)) / (n / 2 - 1)  # the log grid's reach
    assert spread == pytest.approx(max(0.02 * epsilon, 1.5 * locating))
    medians = sum(median_epsilons(n, epsilon - spread)[:2])
    assert len(entries) == 5 and pure == pytest.approx(spread + medians)
    assert entries[entries["name"] == "loading: SSCM spread"]["epsilon"].tolist() == [
        pytest.approx(spread)
    ]
    reserve = entries[entries["name"].str.endswith("coarse location")]
    assert reserve["delta"].tolist() == [pytest.approx(COUPLING_SHARE * delta, rel=1e-12)]
    assert reserve["mechanism"].str.contains("not used").all()


@pytest.mark.parametrize("norms", [7.0, 1e12])
def test_the_schedule_depends_on_the_medians_and_public_values_alone(monkeypatch, norms):
    """With the medians' outputs fixed, two unrelated data sets of the same shape get the same
    number of steps, shares, clips and noise, the same choice of a coarse location (taken for
    medians 1e12 apart) and the same weights: only the centres differ."""
    monkeypatch.setattr(
        GridQuantile,
        "release",
        lambda self, values, noise, *a, **k: norms if self.description == "row norms" else 0.5,
    )
    first = dppca.dp_loading(_spiked(seed=1), 2.0, 1e-7, statistic="sscm", random_state=0)
    second = dppca.dp_loading(
        _spiked(seed=2, shift=40.0) * 3, 2.0, 1e-7, statistic="sscm", random_state=9
    )
    keys = ("centre_steps", "centre_shares", "centre_clips", "centre_noise_sd", "matrix_clip")
    weights = ("spread", "weights_adaptation", "weights_inner_radius", "weights_outer_radius")
    for key in (*keys, "centre_coarse_share", "centre_travel_share", *weights):
        assert first.settings[key] == second.settings[key], key
    assert (first.settings["centre_coarse_share"] > 0) == (norms > 1e3)
    assert first.settings["centre"] != second.settings["centre"]
    shares, covered = centre_schedule(3000, 6, 1.0, 7.0, 0.5)
    assert covered and 2 <= len(shares) <= MAX_STEPS
    spent = first.settings["centre_share"] + first.settings["centre_travel_share"]
    assert sum(first.settings["centre_shares"]) == pytest.approx(spent)


@pytest.mark.parametrize("seed", range(40))
def test_a_schedule_spends_the_centres_share_and_covers_what_it_claims(seed):
    """Random public values and medians: the shares are positive and add up to the centre's
    share; early steps are equal and the last at least twice one; a covered schedule's steps,
    each shrinking the error by rho, bring tau0 down to the scale, and the fewest parts that do
    are used (9 when 8 steps suffice)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(100, 100_000)), int(rng.integers(1, 200))
    strength, ratio = float(rng.uniform(0.05, 5.0)), float(10 ** rng.uniform(-1, 12))
    shares, covered = centre_schedule(n, d, strength, ratio, 1.0)
    total = centre_share(n, d, strength)
    assert sum(shares) == pytest.approx(total, rel=1e-12) and min(shares) > 0
    assert 2 <= len(shares) <= MAX_STEPS
    assert len(set(shares[:-1])) == 1 and shares[-1] >= 2 * shares[0] * (1 - 1e-12)

    def needed(parts: int) -> int:
        rho = min(0.9, max(SHRINK, 4 * math.sqrt(d) / (n * strength * math.sqrt(total / parts))))
        return 1 + math.ceil(math.log(ratio) / math.log(1 / rho)) if ratio > 1 else 1

    if covered:  # the early steps alone cover the distance; the rest polish
        parts = round(total / shares[0])
        assert PARTS <= parts <= MAX_PARTS and len(shares) <= parts - 1
        assert needed(parts) <= len(shares) <= needed(parts) + POLISH
        if parts > PARTS:  # more parts only when 9 leave no room for the polishing steps
            assert needed(PARTS) + POLISH > PARTS - 1
    else:
        assert all(needed(m) > m - 1 for m in range(PARTS, MAX_PARTS + 1))


@pytest.mark.parametrize("seed", range(40))
def test_travelling_steps_are_paid_on_top_within_their_cap(seed):
    """Random public values and medians: the travelling steps (all but the last three) keep
    their shares, which are added to the centre's share up to ``travel_cap`` (at most that share,
    and at most half of what the steps and the coarse location leave the caller); the last
    three get what they get at a distance of one scale, or all that is left when the cap binds,
    never less than before; the number of steps is the schedule's."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(100, 100_000)), int(rng.integers(1, 200))
    strength, ratio = float(rng.uniform(0.05, 5.0)), float(10 ** rng.uniform(-1, 12))
    coarse = float(rng.choice([0.0, rng.uniform(0.0, MODES_LIMIT)]))
    shares, _ = centre_schedule(n, d, strength, ratio, 1.0)
    total = centre_share(n, d, strength)
    travelled, extra = with_travel(shares, n, d, strength, total, coarse)
    assert len(travelled) == len(shares)
    travel = len(shares) - (POLISH + 1)
    cap = min(total, (1 - total - coarse) / 2)
    assert travel_cap(total, coarse) == pytest.approx(cap)
    if travel <= 0:
        assert travelled == shares and extra == 0.0
        return
    assert travelled[:travel] == shares[:travel]
    assert extra == pytest.approx(min(cap, sum(shares[:travel])), rel=1e-12)
    assert sum(travelled) == pytest.approx(total + extra, rel=1e-12) and min(travelled) > 0
    assert sum(travelled[travel:]) >= sum(shares[travel:]) * (1 - 1e-12)
    near, _ = centre_schedule(n, d, strength, 1.0, 1.0)
    if extra < cap:  # the cap does not bind: the last steps get what they get near the origin
        np.testing.assert_allclose(travelled[travel:], near, rtol=1e-12)
    assert 1 - total - coarse - extra >= (1 - total - coarse) / 2 - 1e-15


def test_outliers_that_pull_the_first_step_aside_are_caught_by_the_next():
    """Found by the benchmark: at n = 20,000, epsilon 4, 5 % of rows at distance 1000 along
    one axis pulled the first clipped step 30 off, and the next clip, set by the step's noise
    alone, was 3: the centre stayed off and the directions followed the outliers (sin Theta
    0.87). The clips now shrink by at most 4 from one step to the next."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20_000, 10)) * np.sqrt([10.0, 5.0, 3.0] + [1.0] * 7)
    bad = rng.random(20_000) < 0.05
    X[bad] = 1000.0 * np.eye(10)[9] + rng.standard_normal((int(bad.sum()), 10))
    result = dppca.dp_loading(X + 200.0, 4.0, 1e-8, statistic="sscm", random_state=0)
    clips = result.settings["centre_clips"]
    assert all(later >= SHRINK * earlier for earlier, later in itertools.pairwise(clips))
    assert abs(result.directions[0, 0]) > 0.99


def test_a_centre_near_the_origin_still_takes_its_polishing_steps():
    """Found by the benchmark: stopping once the distance was covered left the centre off by a
    tenth of the scale on heavy tails; two more steps at clips near the scale follow."""
    shares, covered = centre_schedule(20000, 50, 2.0, 1.0, 1.0)
    assert covered and len(shares) == 1 + POLISH


def test_a_release_is_equivariant_to_the_datas_units_and_finds_the_spikes():
    X = _spiked()
    base = dppca.dp_loading(X, 4.0, 1e-7, statistic="sscm", sampler="continuous", random_state=2)
    scaled = dppca.dp_loading(
        1e3 * X, 4.0, 1e-7, statistic="sscm", sampler="continuous", random_state=2
    )
    np.testing.assert_allclose(np.abs(scaled.directions), np.abs(base.directions), atol=1e-8)
    assert abs(base.directions[0, 0]) > 0.98
    shifted = dppca.dp_loading(X + 50.0, 4.0, 1e-7, statistic="sscm", random_state=2)
    assert abs(shifted.directions[0, 0]) > 0.98 and shifted.directions_status.usable


def test_one_variable_and_an_odd_number_of_rows():
    X = np.random.default_rng(0).standard_normal((3001, 1)) * 4 + 2
    result = dppca.dp_loading(X, 2.0, 1e-7, statistic="sscm", random_state=1)
    assert result.directions.shape == (1, 1) and abs(result.directions[0, 0]) == 1.0
    assert result.privacy.total.isclose(Budget(2.0, 1e-7))


def test_what_cannot_be_located_is_refused_before_the_charge():
    accountant = dppca.Accountant(Budget(10.0, 1e-3))
    X = _spiked(n=200)
    with pytest.raises(dppca.UnlocatableError, match=r"the SSCM's centre.*epsilon >= .*n >= "):
        dppca.dp_loading(X, 0.5, 1e-5, statistic="sscm", accountant=accountant)
    assert accountant.spent == Budget(0.0, 0.0)
    plan = plan_sscm((200, 6), Budget(0.5, 1e-5), "discrete")
    assert not plan.requirements[0].met


def test_data_far_from_the_origin_are_located_by_the_coarse_location():
    """At 1e10 from the origin, farther than 8 steps reach, each variable's most frequent bin
    (private, thresholded) starts the steps: the centre and the directions are as good as at
    the origin, the ledger enters the thresholds, and the total is the claim."""
    X = _spiked(n=3000)
    near = dppca.dp_loading(X, 2.0, 1e-7, statistic="sscm", random_state=3)
    far = dppca.dp_loading(X + 1e10, 2.0, 1e-7, statistic="sscm", random_state=3)
    assert near.settings["centre_coarse_share"] == 0 < far.settings["centre_coarse_share"]
    assert len(far.settings["centre_shares"]) <= PARTS - 1
    # the coarse location's share and the travel's come from the matrix's: the steps keep theirs
    spent = far.settings["centre_share"] + far.settings["centre_travel_share"]
    assert sum(far.settings["centre_shares"]) == pytest.approx(spent)
    near_share, far_share = (
        1
        - result.settings["centre_share"]
        - result.settings["centre_coarse_share"]
        - result.settings["centre_travel_share"]
        for result in (near, far)
    )
    assert far.sigma == pytest.approx(near.sigma * math.sqrt(near_share / far_share))
    scale = far.settings["pair_scale"]
    assert far.settings["norm_median"] > 1e9  # the released median, not the steps' first clip
    for result, shift in ((near, 0.0), (far, 1e10)):
        offset = np.array(result.settings["centre"]) - shift - np.median(X, axis=0)
        assert np.linalg.norm(offset) < 0.3 * scale
        assert abs(result.directions[0, 0]) > 0.98 and result.directions_status.usable
    entries = far.privacy.to_frame()
    thresholds = entries[entries["name"].str.endswith("coarse location")]
    assert thresholds["mechanism"].str.startswith("thresholds on the occupied").all()
    assert thresholds["delta"].tolist() == [pytest.approx(COUPLING_SHARE * 1e-7, rel=1e-12)]
    assert far.privacy.total.isclose(Budget(2.0, 1e-7))


def test_a_budget_that_cannot_locate_the_centre_anywhere_is_refused_before_the_charge():
    """At n = 900, d = 20, epsilon 1 the medians are located but no coarse location is
    affordable: data far from the origin could not be located, so the call is refused before
    the charge, naming the epsilon and the n that would do."""
    accountant = dppca.Accountant(Budget(10.0, 1e-3))
    X = np.random.default_rng(0).standard_normal((900, 20))
    with pytest.raises(
        dppca.UnlocatableError,
        match=r"centre at any distance from the origin\) needs epsilon >= 1\.\d+ at this n or "
        r"n >= 1\d{3} at this epsilon",
    ):
        dppca.dp_loading(X, 1.0, 1e-7, statistic="sscm", accountant=accountant)
    assert accountant.spent == Budget(0.0, 0.0)
    assert plan_sscm((900, 20), Budget(1.0, 1e-7), "discrete").requirements[0].met
    assert not plan_sscm((900, 20), Budget(1.0, 1e-7), "discrete").requirements[1].met
    assert plan_sscm((1300, 20), Budget(1.0, 1e-7), "discrete").requirements[1].met


def test_data_too_far_for_the_steps_are_marked_not_shown():
    # released anyway where no coarse location is affordable: far data are marked
    X = np.random.default_rng(0).standard_normal((900, 20)) * 3 + 1e10
    with (
        pytest.warns(dppca.NoiseDominatedWarning, match="at any distance|cannot be located"),
        pytest.warns(dppca.NoiseDominatedWarning, match="misplaced: the SSCM's centre"),
    ):
        result = dppca.dp_loading(X, 1.0, 1e-7, statistic="sscm", random_state=0, on_weak="release")
    assert np.isnan(result.directions).all()
    assert result.directions_status.state == "misplaced"
    assert result.settings["centre_coarse_share"] == 0.0
    assert result.privacy.total.isclose(Budget(1.0, 1e-7))  # spent, and said so
    with pytest.warns(dppca.NoiseDominatedWarning, match="misplaced"):
        pca = dppca.dp_pca(
            X, 1.0, 1e-7, loading={"statistic": "sscm"}, random_state=0, on_weak="release"
        )
    assert {name: pca.status[name].state for name in ("directions", "scree", "histogram")} == {
        "directions": "misplaced",
        "scree": "misplaced",
        "histogram": "misplaced",
    }
    assert np.isnan(pca.directions).all() and np.isnan(pca.scree).all()


def test_settings_the_statistic_cannot_use_are_refused():
    X = _spiked(n=500)
    with pytest.raises(ValueError, match=r"\['radius', 'transform'\] apply to statistic='kendall'"):
        dppca.LoadingSettings("winsorized", radius=2.0, statistic="sscm")
    with pytest.raises(ValueError, match="statistic='sscm' needs calibration='analytic'"):
        dppca.dp_loading(X, 1.0, 1e-6, statistic="sscm", calibration="classical")
    with pytest.raises(ValueError, match="statistic must be one of"):
        dppca.dp_loading(X, 1.0, 1e-6, statistic="tyler")


def test_dp_pca_and_dppca_compose_the_sscm_with_the_other_releases():
    X = _spiked()
    result = dppca.dp_pca(X, 4.0, 1e-7, loading={"statistic": "sscm"}, random_state=5)
    assert result.privacy.total.epsilon == pytest.approx(4.0)
    assert result.privacy.total.delta <= 1e-7
    assert result.settings["loading"]["statistic"] == "sscm"
    assert abs(result.directions[0, 0]) > 0.98
    from dppca.report import method_paragraph

    assert result.method == "SSCM" and repr(result).startswith("Differentially private PCA (SSCM)")
    assert "spatial sign covariance matrix (Visuri" in method_paragraph(result)
    assert "about a private centre from" in method_paragraph(result)
    assert result.settings["loading"]["spread"] is not None  # n epsilon / d^1.5 is 272 here
    assert "radial weights adapted to the data's tails" in method_paragraph(result)
    model = dppca.DPPCA(2, epsilon=4.0, delta=1e-7, statistic="sscm", random_state=5).fit(X)
    assert abs(model.components_[0, 0]) > 0.98
    assert model.privacy_spent_.epsilon == pytest.approx(4.0)


def test_medians_whose_ratio_overflows_give_a_misplaced_release_not_a_crash():
    """Found in review: a ratio of the medians beyond the largest float crashed after the
    charge; now the release is made and marked."""
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(2000, 1e160), rng.standard_normal(2000) * 1e-160])
    accountant = dppca.Accountant(Budget(10.0, 1e-5), composition="basic")
    with pytest.warns(dppca.NoiseDominatedWarning, match="misplaced"):
        result = dppca.dp_loading(
            X, 4.0, 1e-6, statistic="sscm", random_state=1, accountant=accountant
        )
    assert result.directions_status.state == "misplaced"
    shares, covered = centre_schedule(2000, 2, 1.0, 1e300, 1e-300)
    assert len(shares) == PARTS - 1 and not covered
    assert sum(shares) == pytest.approx(0.02)


def test_every_step_noise_is_a_normal_float_or_the_plan_is_refused():
    """Found in review: at absurd budgets the last step's larger share made its noise
    subnormal at the smallest clip; the plan now checks the largest share there."""
    with pytest.raises(ValueError, match="not a positive normal float"):
        plan_sscm((2000, 2), Budget(1e111, 1e-6), "continuous")


@pytest.mark.parametrize("n", [2005, 777, 40_001])
@pytest.mark.parametrize("epsilon", [0.7, 1.3, 3.0])
def test_the_parts_never_add_up_to_more_than_epsilon(n, epsilon):
    from fractions import Fraction

    plan = plan_sscm((n, 5), Budget(epsilon, 1e-7), "discrete")
    parts = [
        plan.centre.norm_median.epsilon,
        plan.centre.pair_scale.epsilon,
        plan.centre.gaussian.epsilon,
    ]
    assert sum(Fraction(part) for part in parts) <= Fraction(epsilon)


def test_auto_takes_the_sscm_where_the_benchmarks_favour_it_from_public_values_alone():
    """``statistic="auto"``: the SSCM from n epsilon = 2000 of the directions' budget when its
    plan locates the centre anywhere; the Kendall matrix below that, for Dask data, with the
    Kendall matrix's own settings or the classical calibration."""
    from dppca import LoadingSettings, NoiseSettings
    from dppca.releases.loading.plan import AUTO_N_EPSILON

    auto, noise = LoadingSettings(statistic="auto"), NoiseSettings()

    def chosen(n, epsilon, settings=auto, noise=noise, in_memory=True, d=20):
        budget = Budget(epsilon, 1e-8)
        return settings.resolve((n, d), budget, noise, in_memory=in_memory).statistic

    assert chosen(5000, AUTO_N_EPSILON / 5000) == "sscm"
    assert chosen(5000, AUTO_N_EPSILON / 5000 * 0.999) == "kendall"
    assert chosen(5000, 1.0, in_memory=False) == "kendall"
    assert chosen(5000, 1.0, settings=LoadingSettings(statistic="auto", pairs=64)) == ("kendall")
    assert chosen(5000, 1.0, noise=NoiseSettings(calibration="classical")) == "kendall"
    assert chosen(2000, 1.0, d=50) == "sscm"
    assert chosen(2000, 1.0, d=100) == "kendall"  # its centre is not located at any distance
    assert (
        LoadingSettings(statistic="sscm")
        .resolve((100, 20), Budget(1.0, 1e-8), noise, in_memory=True)
        .statistic
        == "sscm"
    )  # an explicit choice is kept (and refused later if it must be)
    X = _spiked(n=3000)
    loading = dppca.dp_loading(X, 1.0, 1e-7, statistic="auto", random_state=0)
    assert loading.settings["statistic"] == "sscm"
    pca = dppca.dp_pca(X, 3.0, 1e-7, loading={"statistic": "auto"}, random_state=0)
    assert pca.method == "SSCM"
    small = dppca.dp_pca(X[:1000], 3.0, 1e-7, loading={"statistic": "auto"}, random_state=0)
    assert small.method == "g-DPPCA"
    model = dppca.DPPCA(2, epsilon=1.0, delta=1e-7, statistic="auto", random_state=0).fit(X)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0)
    assert (
        dppca.plan_pca((3000, 6), 3.0, 1e-7, loading={"statistic": "auto"}).budget_table()[
            "release"
        ][0]
        == "directions (SSCM)"
    )


def test_the_centre_averages_its_last_steps_by_their_noise_and_is_nearer_for_it():
    """The location is the inverse-variance average of the last three steps' outputs
    (post-processing), and over 30 releases it lies nearer the data's centre than the last
    step alone (each step's noise is independent, so the average has less)."""
    from dppca.privacy.budget import PrivacyLedger
    from dppca.privacy.mechanisms import Noise
    from dppca.releases.loading.centre import locate_centre, plan_centre

    # far from the origin, the steps within the centre's share: eight steps of one ninth of it,
    # the last of two ninths (unbiased iterates would give sqrt(2 / 4) = 0.71 of the last's)
    X = np.random.default_rng(0).standard_normal((2000, 50)) * 2 + 1e6
    plan = plan_centre(X.shape, 1.0, 1e-7, "continuous", "test")
    errors: dict[str, list[float]] = {"average": [], "last": [], "travelled": []}
    truth = np.median(X, axis=0)
    for seed in range(30):
        rng = np.random.default_rng(seed)
        noise = Noise("continuous", rng)
        centre = locate_centre(X, plan, noise, rng, PrivacyLedger(), "t", travel=False)
        assert centre.travel_share == 0.0 and sum(centre.shares) == pytest.approx(plan.share)
        weights = np.array(centre.noise_sds[-3:]) ** -2.0
        expected = weights @ np.array(centre.iterates[-3:]) / weights.sum()
        np.testing.assert_allclose(centre.location, expected, rtol=1e-12)
        errors["average"].append(np.linalg.norm(centre.location - truth))
        errors["last"].append(np.linalg.norm(centre.iterates[-1] - truth))
        travelled = locate_centre(X, plan, noise, rng, PrivacyLedger(), "t")
        errors["travelled"].append(np.linalg.norm(travelled.location - truth))
    assert np.mean(errors["average"]) < 0.9 * np.mean(errors["last"])
    # the travel pays the early steps on top: the last three get the whole share, three times
    # what they had (2 + 1 + 1 ninths against 9 ninths), so the centre's noise sd is about
    # sqrt(4 / 9) = 0.67 of it
    assert np.mean(errors["travelled"]) < 0.8 * np.mean(errors["average"])


def test_a_coarse_location_beyond_the_centres_range_is_marked_not_shown():
    """Found in review: bins whose middles lay beyond the centres' public range (1e250) were
    clipped to it and reported as located; the release is now marked misplaced."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 3)) * [3e245, 1e245, 1e245] + 1e255
    with pytest.warns(dppca.NoiseDominatedWarning, match="misplaced"):
        result = dppca.dp_loading(X, 1.0, 1e-7, statistic="sscm", random_state=1)
    assert result.directions_status.state == "misplaced"
    assert "coarse location" in result.directions_status.reason


def test_budgets_beyond_floating_point_thresholds_plan_without_a_coarse_location():
    """Found in review: at epsilon beyond about 700, delta_c underflows; the plan used to raise
    ZeroDivisionError, which "auto" and the planners did not catch. The coarse location is now
    simply not affordable there."""
    from dppca import LoadingSettings, NoiseSettings

    plan = plan_sscm((2000, 5), Budget(1e6, 1e-8), "continuous")
    assert not plan.requirements[1].met and not plan.centre.modes.usable
    auto = LoadingSettings(statistic="auto")
    resolved = auto.resolve((2000, 5), Budget(1e6, 1e-8), NoiseSettings(), in_memory=True)
    assert resolved.statistic == "kendall"


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_about_a_public_centre_only_the_pair_scale_is_spent_before_the_matrix(sampler):
    """A public centre: the ledger holds the pair scale's median, the spread's (the weights
    adapt at this n epsilon) and the matrix, whose multiplier, recomputed from its noise sd, is
    the whole Gaussian part's mu."""
    X = _spiked(shift=40.0)
    n, d = X.shape
    epsilon, delta = 2.0, 1e-7
    result = dppca.dp_loading(
        X,
        epsilon,
        delta,
        statistic="sscm",
        center=np.full(d, 40.0),
        sampler=sampler,
        random_state=4,
    )
    entries = result.privacy.to_frame()
    names = ["loading: SSCM pair scale", "loading: SSCM spread", "loading: SSCM matrix"]
    assert entries["name"].tolist() == names
    spread = spread_epsilon(n, d, epsilon)
    pure = entries["epsilon"].iloc[0] + entries["epsilon"].iloc[1]
    assert entries["epsilon"].iloc[1] == spread
    # the pair scale's share is the private centre's own, of what the spread leaves
    assert pure == pytest.approx(median_epsilons(n, epsilon - spread)[1] + spread)
    mu = result.sensitivity / result.sigma
    if sampler == "continuous":
        assert mu == pytest.approx(gdp_mu(epsilon - pure, delta), rel=1e-9)
    else:
        assert mu < gdp_mu(epsilon - pure, delta)
    assert result.privacy.total.isclose(Budget(epsilon, delta))
    assert result.privacy.total <= Budget(epsilon, delta)
    settings = result.settings
    assert settings["centre_given"] and settings["centre"] == [40.0] * d
    assert settings["centre_steps"] == 0 and settings["norm_median"] is None
    assert settings["matrix_clip"] == settings["pair_scale"]
    assert abs(result.directions[0, 0]) > 0.98 and result.directions_status.usable


def test_a_release_about_a_public_centre_moves_with_the_data_and_the_centre():
    """Shifting the data and the centre together, or scaling both by a power of the pair
    scale's grid ratio, leaves the directions (same seed) as they were."""
    X = _spiked()
    centre = np.zeros(X.shape[1])

    def fit(data, at):
        return dppca.dp_loading(
            data, 4.0, 1e-7, statistic="sscm", center=at, sampler="continuous", random_state=3
        ).directions

    base = fit(X, centre)
    np.testing.assert_allclose(np.abs(fit(X + 1e6, centre + 1e6)), np.abs(base), atol=1e-6)
    np.testing.assert_allclose(np.abs(fit(1e3 * X, 1e3 * centre)), np.abs(base), atol=1e-8)


def test_a_public_centre_is_checked_before_the_charge():
    X = _spiked(n=3000)
    accountant = dppca.Accountant(Budget(10.0, 1e-3))
    cases = [
        ({"statistic": "kendall", "center": np.zeros(6)}, ValueError, "center applies to"),
        ({"center": np.zeros(5)}, ValueError, r"center must have one value per variable \(6\)"),
        ({"center": [0, 0, 0, 0, 0, np.nan]}, ValueError, "center must contain only finite"),
        ({"center": "middle"}, TypeError, "center must be a 1-D array"),
        ({"center": np.zeros((6, 1))}, ValueError, "center must be 1-D"),
    ]
    for given, error, message in cases:
        keywords = {"statistic": "sscm", **given}
        with pytest.raises(error, match=message):
            dppca.dp_loading(X, 1.0, 1e-6, accountant=accountant, **keywords)
    with pytest.raises(dppca.UnlocatableError, match=r"the SSCM.s pair scale\) needs epsilon >= "):
        dppca.dp_loading(
            X[:40], 0.5, 1e-5, statistic="sscm", center=np.zeros(6), accountant=accountant
        )
    assert accountant.spent == Budget(0.0, 0.0)


def test_auto_with_a_public_centre_drops_it_for_the_kendall_matrix():
    """The Kendall matrix, translation invariant, takes no centre: "auto" leaves it out when it
    chooses Kendall, keeps it for the SSCM; dp_pca takes it in its loading settings."""
    small, large = _spiked(n=400), _spiked(n=3000)
    centre = np.zeros(6)
    kendall = dppca.dp_loading(small, 1.0, 1e-6, statistic="auto", center=centre, random_state=0)
    assert "centre" not in kendall.settings and kendall.settings["pairs"] == "all"
    sscm_release = dppca.dp_loading(large, 1.0, 1e-6, statistic="auto", center=centre)
    assert sscm_release.settings["centre_given"]
    result = dppca.dp_pca(
        large, 6.0, 1e-6, loading={"statistic": "sscm", "center": centre}, random_state=0
    )
    assert result.settings["loading"]["centre_given"]
    from dppca.report import method_paragraph

    assert "about a public centre given by the analyst" in method_paragraph(result)


@pytest.mark.parametrize("center", [None, np.zeros(4), np.full(4, 1.7e308)])
def test_a_pair_scale_beyond_the_clips_range_is_marked_with_what_would_help(center):
    """Rows at 1e-300: the pair scale is below the clips' public range, with a private or a
    public centre (near or at the far end of the floats): marked, and the status says to scale
    the data by a public constant."""
    X = np.random.default_rng(0).standard_normal((3000, 4)) * 1e-300
    with pytest.warns(dppca.NoiseDominatedWarning, match="scale the data by a public constant"):
        result = dppca.dp_loading(
            X, 2.0, 1e-6, statistic="sscm", center=center, random_state=1, on_weak="release"
        )
    assert result.directions_status.state == "misplaced"
    assert np.isnan(result.directions).all()
    assert result.privacy.total.isclose(Budget(2.0, 1e-6))


@pytest.mark.parametrize("rows", ["identical", "subnormal"])
def test_rows_without_a_positive_pair_distance_on_the_grid_are_marked(rows):
    """Identical rows, or rows whose differences lie below the log grid's first point: the pair
    scale is the median of no values, a grid point anywhere (once 1e290, beyond the clips'
    range, and the release said "ok"); the release is marked misplaced."""
    rng = np.random.default_rng(0)
    X = np.ones((3000, 2)) * 3.0 if rows == "identical" else rng.standard_normal((3000, 2)) * 4e-323
    with pytest.warns(dppca.NoiseDominatedWarning, match="rows are \\(nearly\\) all identical"):
        result = dppca.dp_loading(X, 4.0, 1e-7, statistic="sscm", random_state=1, on_weak="release")
    assert result.directions_status.state == "misplaced"
    assert result.privacy.total.isclose(Budget(4.0, 1e-7))


def test_a_wrong_public_centre_is_refused_by_auto_whichever_statistic_it_picks():
    """statistic="auto" checks the centre's length before it chooses, so a centre of the wrong
    length is refused before the charge at a small n epsilon (Kendall) as at a large one."""
    accountant = dppca.Accountant(Budget(100.0, 1e-3), composition="basic")
    for n in (400, 3000):
        with pytest.raises(ValueError, match=r"center must have one value per variable \(6\)"):
            dppca.dp_loading(
                _spiked(n=n), 1.0, 1e-6, statistic="auto", center=[0, 0], accountant=accountant
            )
    assert accountant.spent == Budget(0.0, 0.0)


@pytest.mark.parametrize("scale", ["public", "private"])
def test_a_public_centre_follows_the_data_into_their_scaled_units(scale):
    """With scales the data are divided before the directions: the public centre is divided by
    the same scales (post-processing), so the release is that of the scaled data about the
    scaled centre."""
    X = _spiked(n=6000) * [100.0, 1.0, 1.0, 1.0, 1.0, 1.0] + 1000.0
    centre = np.full(6, 1000.0)
    loading = {"statistic": "sscm", "center": centre}
    scales = np.array([100.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    given = scales if scale == "public" else "private"
    result = dppca.dp_pca(X, 8.0, 1e-6, loading=loading, scale=given, random_state=3)
    used = np.array(result.scales)
    np.testing.assert_allclose(
        result.settings["loading"]["centre"], centre / used, rtol=1e-15, atol=0
    )
    assert result.status["directions"].usable
    if scale == "public":  # the first variable's spike, back in its units
        assert abs(result.directions[0, 0]) > 0.98
