"""Statistical privacy audits: lower confidence bounds on the epsilon a mechanism reveals.

For neighbouring data sets ``D`` and ``D'`` and a one-dimensional statistic ``T`` of the output,
(epsilon, delta)-DP implies, for every event ``E = {T >= t}`` (or ``{T <= t}``),
``P_D(E) <= exp(epsilon) P_D'(E) + delta`` and the same with ``D`` and ``D'`` swapped. So

    ``epsilon >= log((P_D(E) - delta) / P_D'(E))``.

An audit runs the mechanism many times on each data set, picks the most revealing event on one
half of the draws and evaluates it on the other half with Clopper-Pearson bounds (lower for the
numerator, upper for the denominator), which gives a lower confidence bound on the epsilon the
outputs reveal (Jagielski, Ullman and Oprea 2020; Ding et al. 2018). A correct mechanism's
bound stays below its claimed epsilon (with probability at least ``1 - alpha``); a broken one
(run with a larger epsilon than it claims, i.e. less noise) is flagged when the bound exceeds it.

The scenarios use the worst-case neighbours of each mechanism's sensitivity analysis.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

#: How many candidate thresholds the selection half tries.
_THRESHOLDS = 60
#: The fewest selection-half events a threshold needs, so that the estimate is not pure noise.
_MIN_EVENTS = 20


def clopper_pearson(count: int, total: int, alpha: float) -> tuple[float, float]:
    """Two one-sided ``1 - alpha`` Clopper-Pearson bounds on a binomial proportion."""
    lower = 0.0 if count == 0 else float(beta.ppf(alpha, count, total - count + 1))
    upper = 1.0 if count == total else float(beta.ppf(1 - alpha, count + 1, total - count))
    return lower, upper


def _best_event(first: np.ndarray, second: np.ndarray, delta: float):
    """The threshold and side whose event best separates ``first`` from ``second``."""
    pooled = np.concatenate([first, second])
    candidates = np.unique(np.quantile(pooled, np.linspace(0.005, 0.995, _THRESHOLDS)))
    best, choice = -math.inf, None
    for threshold in candidates:
        for side in (1, -1):
            hits_first = np.count_nonzero(side * first >= side * threshold)
            hits_second = np.count_nonzero(side * second >= side * threshold)
            if hits_first < _MIN_EVENTS:
                continue
            p_first = int(hits_first) / len(first)
            p_second = max(int(hits_second), 1) / len(second)
            value = math.log(max(p_first - delta, 1e-300) / p_second)
            if value > best:
                best, choice = value, (threshold, side)
    return choice


def epsilon_lower_bound(
    outputs_d: np.ndarray, outputs_d_prime: np.ndarray, delta: float, alpha: float = 0.05
) -> float:
    """A ``1 - alpha`` lower confidence bound on epsilon from two samples of a statistic.

    Both orders (``D`` against ``D'`` and back) are tried; the larger bound is returned, with
    ``alpha`` split between the four bounds used (Bonferroni).
    """
    outputs_d = np.asarray(outputs_d, dtype=float)
    outputs_d_prime = np.asarray(outputs_d_prime, dtype=float)
    half_d, half_p = len(outputs_d) // 2, len(outputs_d_prime) // 2
    best = 0.0
    for first, second in ((outputs_d, outputs_d_prime), (outputs_d_prime, outputs_d)):
        half_f, half_s = (half_d, half_p) if first is outputs_d else (half_p, half_d)
        choice = _best_event(first[:half_f], second[:half_s], delta)
        if choice is None:
            continue
        threshold, side = choice
        test_first, test_second = first[half_f:], second[half_s:]
        hits_first = int(np.count_nonzero(side * test_first >= side * threshold))
        hits_second = int(np.count_nonzero(side * test_second >= side * threshold))
        low_first, _ = clopper_pearson(hits_first, len(test_first), alpha / 4)
        _, high_second = clopper_pearson(hits_second, len(test_second), alpha / 4)
        if low_first - delta > 0 and high_second > 0:
            best = max(best, math.log((low_first - delta) / high_second))
    return best


@dataclass(frozen=True)
class Scenario:
    """A mechanism on worst-case neighbours: ``run(which, epsilon, rng)`` returns the statistic
    of one release on ``D`` (``which=0``) or ``D'`` (``which=1``) at budget ``epsilon``."""

    name: str
    epsilon: float
    delta: float
    run: Callable[[int, float, np.random.Generator], float]
    #: The broken variant runs with this many times the claimed epsilon. Composite mechanisms
    #: (the frame's four quantiles, the scree's quantile and mean, the pipeline's three parts)
    #: show only part of their budget in one statistic, so they need a larger factor.
    break_factor: float = 4.0


@dataclass(frozen=True)
class AuditResult:
    name: str
    claimed_epsilon: float
    delta: float
    draws: int
    lower_bound: float
    broken: bool

    @property
    def flagged(self) -> bool:
        """Whether the outputs reveal more than the claimed epsilon."""
        return self.lower_bound > self.claimed_epsilon


def audit(
    scenario: Scenario,
    draws: int,
    *,
    broken: bool = False,
    seed: int = 0,
    alpha: float = 0.05,
) -> AuditResult:
    """Run a scenario ``draws`` times on each neighbour and bound the epsilon it reveals.

    ``broken=True`` runs the mechanism with ``scenario.break_factor`` times the claimed epsilon
    (less noise) while still auditing against the claim: a working audit must flag it.
    """
    rng = np.random.default_rng(seed)
    used = scenario.epsilon * (scenario.break_factor if broken else 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = [
            np.array([scenario.run(which, used, rng) for _ in range(draws)]) for which in (0, 1)
        ]
    bound = epsilon_lower_bound(samples[0], samples[1], scenario.delta, alpha)
    return AuditResult(scenario.name, scenario.epsilon, scenario.delta, draws, bound, broken)


def _scenarios() -> dict[str, Scenario]:
    from dppca.numerics.row_values import ArrayValues
    from dppca.numerics.signs import SphericalSign
    from dppca.pipeline import dp_pca
    from dppca.privacy.durfee import DurfeeQuantile
    from dppca.privacy.histograms import HistogramMechanism
    from dppca.privacy.mechanisms import Noise
    from dppca.privacy.quantiles import linear_quantile, log_quantile
    from dppca.releases.frame import plan_frame, private_frame
    from dppca.releases.loading import dp_loading
    from dppca.releases.loading import release as loading
    from dppca.releases.scree import dp_scree

    n = 10
    far = np.zeros((n, 2))
    far[0] = [5.0, 0.0]
    far_prime = far.copy()
    far_prime[0] = [0.0, 5.0]
    kendall_data = (far, far_prime)

    def kendall(which, epsilon, rng):
        released = dp_loading(
            kendall_data[which], epsilon, 1e-3, random_state=rng, sampler="continuous"
        ).kendall
        return released[0, 0] - released[1, 1]

    # One row at 1e200 among rows at 1e-200, against the same rows with that one replaced by a
    # tiny row: a kernel scaled by a global statistic loses every pair of tiny rows in the first.
    mixed_rng = np.random.default_rng(5)
    tiny = mixed_rng.standard_normal((50, 3)) * 1e-200
    huge = tiny.copy()
    huge[0] = [1e200, -3e199, 5e199]
    mixed_data = (huge, tiny)
    # The test statistic projects the release on the difference of the two matrices the
    # implementation itself computes (the likelihood-ratio direction of a Gaussian mechanism).
    sign = SphericalSign()
    direction = loading.unit_kendall(huge, sign) - loading.unit_kendall(tiny, sign)
    direction /= np.linalg.norm(direction)

    def mixed(which, epsilon, rng):
        released = dp_loading(
            mixed_data[which], epsilon, 1e-3, random_state=rng, sampler="continuous"
        ).kendall
        return float(np.sum(released * direction))

    values = np.r_[np.full(10, 1.0), np.full(10, 100.0)]
    moved = values.copy()
    moved[9] = 100.0
    quantile_data = (values, moved)

    def upper(which, epsilon, rng):
        search = DurfeeQuantile(0.5, epsilon, 0.0)
        return search.release(quantile_data[which], Noise("continuous", rng))

    def signed(which, epsilon, rng):
        search = DurfeeQuantile(0.5, epsilon)
        return search.release(quantile_data[which] - 50.0, Noise("continuous", rng))

    # Grid quantiles: in D a two-point run is the best answer and a long run one count away;
    # in D' (the value at the short run moved into the long one) both are best. The event
    # "answer in the short run" then has probability ratio up to exp(epsilon / 2).
    grid_values = np.r_[np.full(29, 1e-20), [1.0], np.full(30, 1.1)]
    grid_moved = grid_values.copy()
    grid_moved[29] = 1e-20
    grid_data = (grid_values, grid_moved)

    def log_grid(which, epsilon, rng):
        answer = log_quantile(grid_data[which], 0.5, epsilon, Noise("discrete", rng))
        return float(1.0 <= answer <= 1.1)

    def linear_grid(which, epsilon, rng):
        values = np.log10(grid_data[which])  # -20, 0 and 0.04: runs of 2000 and 4 points
        answer = linear_quantile(values, 0.5, epsilon, Noise("continuous", rng), 0.01)
        return float(0.0 <= answer <= 0.04)

    # Two clusters: the x median lies anywhere in the gap in D, at the right cluster in D'. With
    # 20 points each centre's two steps get a small share of the frame's epsilon, so the audit
    # detects 40 times the claim (not 20).
    points = np.c_[np.r_[np.linspace(-4, -2, 10), np.linspace(2, 4, 10)], np.linspace(-1, 1, 20)]
    points_prime = points.copy()
    points_prime[9, 0] = 3.0
    frame_data = (points, points_prime)

    def frame(which, epsilon, rng):
        plan = plan_frame(len(frame_data[which]), epsilon, "continuous", what="the audit's")
        points = ArrayValues(frame_data[which])
        return private_frame(points, plan, Noise("continuous", rng)).center[0]

    counts = (np.array([20.0, 20.0]), np.array([19.0, 21.0]))

    def additive(which, epsilon, rng, sampler="continuous"):
        mechanism = HistogramMechanism("add", epsilon, 1e-3, sampler)
        noisy = mechanism.randomise(counts[which], Noise(sampler, rng))
        return noisy[1] - noisy[0]

    def sparse(which, epsilon, rng, sampler="continuous"):
        mechanism = HistogramMechanism("sparse", epsilon, 0.05, sampler)
        noisy = mechanism.randomise(counts[which] + 10, Noise(sampler, rng))
        return noisy[1] - noisy[0]

    pair = (np.array([[0.0], [0.0]]), np.array([[0.0], [10.0]]))
    controls: dict[str, dict[str, object]] = {
        "clipped": {"C_clip": 1.0},
        "component": {"C_clip": 1.0, "clip_by": "component"},
        "pmwm": {"a": 0.0, "b": 1.0, "trim_const": 0.01, "eta": 0.0},
    }

    def discrete_kendall(which, epsilon, rng):
        released = dp_loading(
            kendall_data[which], epsilon, 1e-3, random_state=rng, sampler="discrete"
        ).kendall
        return released[0, 0] - released[1, 1]

    def discrete_upper(which, epsilon, rng):
        search = DurfeeQuantile(0.5, epsilon, 0.0, sampler="discrete")
        return search.release(quantile_data[which], Noise("discrete", rng))

    def discrete_additive(which, epsilon, rng):
        return additive(which, epsilon, rng, "discrete")

    def discrete_sparse(which, epsilon, rng):
        return sparse(which, epsilon, rng, "discrete")

    def scree(setting):
        method = "clipped" if setting == "component" else setting

        def run(which, epsilon, rng):
            result = dp_scree(
                pair[which],
                1,
                epsilon,
                1e-3,
                method=method,
                directions=[[1.0]],
                mono=False,
                control=controls[setting],
                random_state=rng,
                sampler="continuous",
            )
            return float(result.settings[method]["raw"][0])

        return run

    # 400 rows, one replaced by a far one: the private scale (a median of the 100 positive
    # squared half-differences) is located, so the one step's clipped gradient moves by its
    # sensitivity between the two.
    spread = np.random.default_rng(7).standard_normal((400, 1))
    far_row = (spread, np.r_[spread[:-1], [[1e3]]])
    huber_control = {"m2_frac": 0.25, "T": 1}

    def huber(which, epsilon, rng):
        result = dp_scree(
            far_row[which],
            1,
            epsilon,
            1e-3,
            method="huber",
            directions=[[1.0]],
            mono=False,
            control=huber_control,
            random_state=rng,
            sampler="continuous",
            on_weak="release",  # the audit measures the mechanism, not its use
        )
        return float(result.settings["huber"]["raw"][0])

    pca_data = (np.c_[far, np.zeros(n)], np.c_[far_prime, np.zeros(n)])

    def pipeline(which, epsilon, rng):
        result = dp_pca(
            pca_data[which],
            epsilon,
            3e-3,
            random_state=rng,
            on_weak="release",  # ten rows: the audit measures the directions' mechanism
            score={"bins": 2},
            scree={"k": 2},
            noise={"sampler": "continuous"},
        )
        return result.directions[0, 0] ** 2

    return {
        "dp_pca releases, tight composition": Scenario(
            "dp_pca releases, tight composition", 1.0, 1e-3, composed_pipeline("continuous"), 4.0
        ),
        "dp_pca releases, tight composition (discrete)": Scenario(
            "dp_pca releases, tight composition (discrete)",
            1.0,
            1e-3,
            composed_pipeline("discrete"),
            4.0,
        ),
        "Kendall matrix (Gaussian)": Scenario("Kendall matrix (Gaussian)", 1.0, 1e-3, kendall),
        "Kendall matrix, mixed extreme scales": Scenario(
            "Kendall matrix, mixed extreme scales", 1.0, 1e-3, mixed
        ),
        "one-sided quantile": Scenario("one-sided quantile", 1.0, 0.0, upper),
        "two-sided quantile": Scenario("two-sided quantile", 1.0, 0.0, signed, 8.0),
        "log-grid quantile (discrete)": Scenario(
            "log-grid quantile (discrete)", 1.0, 0.0, log_grid, 8.0
        ),
        "linear-grid quantile": Scenario("linear-grid quantile", 1.0, 0.0, linear_grid, 8.0),
        "frame": Scenario("frame", 1.0, 0.0, frame, 40.0),
        "additive histogram": Scenario("additive histogram", 1.0, 1e-3, additive),
        "sparse histogram": Scenario("sparse histogram", 1.0, 0.05, sparse),
        "scree (clipped)": Scenario("scree (clipped)", 1.0, 1e-3, scree("clipped")),
        "scree (clipped by component)": Scenario(
            "scree (clipped by component)", 1.0, 1e-3, scree("component")
        ),
        "scree (pmwm)": Scenario("scree (pmwm)", 1.0, 1e-3, scree("pmwm"), 12.0),
        "scree (huber)": Scenario("scree (huber)", 1.0, 1e-3, huber, 40.0),
        "dp_pca directions": Scenario("dp_pca directions", 1.5, 3e-3, pipeline, 30.0),
        "Kendall matrix (discrete)": Scenario(
            "Kendall matrix (discrete)", 1.0, 1e-3, discrete_kendall
        ),
        "one-sided quantile (discrete)": Scenario(
            "one-sided quantile (discrete)", 1.0, 0.0, discrete_upper
        ),
        # Integer outputs give the threshold events fewer places to cut: a larger factor.
        "additive histogram (discrete)": Scenario(
            "additive histogram (discrete)", 1.0, 1e-3, discrete_additive, 6.0
        ),
        "sparse histogram (discrete)": Scenario(
            "sparse histogram (discrete)", 1.0, 0.05, discrete_sparse
        ),
    }


def composed_pipeline(sampler: str) -> Callable[[int, float, np.random.Generator], float]:
    """The Gaussian releases of one :func:`~dppca.dp_pca` call (directions, scree, score
    histogram; ``n = 2000``, ``p = 3``, the default split), planned by the pipeline's own planner
    and tight composition for the total ``epsilon`` (``delta = 1e-3``), all on worst-case
    neighbours at once: in ``D'`` every release's statistic moves by its full sensitivity, as a
    replaced row may move all of them. The statistic is the sum over releases (and steps) of
    ``(y_1 - x_1) Delta / scale^2``, the likelihood-ratio direction of the composed Gaussian
    mechanisms, so the audit sees their composition; the pure-epsilon quantiles (the frame, the
    scree's clip) spend part of the total unseen, which only weakens the bound."""
    from dppca.orchestrator import PipelinePlanner
    from dppca.privacy.budget import Budget
    from dppca.privacy.composition import plan_mechanisms, planning_factor
    from dppca.privacy.mechanisms import GaussianMechanism, Noise
    from dppca.privacy.settings import NoiseSettings
    from dppca.privacy.split import PCASplit
    from dppca.releases.loading import LoadingSettings
    from dppca.releases.scores import ScoreSettings
    from dppca.releases.scree import ScreeSettings

    @functools.cache
    def mechanisms(epsilon: float) -> list[GaussianMechanism]:
        """The Gaussian mechanisms (a histogram's: its counts') planned for ``epsilon``."""
        total = Budget(epsilon, 1e-3)
        planner = PipelinePlanner(
            shape=(2000, 3),
            budgets=PCASplit.from_total(total, None, parts=("loading", "scree", "score")),
            k=3,
            private_scale=False,
            estimate_directions=True,
            loading=LoadingSettings(),
            scree=ScreeSettings(),
            score=ScoreSettings(),
            noise=NoiseSettings(sampler=sampler),
        )
        plans = planner(planning_factor(planner, epsilon, 1e-3, "tight"))
        found = [getattr(mechanism, "gaussian", mechanism) for mechanism in plan_mechanisms(plans)]
        return [mechanism for mechanism in found if isinstance(mechanism, GaussianMechanism)]

    def run(which: int, epsilon: float, rng: np.random.Generator) -> float:
        noise = Noise(sampler, rng)
        statistic = 0.0
        for gaussian in mechanisms(epsilon):
            values = np.zeros(gaussian.dimension)
            values[0] = which * gaussian.l2_sensitivity
            weight = gaussian.l2_sensitivity / gaussian.scale**2
            for _ in range(gaussian.compositions):
                statistic += float(gaussian.randomise(values, noise)[0]) * weight
        return statistic

    return run


def scenarios() -> dict[str, Scenario]:
    """The audited mechanisms, each on its worst-case neighbouring data sets."""
    return _scenarios()
