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
   (:func:`~dppca.releases.loading.schedule.centre_schedule`). Data far from the origin pay for
   the steps that travel to them on top of ``f``
   (:func:`~dppca.releases.loading.schedule.with_travel`, at most ``f`` more and half of what
   the caller would keep), so that the last three steps keep the share they get for data near
   the origin (on Cauchy data 200 from the origin at ``d = 50``, ``n = 2000``, epsilon 1 the
   centre was otherwise off by about a quarter of the scale, enough to turn the SSCM's first
   direction: sin Theta at ``k = 1`` went from 0.64 to 0.32 in 10 repetitions). The centre is
   the average of the last three steps' outputs weighted by the inverse of their noise variance
   (post-processing; on Cauchy data 1,000 from the origin at ``d = 50``, ``n = 2000``, epsilon
   1 it took sin Theta at ``k = 1`` from 0.75 to 0.44).

Each step (and the coarse location's noise) is a Gaussian mechanism whose share and clip are
fixed by earlier outputs, so they and whatever the caller releases with the rest of the budget
compose adaptively (Dong, Roth and Su 2022, Corollary 3.3); the medians add their epsilon by
basic composition, and the thresholds their coupling term (:mod:`dppca.privacy.modes`).
"""

from __future__ import annotations

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
from dppca.privacy.quantiles import GridQuantile
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

    def caller_share(self, extra_share: float) -> float:
        """The caller's share of the Gaussian budget: what the steps (:attr:`share`) and what
        the centre took beyond it (``extra_share``: :attr:`Centre.extra_share`, at most
        :attr:`most_extra`) leave."""
        return 1.0 - self.share - extra_share

    @property
    def most_extra(self) -> float:
        """The most a centre takes beyond :attr:`share`: the coarse location and the travel."""
        return MODES_LIMIT + travel_cap(self.share, MODES_LIMIT)

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
    shares (:func:`~dppca.releases.loading.schedule.median_epsilons`), the Gaussian budget of
    the rest with all of delta but the coarse location's thresholds' (named ``description`` in
    the ledger) and the steps' share of it; checks that every step's noise is a positive normal
    float at both ends of the clips' public range (before any charge). ``release_epsilon`` is
    the epsilon of the whole release the centre is part of (by default ``epsilon``): the coarse
    location's thresholds add ``(1 + e^epsilon) delta_c`` at that epsilon
    (:mod:`dppca.privacy.modes`)."""
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
    # A step's share is at least share / MAX_PARTS (an early step) and at most 8 / 9 of the
    # steps' share with the travel's (the last of 2): the noise is largest for the least share
    # at the largest clip, and least for the largest share at the least clip.
    most = (share + travel_cap(share, 0.0)) * 8.0 / 9.0
    for clip, part in ((CLIP_RANGE[1], share / MAX_PARTS), (CLIP_RANGE[0], most)):
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
    #: The share of the Gaussian budget the travelling steps added
    #: (:func:`~dppca.releases.loading.schedule.with_travel`).
    travel_share: float = 0.0

    @property
    def extra_share(self) -> float:
        """What the centre took beyond its plan's share: the coarse location and the travel."""
        return self.coarse_share + self.travel_share

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
                "their scale is beyond that range, or its median was not located at this n and "
                "epsilon; scale the data by a public constant or give more epsilon"
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
    *,
    travel: bool = True,
) -> Centre:
    """The centre of validated in-memory ``data`` released under ``plan``; the medians and the
    coarse location's thresholds are entered in ``ledger`` (as ``name``'s), the Gaussian budget
    is left to the caller, who spends the rest of it. ``travel``: pay the travelling steps on
    top of the plan's share (:func:`~dppca.releases.loading.schedule.with_travel`); False
    keeps every step within it."""
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
    added = 0.0
    if covered and travel:
        shares, added = with_travel(shares, n, d, strength, plan.share, coarse)
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
    in_range = CLIP_RANGE[0] < scale < CLIP_RANGE[1] and start < CLIP_RANGE[1]
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
        added,
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
