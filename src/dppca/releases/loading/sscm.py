"""Private directions from the spatial sign covariance matrix about a private centre
(``statistic="sscm"``): its plan from public values and the release of a plan.

The release, for rows ``x_1..x_n`` in ``d`` variables and a budget (epsilon, delta):

1. two pure-DP medians, each with the share of epsilon that locates it (at least 5 %): the row
   norms' ``tau_0`` and the disjoint random pairs' half-distances' ``s`` (translation
   invariant), both on the logarithmic grid (equivariant to the data's units);
2. the rest, one Gaussian budget (:class:`~dppca.privacy.gaussian_budget.GaussianBudget`) of
   multiplier ``mu``, split in shares of ``mu^2``: the centre gets
   ``min(0.3, max(0.02, 12 sqrt(d) / (n mu)))``, the matrix the remainder;
3. ``T`` centre steps from ``c = 0``, each the clipped, soft-weighted mean of ``x_i - c``
   (:func:`~dppca.numerics.sscm.centre_step_sum`, sensitivity ``2 tau_t / n``) plus Gaussian
   noise, the next clip ``tau_{t+1} = sqrt(s^2 + 4 d sigma_t^2)``; ``T`` and every share follow
   from ``tau_0``, ``s`` and public values alone (:func:`centre_schedule`);
4. the matrix ``S = (1/n) sum_i w_i a_i a_i'`` about the centre (Frobenius sensitivity
   ``sqrt(2) / n``) plus symmetric Gaussian noise; the directions are its eigenvectors.

Privacy: the medians are ``(epsilon_tau + epsilon_s)``-DP by basic composition; given their
values, every later mechanism's share is fixed, and the shares add up to 1, so the Gaussian
parts together are ``mu``-GDP (Dong, Roth and Su 2022, Corollary 3.3; ``rho``-zCDP for the
discrete sampler, Bun and Steinke 2016), which is (epsilon - epsilon_tau - epsilon_s, delta)-DP;
basic composition gives (epsilon, delta). Every sensitivity includes the floating-point error of
the computed statistic (:mod:`dppca.numerics.sscm`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca.numerics.linalg import align_columns, covariance_pca, descending_eigh
from dppca.numerics.pairs import half_distances, random_pairs
from dppca.numerics.rows import sample_covariance
from dppca.numerics.sscm import (
    centre_mean_sensitivity,
    centre_step_sum,
    offsets,
    sscm,
    sscm_sensitivity,
)
from dppca.privacy.budget import Budget, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.gaussian_budget import GaussianBudget, GaussianPart
from dppca.privacy.mechanisms import Noise, check_noise_scale
from dppca.privacy.quantiles import GridQuantile, locating_reach
from dppca.privacy.requirements import Requirement
from dppca.results.loading import LoadingResult, NonPrivateLoading
from dppca.results.status import ReleaseStatus

#: The smallest share of epsilon each median gets.
MEDIAN_SHARE = 0.05
#: Each median gets this many times the share of epsilon that locates it, when that is more.
MEDIAN_MARGIN = 1.5
#: The centre's share of ``mu^2`` is ``CENTRE_CONSTANT sqrt(d) / (n mu)`` within these bounds.
CENTRE_CONSTANT = 12.0
CENTRE_SHARE_RANGE = (0.02, 0.3)
#: The most centre steps; every step but the last gets a ninth of the centre's share.
MAX_STEPS = 8
#: The clips are kept in this public range, so that every noise scale is a normal float.
CLIP_RANGE = (1e-250, 1e250)
#: The centre's coordinates are kept within this size.
CENTRE_LIMIT = 1e250
#: The public alternative to a private centre, as refusals name it.
KENDALL = "statistic='kendall' (translation invariant: no centre to locate)"


def median_epsilons(n: int, epsilon: float) -> tuple[float, float, bool]:
    """The shares of epsilon of the row norms' median (``n`` values) and the pair scale (``n / 2``
    values): each ``MEDIAN_MARGIN`` times what locates a log-grid median
    (:func:`~dppca.privacy.quantiles.locating_reach`), at least ``MEDIAN_SHARE epsilon``; and
    whether they fit in half of epsilon. When they do not, they are scaled down to half of it
    (the medians are then not located, which the requirement says).

    Examples
    --------
    >>> norms, scale, fits = median_epsilons(2000, 1.0)
    >>> round(norms, 3), round(scale, 3), fits
    (0.061, 0.122, True)
    """
    reach = locating_reach(1.0, "log")
    wanted = []
    for values in (n / 2.0 - 1.0, n / 4.0 - 1.0):
        located = MEDIAN_MARGIN * reach / values if values > 0 else math.inf
        wanted.append(max(MEDIAN_SHARE * epsilon, located))
    total = wanted[0] + wanted[1]
    fits = total <= epsilon / 2.0
    if not fits:
        wanted = [
            part * (epsilon / 2.0) / total if math.isfinite(total) else epsilon / 4.0
            for part in wanted
        ]
    return wanted[0], wanted[1], fits


def centre_share(n: int, d: int, strength: float) -> float:
    """The centre steps' share of the Gaussian budget: ``12 sqrt(d) / (n mu)`` within
    ``[0.02, 0.3]`` (public)."""
    low, high = CENTRE_SHARE_RANGE
    return min(high, max(low, CENTRE_CONSTANT * math.sqrt(d) / (n * strength)))


def centre_schedule(
    n: int, d: int, strength: float, tau0: float, scale: float
) -> tuple[list[float], bool]:
    """The centre steps' shares of the Gaussian budget, from the released ``tau0`` and ``scale``
    and public values only, and whether ``MAX_STEPS`` steps cover the distance.

    Each early step gets ``f / 9`` of the centre's share ``f`` (multiplier
    ``mu_step = mu sqrt(f / 9)``) and shrinks the centre's error by about
    ``rho = min(0.9, 4 sqrt(d) / (n mu_step))``; ``T = 1 + ceil(ln(tau0 / s) / ln(1 / rho))``
    steps, within ``[2, MAX_STEPS]``, bring it from ``tau0`` to ``s``; the last step gets the
    rest of ``f`` (at least ``2 f / 9``).

    Examples
    --------
    >>> shares, covered = centre_schedule(2000, 10, 1.0, 100.0, 1.0)
    >>> len(shares), round(sum(shares), 12), covered
    (4, 0.02, True)
    """
    share = centre_share(n, d, strength)
    step = share / 9.0
    rho = min(0.9, 4.0 * math.sqrt(d) / (n * strength * math.sqrt(step)))
    with np.errstate(over="ignore", divide="ignore"):
        ratio = float(np.float64(tau0) / np.float64(scale)) if scale > 0.0 else math.inf
    if not math.isfinite(ratio):  # beyond any number of steps
        needed = MAX_STEPS + 1
    else:
        needed = 1 + math.ceil(math.log(ratio) / math.log(1.0 / rho)) if ratio > 1.0 else 1
    covered = needed <= MAX_STEPS
    steps = min(MAX_STEPS, max(2, needed))
    return [step] * (steps - 1) + [share - (steps - 1) * step], covered


@dataclass(frozen=True)
class SSCMPlan:
    """A validated SSCM release, fixed by public values: the two medians, the Gaussian budget
    and the matrix's share and noise."""

    n: int
    p: int
    epsilon: float
    delta: float
    sampler: str
    norm_median: GridQuantile
    pair_scale: GridQuantile
    gaussian: GaussianBudget
    matrix_share: float
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, in release order (the Gaussian budget is
        every centre step and the matrix together)."""
        return [self.norm_median, self.pair_scale, self.gaussian]

    @property
    def sensitivity(self) -> float:
        """The matrix's Frobenius sensitivity."""
        return sscm_sensitivity(self.n, self.p)

    @property
    def sigma(self) -> float:
        """The matrix's noise sd (diagonal; off the diagonal ``sigma / sqrt(2)``)."""
        return self.matrix_mechanism.scale

    @property
    def matrix_mechanism(self) -> GaussianPart:
        """The matrix's share of the Gaussian budget, on ``vecd(S)``."""
        return self.gaussian.part(self.sensitivity, self.p * (self.p + 1) // 2, self.matrix_share)


def step_sensitivity(n: int, d: int) -> float:
    """The L2 sensitivity of a centre step's mean per unit of its clip: ``2 / n`` plus the
    floating-point error (:func:`~dppca.numerics.sscm.centre_mean_sensitivity`)."""
    return centre_mean_sensitivity(n, d)


def plan_sscm(shape: tuple[int, int], budget: Budget, sampler: str) -> SSCMPlan:
    """The plan for data of ``shape`` and a validated ``budget``: the medians' shares and
    requirements, the Gaussian budget, and checks that every noise scale is a positive normal
    float at both ends of the clips' public range (before any charge)."""
    n, d = shape
    epsilon, delta = budget.epsilon, budget.delta
    wanted_norm, wanted_scale, fits = median_epsilons(n, epsilon)
    norm_epsilon, scale_epsilon, gaussian_epsilon = check_parts(
        split_epsilon(
            epsilon,
            [
                wanted_norm / epsilon,
                wanted_scale / epsilon,
                1.0 - (wanted_norm + wanted_scale) / epsilon,
            ],
        ),
        f"epsilon={epsilon:g} for the SSCM",
    )
    requirements = (
        Requirement(
            "loading",
            "the SSCM's centre",
            fits,
            KENDALL,
            f"loading: the SSCM's centre: with n={n} at epsilon={epsilon:.3g} its medians "
            "cannot be located in half of epsilon; the directions are dominated by noise.",
        ),
    )
    norm_median = GridQuantile("log", 0.5, norm_epsilon, sampler, description="row norms")
    pair_scale = GridQuantile(
        "log", 0.5, scale_epsilon, sampler, description="pair half-distances", positive=True
    )
    gaussian = GaussianBudget(gaussian_epsilon, delta, sampler, "SSCM: centre steps and matrix")
    share = centre_share(n, d, gaussian.strength)
    plan = SSCMPlan(
        n,
        d,
        epsilon,
        delta,
        sampler,
        norm_median,
        pair_scale,
        gaussian,
        1.0 - share,
        requirements,
    )
    check_noise_scale(plan.sigma, "the SSCM")
    # A step's share is share / 9 (early steps) or, the last, between 2 share / 9 (T = 8) and
    # 8 share / 9 (T = 2): the noise is largest for the least share at the largest clip, and
    # least for the largest share at the least clip.
    for clip, part in ((CLIP_RANGE[1], share / 9.0), (CLIP_RANGE[0], share * 8.0 / 9.0)):
        unit = gaussian.part(step_sensitivity(n, d), d, part).scale
        check_noise_scale(unit * clip, f"a centre step at the clip {clip:g}")
    return plan


def clip_of(value: float) -> float:
    """``value`` within :data:`CLIP_RANGE` (NaN: its lower end)."""
    if math.isnan(value):
        return CLIP_RANGE[0]
    return min(max(value, CLIP_RANGE[0]), CLIP_RANGE[1])


def sscm_release(
    data: np.ndarray,
    names: list[str],
    plan: SSCMPlan,
    rng: np.random.Generator,
    *,
    non_private: bool = False,
) -> LoadingResult:
    """The release of a validated plan on validated in-memory data (the caller has charged the
    budget). Its status says "misplaced" when the schedule's steps could not cover the distance
    from the origin to the data (judged from the released medians): the callers then release
    the directions as NaN (:func:`unusable_loading`)."""
    n, d = data.shape
    noise = Noise(plan.sampler, rng)
    ledger = PrivacyLedger()
    _, norms = offsets(data, np.zeros(d))
    tau0 = plan.norm_median.release(norms, noise)
    plan.norm_median.record(ledger, "loading: SSCM row-norm median", "loading")
    first, second = random_pairs(n, rng)
    scale = plan.pair_scale.release(half_distances(data[first], data[second]), noise)
    plan.pair_scale.record(ledger, "loading: SSCM pair scale", "loading")
    shares, covered = centre_schedule(n, d, plan.gaussian.strength, tau0, scale)
    centre = np.zeros(d)
    tau = clip_of(tau0)
    unit = step_sensitivity(n, d)
    clips, sds = [], []
    for share in shares:
        part = plan.gaussian.part(unit * tau, d, share)
        step = part.randomise(centre_step_sum(data, centre, tau) / n, noise)
        centre = np.clip(centre + step, -CENTRE_LIMIT, CENTRE_LIMIT)
        clips.append(tau)
        sds.append(part.scale)
        tau = clip_of(math.hypot(scale, 2.0 * math.sqrt(d) * part.scale))
    last_sigma = sds[-1]
    matrix_clip = clip_of(math.hypot(scale, math.sqrt(d) * last_sigma))
    statistic = sscm(data, centre, matrix_clip)
    noisy = plan.matrix_mechanism.randomise_symmetric(statistic, noise)
    plan.gaussian.record(ledger, "loading: SSCM centre steps and matrix", "loading")
    eigenvalues, directions = descending_eigh(noisy)
    in_range = CLIP_RANGE[0] < scale and tau0 < CLIP_RANGE[1]
    status = ReleaseStatus()
    if not (covered and in_range):
        status = ReleaseStatus(
            "misplaced",
            f"the SSCM's centre could not be located: the data lie {tau0:.3g} from the origin "
            f"at a scale of {scale:.3g}, farther than {MAX_STEPS} centre steps reach at this "
            "n and epsilon; centre the data by a public constant, give more epsilon, or use "
            f"{KENDALL}",
        )
    reference = None
    if non_private:
        exact = sscm(data, centre, matrix_clip)
        _, vectors = descending_eigh(exact)
        covariance = sample_covariance(data)
        pca_eigenvalues, pca_vectors = covariance_pca(covariance, directions)
        reference = NonPrivateLoading(
            kendall=exact,
            kendall_directions=align_columns(vectors, directions),
            directions=pca_vectors,
            eigenvalues=pca_eigenvalues,
        )
    settings = {
        "statistic": "sscm",
        "transform": "spherical",
        "sampler": plan.sampler,
        "epsilon": plan.epsilon,
        "delta": plan.delta,
        "centre": centre.tolist(),
        "centre_steps": len(shares),
        "centre_shares": shares,
        "centre_clips": clips,
        "centre_noise_sd": sds,
        "matrix_clip": matrix_clip,
        "norm_median": tau0,
        "pair_scale": scale,
        "centre_share": 1.0 - plan.matrix_share,
    }
    return LoadingResult(
        directions=directions,
        kendall=noisy,
        kendall_eigenvalues=eigenvalues,
        sigma=plan.sigma,
        sensitivity=plan.sensitivity,
        radius=None,
        feature_names=names,
        n_samples=n,
        settings=settings,
        privacy=ledger,
        non_private=reference,
        status={"directions": status},
    )
