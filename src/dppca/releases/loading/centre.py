"""A private robust centre of the rows, found in clipped steps from the origin or, for data far
from it, from a private coarse location: its plan from public values and its release. The
SSCM's directions are taken about it; Analyze Gauss among the baselines is centred by it.

For rows ``x_1..x_n`` in ``d`` variables, (epsilon, delta) and a sampler:

1. two pure-DP medians, each with the share of epsilon that locates it (at least 5 %): the row
   norms' ``tau_0`` and the disjoint random pairs' half-distances' ``s`` (translation
   invariant), both on the logarithmic grid (equivariant to the data's units);
2. the rest, one Gaussian budget (:class:`~dppca.privacy.gaussian_budget.GaussianBudget`) of
   multiplier ``mu`` and 99 % of delta, shared with the caller's own release: the centre gets
   the share ``f = min(0.3, max(0.02, 12 sqrt(d) / (n mu)))`` of ``mu^2``;
3. where 8 steps of ``f / 9`` cannot come from ``tau_0`` down to ``s`` (the data lie far from
   the origin for their scale) and the coarse location is affordable, it is taken first: each
   variable's most frequent bin of width ``4 s`` on a randomly shifted grid, from Gaussian noise
   on the occupied bins' counts kept above a public threshold
   (:class:`~dppca.privacy.modes.ColumnModes`, whose thresholds spend the last 1 % of delta),
   with the share of ``mu^2`` that lets a bin of half the rows pass it by 2 noise sd; the
   steps then start from the bins' middles with the clip ``sqrt(d + 1) 4 s``, and
   the search costs the same at any distance from the origin (Karwa and Vadhan 2018 locate a
   mean so);
4. ``T`` steps, each the clipped, soft-weighted mean of ``x_i - c``
   (:func:`~dppca.numerics.sscm.centre_step_sum`, sensitivity ``2 tau_t / n``) plus Gaussian
   noise, the next clip ``tau_{t+1} = max(sqrt(s^2 + 4 d sigma_t^2), tau_t / 4)``: enough
   steps to come from the first clip down to ``s``, and two more at clips near ``s`` to
   converge there; ``T`` and every share follow from ``tau_0``, ``s`` and public values alone
   (:func:`centre_schedule`). The centre is the average of the last three steps' outputs
   weighted by the inverse of their noise variance (post-processing; on Cauchy data 1,000 from
   the origin at ``d = 50``, ``n = 2000``, epsilon 1 it took sin Theta at ``k = 1`` from 0.75
   to 0.44).

Each step (and the coarse location's noise) is a Gaussian mechanism whose share and clip are
fixed by earlier outputs, so they and whatever the caller releases with the rest of the budget
compose adaptively (Dong, Roth and Su 2022, Corollary 3.3); the medians add their epsilon by
basic composition, and the thresholds their coupling term (:mod:`dppca.privacy.modes`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from dppca.numerics.bins import bin_centres, column_bins, random_offsets
from dppca.numerics.pairs import half_distances
from dppca.numerics.permutation import random_permutation
from dppca.numerics.sscm import centre_mean_sensitivity, centre_step_sum, offsets
from dppca.privacy.budget import Component, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.gaussian_budget import GaussianBudget
from dppca.privacy.mechanisms import Noise, check_noise_scale
from dppca.privacy.modes import COUPLING_SHARE, ColumnModes
from dppca.privacy.quantiles import GridQuantile, locating_reach

#: The smallest share of epsilon each median gets.
MEDIAN_SHARE = 0.05
#: Each median gets this many times the share of epsilon that locates it, when that is more.
MEDIAN_MARGIN = 1.5
#: The centre's share of ``mu^2`` is ``CENTRE_CONSTANT sqrt(d) / (n mu)`` within these bounds.
CENTRE_CONSTANT = 12.0
CENTRE_SHARE_RANGE = (0.02, 0.3)
#: Every step but the last gets the centre's share over ``parts``: 9, or up to ``MAX_PARTS``
#: when 8 steps of a ninth cannot cover the distance (more, smaller steps reach farther).
PARTS = 9
MAX_PARTS = 24
#: A clip is at least this fraction of the one before: a step's bias (a clipped mean pulled by
#: outliers or heavy tails) is then within the next step's reach.
SHRINK = 0.25
#: Steps at a clip near the scale once the distance is covered: the clipped steps converge
#: there by a factor, not at once (slowly on heavy tails).
POLISH = 2
#: The most centre steps.
MAX_STEPS = MAX_PARTS - 1
#: The clips are kept in this public range, so that every noise scale is a normal float.
CLIP_RANGE = (1e-250, 1e250)
#: The centre's coordinates are kept within this size.
CENTRE_LIMIT = 1e250
#: The coarse location's bins are this many pair scales wide.
BIN_SCALES = 4.0
#: Its share of ``mu^2`` lets a bin holding ``MODE_FRACTION`` of the rows pass the threshold by
#: ``MODE_MARGIN`` noise sd; it is taken, from the caller's part of the budget, when that share
#: is at most ``MODES_LIMIT``.
MODE_FRACTION = 0.5
MODE_MARGIN = 2.0
MODES_LIMIT = 0.4


def locating_epsilon(values: float, epsilon: float) -> float:
    """``MEDIAN_MARGIN`` times the epsilon that locates a log-grid median of ``values`` values
    (:func:`~dppca.privacy.quantiles.locating_reach`), at least ``MEDIAN_SHARE epsilon``."""
    located = MEDIAN_MARGIN * locating_reach(1.0, "log") / values if values > 0 else math.inf
    return max(MEDIAN_SHARE * epsilon, located)


def median_epsilons(n: int, epsilon: float) -> tuple[float, float, bool]:
    """The shares of epsilon of the row norms' median (``n`` values) and the pair scale (``n / 2``
    values): each ``MEDIAN_MARGIN`` times what locates a log-grid median
    (:func:`~dppca.privacy.quantiles.locating_reach`), at least ``MEDIAN_SHARE epsilon``; and
    whether they fit in half of epsilon. When they do not, they are scaled down to half of it
    (the medians are then not located, which the caller's requirement says).

    Examples
    --------
    >>> norms, scale, fits = median_epsilons(2000, 1.0)
    >>> round(norms, 3), round(scale, 3), fits
    (0.061, 0.122, True)
    """
    wanted = [locating_epsilon(values, epsilon) for values in (n / 2.0 - 1.0, n / 4.0 - 1.0)]
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
    n: int,
    d: int,
    strength: float,
    tau0: float,
    scale: float,
    *,
    share: float | None = None,
    max_parts: int = MAX_PARTS,
) -> tuple[list[float], bool]:
    """The centre steps' shares of the Gaussian budget, from the first clip ``tau0``, the
    released ``scale`` and public values only, and whether the steps cover the distance.

    With the steps' share ``f`` (by default :func:`centre_share`) cut in ``m`` parts, each
    early step gets ``f / m`` (multiplier ``mu_step = mu sqrt(f / m)``) and shrinks the
    centre's error by about ``rho = min(0.9, max(1/4, 4 sqrt(d) / (n mu_step)))`` while it is
    farther than the scale (never faster than by 4: the clips shrink by at most that, so that a
    step pulled aside by outliers, 5 % of rows at 1000 once left the centre 30 off, is within
    the next one's reach);
    ``1 + ceil(ln(tau0 / s) / ln(1 / rho))`` steps bring it from ``tau0`` to ``s``, and
    ``POLISH`` (2) more at clips near ``s`` let the clipped steps converge there (each shrinks
    what is left by a factor, slowly on heavy tails, where stopping at ``s`` left the
    centre off by a tenth of the scale); the last step gets the rest of ``f`` (at least
    ``2 f / m``). ``m`` is 9 when those ``T`` steps number at most 8, otherwise the least ``m``
    up to ``max_parts`` with ``T <= m - 1``: more steps of smaller shares reach farther, until
    their noise undoes their progress; where no ``m`` gives room for the polishing steps, fewer
    of them are taken. When none covers the distance, 8 steps of ``f / 9`` are taken and the
    centre is marked.

    Examples
    --------
    >>> shares, covered = centre_schedule(2000, 10, 1.0, 100.0, 1.0)
    >>> len(shares), round(sum(shares), 12), covered
    (7, 0.02, True)
    >>> shares, covered = centre_schedule(2000, 50, 0.18, 1400.0, 6.0)  # 8 steps do not reach
    >>> len(shares), round(shares[0] / sum(shares), 4), covered
    (13, 0.0714, True)
    """
    if share is None:
        share = centre_share(n, d, strength)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = float(np.float64(tau0) / np.float64(scale)) if scale > 0.0 else math.inf
    for polish, parts in itertools.product(range(POLISH, -1, -1), range(PARTS, max_parts + 1)):
        step = share / parts
        rho = min(0.9, max(SHRINK, 4.0 * math.sqrt(d) / (n * strength * math.sqrt(step))))
        if not math.isfinite(ratio):  # beyond any number of steps
            break
        needed = 1 + math.ceil(math.log(ratio) / math.log(1.0 / rho)) if ratio > 1.0 else 1
        if needed + polish <= parts - 1:
            steps = max(2, needed + polish)
            return [step] * (steps - 1) + [share - (steps - 1) * step], True
    step = share / PARTS
    return [step] * (PARTS - 2) + [share - (PARTS - 2) * step], False


def modes_share(n: int, strength: float, modes: ColumnModes) -> float:
    """The coarse location's share of ``mu^2``: its noise sd ``sigma = sqrt(2 d) / (mu
    sqrt(f))`` lets a bin of ``MODE_FRACTION n`` rows pass the threshold ``z sigma`` by
    ``MODE_MARGIN sigma``: ``f = (sqrt(2 d) (z + 2) / (n mu / 2))^2`` (public).

    Examples
    --------
    >>> modes = ColumnModes(50, 1.0, 0.01 / 20000**2)
    >>> round(modes_share(20000, 0.2, modes), 4), round(modes_share(2000, 0.2, modes), 3)
    (0.0024, 0.235)
    """
    if not modes.usable:  # no threshold at this epsilon: never affordable
        return math.inf
    needed = modes.sensitivity * (modes.threshold(1.0) + MODE_MARGIN)
    return float((needed / (MODE_FRACTION * n * strength)) ** 2)


def step_sensitivity(n: int, d: int) -> float:
    """The L2 sensitivity of a centre step's mean per unit of its clip: ``2 / n`` plus the
    floating-point error (:func:`~dppca.numerics.sscm.centre_mean_sensitivity`)."""
    return centre_mean_sensitivity(n, d)


def clip_of(value: float) -> float:
    """``value`` within :data:`CLIP_RANGE` (NaN: its lower end)."""
    if math.isnan(value):
        return CLIP_RANGE[0]
    return min(max(value, CLIP_RANGE[0]), CLIP_RANGE[1])


@dataclass(frozen=True)
class CentrePlan:
    """The centre's mechanisms, fixed by public values: the two medians and the Gaussian budget
    whose :attr:`share` the steps spend (the caller spends the rest)."""

    n: int
    d: int
    norm_median: GridQuantile
    pair_scale: GridQuantile
    gaussian: GaussianBudget
    share: float
    #: Whether the medians get the epsilon that locates them.
    located: bool
    #: The coarse location, taken for data far from the origin.
    modes: ColumnModes
    #: Whether the coarse location is affordable (:data:`MODES_LIMIT`): the centre is then
    #: found at any distance from the origin; otherwise only within the steps' reach.
    anywhere: bool

    def caller_share(self, coarse_share: float) -> float:
        """The caller's share of the Gaussian budget: what the steps (:attr:`share`) and the
        coarse location (``coarse_share``, at most ``MODES_LIMIT``) leave."""
        return 1.0 - self.share - coarse_share

    def mechanisms(self) -> list[object]:
        """Every mechanism the centre may draw from (the Gaussian budget is shared with the
        caller's release)."""
        return [self.norm_median, self.pair_scale, self.modes, self.gaussian]

    def locate(
        self,
        data: np.ndarray,
        noise: Noise,
        rng: np.random.Generator,
        ledger: PrivacyLedger,
        name: str,
        component: Component = "loading",
    ) -> Centre:
        """The released centre (:func:`locate_centre`)."""
        return locate_centre(data, self, noise, rng, ledger, name, component)


def release_pair_scale(
    data: np.ndarray,
    quantile: GridQuantile,
    noise: Noise,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    name: str,
    component: Component,
) -> float:
    """The private median ``s`` of the half-distances within disjoint random pairs of rows
    (translation invariant), entered in ``ledger`` as ``name``'s pair scale."""
    first, second = random_permutation(len(data), rng).pairs()
    scale = quantile.release(half_distances(data[first], data[second]), noise)
    quantile.record(ledger, f"{name} pair scale", component)
    return scale


def plan_centre(
    shape: tuple[int, int],
    epsilon: float,
    delta: float,
    sampler: str,
    description: str,
    *,
    release_epsilon: float | None = None,
) -> CentrePlan:
    """The centre's plan for data of ``shape`` and a validated (epsilon, delta): the medians'
    shares (:func:`median_epsilons`), the Gaussian budget of the rest with all of delta but the
    coarse location's thresholds' (named ``description`` in the ledger) and the steps' share of
    it; checks that every step's noise is a positive normal float at both ends of the clips'
    public range (before any charge). ``release_epsilon`` is the epsilon of the whole release
    the centre is part of (by default ``epsilon``): the coarse location's thresholds add
    ``(1 + e^epsilon) delta_c`` at that epsilon (:mod:`dppca.privacy.modes`)."""
    n, d = shape
    wanted_norm, wanted_scale, located = median_epsilons(n, epsilon)
    norm_epsilon, scale_epsilon, gaussian_epsilon = check_parts(
        split_epsilon(
            epsilon,
            [
                wanted_norm / epsilon,
                wanted_scale / epsilon,
                1.0 - (wanted_norm + wanted_scale) / epsilon,
            ],
        ),
        f"epsilon={epsilon:g} for a private centre",
    )
    steps_delta, modes_delta = split_epsilon(delta, [1.0 - COUPLING_SHARE, COUPLING_SHARE])
    gaussian = GaussianBudget(gaussian_epsilon, steps_delta, sampler, description)
    share = centre_share(n, d, gaussian.strength)
    modes = ColumnModes(d, epsilon if release_epsilon is None else release_epsilon, modes_delta)
    # A step's share is at least share / MAX_PARTS (an early step) and at most 8 share / 9 (the
    # last of 2): the noise is largest for the least share at the largest clip, and least for
    # the largest share at the least clip.
    for clip, part in ((CLIP_RANGE[1], share / MAX_PARTS), (CLIP_RANGE[0], share * 8.0 / 9.0)):
        unit = gaussian.part(step_sensitivity(n, d), d, part).scale
        check_noise_scale(unit * clip, f"a centre step at the clip {clip:g}")
    return CentrePlan(
        n,
        d,
        GridQuantile("log", 0.5, norm_epsilon, sampler, description="row norms"),
        GridQuantile(
            "log", 0.5, scale_epsilon, sampler, description="pair half-distances", positive=True
        ),
        gaussian,
        share,
        located,
        modes,
        modes_share(n, gaussian.strength, modes) <= MODES_LIMIT,
    )


@dataclass(frozen=True)
class Centre:
    """A released centre and how it was found (every value here is private output or public)."""

    location: np.ndarray
    #: The row norms' median ``tau_0`` (None about a public centre) and the pairs'
    #: half-distance median ``s``.
    norm_median: float | None
    pair_scale: float
    #: Each step's share of the Gaussian budget, clip and noise sd.
    shares: list[float]
    clips: list[float]
    noise_sds: list[float]
    #: Whether the steps could cover the distance from their start to the data.
    reached: bool
    #: The coarse location's share of the Gaussian budget (0: not taken), and whether every
    #: variable's bin passed its threshold.
    coarse_share: float = 0.0
    coarse_found: bool = True
    #: Each step's output (the location is the weighted average of the last three).
    iterates: tuple[np.ndarray, ...] = ()

    @property
    def problem(self) -> str | None:
        """Why the centre cannot be trusted, and what would help, or None."""
        if not self.coarse_found:
            return (
                "in some variable no bin of the coarse location held enough rows to pass its "
                "threshold at this n and epsilon; give more epsilon or a public center"
            )
        if self.reached:
            return None
        if not CLIP_RANGE[0] < self.pair_scale < CLIP_RANGE[1]:
            return (
                f"the pair scale {self.pair_scale:.3g} is outside the clips' public range "
                f"[{CLIP_RANGE[0]:g}, {CLIP_RANGE[1]:g}]: the rows are (nearly) all identical, "
                "or their scale is beyond that range; scale the data by a public constant"
            )
        return (
            f"the data lie {self.norm_median or 0.0:.3g} from the origin at a scale of "
            f"{self.pair_scale:.3g}, farther than up to {MAX_STEPS} centre steps reach at this "
            "n and epsilon; give more epsilon or a public center"
        )


def locate_centre(
    data: np.ndarray,
    plan: CentrePlan,
    noise: Noise,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    name: str,
    component: Component = "loading",
) -> Centre:
    """The centre of validated in-memory ``data`` released under ``plan``; the medians and the
    coarse location's thresholds are entered in ``ledger`` (as ``name``'s), the Gaussian budget
    is left to the caller, who spends the rest of it."""
    n, d = data.shape
    _, norms = offsets(data, np.zeros(d))
    tau0 = plan.norm_median.release(norms, noise)
    plan.norm_median.record(ledger, f"{name} row-norm median", component)
    scale = release_pair_scale(data, plan.pair_scale, noise, rng, ledger, name, component)
    strength = plan.gaussian.strength
    location = np.zeros(d)
    coarse, found, start = 0.0, True, tau0
    shares, covered = centre_schedule(n, d, strength, start, scale, max_parts=PARTS)
    needed = modes_share(n, strength, plan.modes)
    if not covered and needed <= MODES_LIMIT and CLIP_RANGE[0] < scale < CLIP_RANGE[1]:
        coarse = needed
        location, found = _coarse_location(data, plan, scale, coarse, noise, rng)
        start = clip_of(math.hypot(math.sqrt(d) * BIN_SCALES * scale, BIN_SCALES * scale))
        shares, covered = centre_schedule(n, d, strength, start, scale)
    elif not covered:
        shares, covered = centre_schedule(n, d, strength, start, scale)
    plan.modes.record(ledger, f"{name} coarse location", component, used=coarse > 0.0)
    tau = clip_of(start)
    unit = step_sensitivity(n, d)
    clips, sds, iterates = [], [], []
    for share in shares:
        part = plan.gaussian.part(unit * tau, d, share)
        step = part.randomise(centre_step_sum(data, location, tau) / n, noise)
        location = np.clip(location + step, -CENTRE_LIMIT, CENTRE_LIMIT)
        iterates.append(location)
        clips.append(tau)
        sds.append(part.scale)
        noise_reach = math.hypot(scale, 2.0 * math.sqrt(d) * part.scale)
        tau = clip_of(max(noise_reach, SHRINK * tau))
    # The last steps, at clips near the scale, each land near the same point with their own
    # noise: their inverse-variance average (post-processing) has less noise than the last.
    last = np.array(sds[-(POLISH + 1) :])
    weights = np.square(last.min() / last)  # in (0, 1], whatever the units
    location = (weights / weights.sum()) @ np.array(iterates[-(POLISH + 1) :])
    in_range = CLIP_RANGE[0] < scale and start < CLIP_RANGE[1]
    return Centre(
        location,
        float(tau0),
        scale,
        shares,
        clips,
        sds,
        covered and in_range,
        coarse,
        found,
        tuple(iterates),
    )


def _coarse_location(
    data: np.ndarray,
    plan: CentrePlan,
    scale: float,
    share: float,
    noise: Noise,
    rng: np.random.Generator,
) -> tuple[np.ndarray, bool]:
    """The middles of each variable's most frequent bin of width ``BIN_SCALES scale`` on a grid
    shifted by a uniform public offset, and whether every variable's bin was found (else the
    origin)."""
    d = data.shape[1]
    width = BIN_SCALES * scale
    offsets_ = random_offsets(d, rng)
    part = plan.gaussian.part(plan.modes.sensitivity, 1, share, integer=True)
    keys = plan.modes.release(column_bins(data, width, offsets_), part, noise)
    centres = bin_centres(keys, width, offsets_)
    if not np.all(np.abs(centres) <= CENTRE_LIMIT):  # NaN, inf or beyond the centres' range
        return np.zeros(d), False
    return centres, True
