"""The private plotting frame of a score histogram (after the R package ``dppca``).

Pure-DP grid quantiles (:mod:`dppca.privacy.quantiles`), equivariant to the data's units and
working at any location:

1. a private scale ``s``: the median distance between random disjoint pairs of points (log
   grid; translation invariant);
2. each coordinate's median, in two steps: on the sign-and-magnitude grid ``0, +-10^(j/1000)``
   (any size and sign, relative resolution 0.23 %), giving ``m``; then on the linear window
   ``m + j w / 2^14``, ``|j| <= 2^14``, of half-width ``w = 0.0046 |m| + 8 s`` about it, which
   covers the first step's resolution and places the centre ``c`` to ``w / 2^14`` (``s / 2048``
   near the origin, ``2.8e-7 |m|`` far from it);
3. the distances ``||s_i - c||`` give the radius ``R`` at level ``q`` (log grid): 0.99, or less
   when the budget is small (:func:`safe_level`), extrapolated to the 0.99 level as for a
   bivariate normal, whose squared distance is ``-2 ln(1 - q)`` times the scale at level ``q``:
   ``R_0.99 = R_q sqrt(ln 100 / -ln(1 - q))``.

:func:`frame_shares` splits ``epsilon_F``: the scale and the centres get 1.5 times what locates
them (each centre's share split between its two steps in proportion to what each needs), the
radius the rest. The frame is the square ``c +- (1 + inflate) R_0.99``, its half-width capped at
50 private scales. A frame can also be public (:meth:`Frame.public`): limits known without the
data, at no cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from dppca._validation import check_data, check_epsilon, check_random_state, check_real
from dppca.numerics.grids import LINEAR_GRID_LIMIT
from dppca.numerics.permutation import random_permutation
from dppca.numerics.row_values import ArrayValues, RowValues, column_of
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, Component, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.mechanisms import Noise, resolve_sampler
from dppca.privacy.quantiles import GridQuantile, locating_reach, safe_level
from dppca.privacy.requirements import Requirement, check_on_weak, enforce, locating
from dppca.results.frame import FRAME_LIMIT, RADIAL_LEVEL, Frame

DEFAULT_INFLATE = 0.2
#: The scale and the centres get this multiple of the epsilon they need to be located; the
#: radius gets the rest (at least a quarter).
LOCATING_MARGIN = 1.5
#: The refining window's half-width: this many private scales, plus ``WINDOW_SPREAD |m|``
#: for the first step's relative resolution (two cells of the signed grid).
WINDOW_SCALES = 8.0
WINDOW_SPREAD = 2.0 * (10.0 ** (1.0 / 1000.0) - 1.0)
#: A public frame's alternative, as refusals name it.
PUBLIC_FRAME = "public limits, frame=((xmin, xmax), (ymin, ymax))"
#: The half-width is at most this many private scales (post-processing of two releases): a
#: bivariate normal needs about 2.2 and a bivariate t with 3 degrees of freedom about 6, so the
#: cap only bounds a radius search that ran past the data (probability at most 0.1 %).
MAX_SCALES = 50.0


def _needed(m: int, grid: str) -> float:
    """The epsilon that locates a grid median of ``m`` values (inf when none does)."""
    room = m / 2 - 1
    return math.inf if room <= 0 else locating_reach(1.0, grid) / room


def frame_shares(n: int, epsilon: float, spread: str = "private") -> list[float]:
    """Shares of the frame's epsilon for the scale, the two centres and the radius (public).

    The scale (a median of ``n // 2`` pair distances) and each centre (two medians of ``n``
    values, on the signed grid and on the linear window) need ``epsilon_min = 2 (ln G +
    ln 1000) / (m / 2 - 1)`` each to be located (:func:`~dppca.privacy.quantiles.safe_level`);
    they get ``1.5`` times that, at most three quarters of ``epsilon`` together (in proportion
    when it is short), and the radius the rest, so that its level can approach 0.99. With
    ``spread="given"`` (the spread comes from another release) the centres share all of it.

    Examples
    --------
    >>> [round(share, 3) for share in frame_shares(2504, 1.0)]
    [0.097, 0.092, 0.092, 0.72]
    >>> frame_shares(2504, 1.0, spread="given")
    [0.0, 0.5, 0.5, 0.0]
    """
    if spread == "given":
        return [0.0, 0.5, 0.5, 0.0]
    scale, centre = _needed(n // 2, "log"), _needed(n, "signed") + _needed(n, "linear")
    total = scale + 2 * centre
    factor = min(LOCATING_MARGIN, 0.75 * epsilon / total) / epsilon if total < math.inf else 0.0
    if factor == 0.0:
        return [0.25, 0.25, 0.25, 0.25]
    shares = [scale * factor, centre * factor, centre * factor]
    return [*shares, 1.0 - sum(shares)]


@dataclass(frozen=True)
class FramePlan:
    """A validated frame release: its quantile mechanisms, fixed by public values only (the
    refining windows' origin and step come from the released scale and first steps)."""

    #: The pair scale's and the distance quantile's mechanisms; None when the spread is given
    #: at release time (:func:`private_frame`'s ``spread``).
    scale: GridQuantile | None
    centres: tuple[tuple[GridQuantile, GridQuantile], tuple[GridQuantile, GridQuantile]]
    distance: GridQuantile | None
    inflate: float
    labels: tuple[str, str]
    prefix: str
    component: Component
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once, in release order."""
        steps = [self.scale, *self.centres[0], *self.centres[1], self.distance]
        return [quantile for quantile in steps if quantile is not None]


def plan_frame(
    n: int,
    epsilon: float,
    sampler: str,
    *,
    what: str,
    inflate: float = DEFAULT_INFLATE,
    labels: tuple[str, str] = ("x", "y"),
    prefix: str = "frame",
    component: Component = "frame",
    spread: str = "private",
) -> FramePlan:
    """The frame's mechanisms for ``n`` points at ``epsilon`` (split by :func:`frame_shares`).

    Refuses a budget that leaves one of the quantiles with none (``what`` names the caller's
    budget) and lists, from public values, what the budget must locate (the scale and each
    centre's two steps) in :attr:`FramePlan.requirements`. With ``spread="given"`` only the
    centres are planned: the spread is given at release time (:func:`private_frame`).
    """
    if spread == "given":
        scale_epsilon = distance_epsilon = 0.0
        centre_epsilon = check_parts(split_epsilon(epsilon, [0.5, 0.5]), what)
    else:
        parts = check_parts(split_epsilon(epsilon, frame_shares(n, epsilon)), what)
        scale_epsilon, *centre_epsilon, distance_epsilon = parts
    coarse, fine = _needed(n, "signed"), _needed(n, "linear")
    steps = [1.0, 1.0] if math.isinf(coarse + fine) else [coarse, fine]
    centre_parts = [
        check_parts(split_epsilon(part, [step / sum(steps) for step in steps]), what)
        for part in centre_epsilon
    ]
    requirements = [
        locating(prefix, "centre", n, centre_parts[0][0], "signed", PUBLIC_FRAME),
        locating(prefix, "centre", n, centre_parts[0][1], "linear", PUBLIC_FRAME),
    ]
    scale = distance = None
    if spread != "given":
        requirements.insert(
            0, locating(prefix, "scale", n // 2, scale_epsilon, "log", PUBLIC_FRAME)
        )
        requirements.append(
            locating(prefix, "distance quantile", n, distance_epsilon, "log", PUBLIC_FRAME)
        )
        scale = GridQuantile(
            "log",
            safe_level(0.5, n // 2, scale_epsilon, "log"),
            scale_epsilon,
            sampler,
            description="pair distances",
            positive=True,  # pairs of duplicated points (distance 0) are left out
        )
        distance = GridQuantile(
            "log",
            safe_level(RADIAL_LEVEL, n, distance_epsilon, "log"),
            distance_epsilon,
            sampler,
            description="distances to the centre",
        )

    def median(grid: str, epsilon: float, what: str) -> GridQuantile:
        level = safe_level(0.5, n, epsilon, grid)
        return GridQuantile(grid, level, epsilon, sampler, description=what)

    x, y = (
        (
            median("signed", centre_parts[axis][0], f"{labels[axis]}, sign and magnitude"),
            median("linear", centre_parts[axis][1], f"{labels[axis]}, window about the first step"),
        )
        for axis in range(2)
    )
    return FramePlan(
        scale, (x, y), distance, inflate, labels, prefix, component, tuple(requirements)
    )


def planar_distances(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``||second_i - first_i||`` of two-dimensional points, row by row (overflow gives inf,
    which the logarithmic grid counts at its last point)."""
    with np.errstate(over="ignore", invalid="ignore"):
        gaps = second - first
        return cast("np.ndarray", np.hypot(gaps[:, 0], gaps[:, 1]))


def distances_to(points: np.ndarray, center: np.ndarray) -> np.ndarray:
    """``||points_i - center||`` of two-dimensional points (beyond the largest float: inf)."""
    with np.errstate(over="ignore"):
        return cast("np.ndarray", np.hypot(points[:, 0] - center[0], points[:, 1] - center[1]))


#: A given spread is clamped into this range, so that the refining window's step is a
#: positive normal float (an unusable spread gives an unusable frame, marked as such).
SPREAD_RANGE = (1e-300, 1e300)


def private_frame(
    scores: RowValues, plan: FramePlan, noise: Noise, spread: float | None = None
) -> Frame:
    """The frame of validated ``(n, 2)`` scores (in one array or in chunks) by a validated plan
    (the caller has charged its budget, delta 0); its ledger entries are named ``prefix: ...``.

    A plan without a scale takes ``spread``, the standard deviation of the wider axis from
    another release (for example the private scree, at no cost): the refining windows are in
    its units and the half-width is ``(1 + inflate) sqrt(2 ln 100) spread``, the 0.99 radial
    quantile of a bivariate normal whose wider axis has that spread.
    """
    ledger = PrivacyLedger()
    if plan.scale is None:
        given = SPREAD_RANGE[0] if spread is None or math.isnan(spread) else spread
        scale = min(max(given, SPREAD_RANGE[0]), SPREAD_RANGE[1])
    else:
        pairs = random_permutation(scores.shape[0], noise.rng)
        scale = plan.scale.release(scores.pairs(pairs, planar_distances), noise)
        plan.scale.record(ledger, f"{plan.prefix}: scale", plan.component)
    center = np.empty(2)
    for axis, (signed, window) in enumerate(plan.centres):
        values = scores.map(column_of, axis)
        located = signed.release(values, noise)
        signed.record(
            ledger, f"{plan.prefix}: centre {plan.labels[axis]} (first step)", plan.component
        )
        window_width = WINDOW_SPREAD * abs(located) + WINDOW_SCALES * scale
        step = window_width / LINEAR_GRID_LIMIT
        centre = window.release(values, noise, step=step, origin=located)
        window.record(ledger, f"{plan.prefix}: centre {plan.labels[axis]}", plan.component)
        center[axis] = min(max(centre, -FRAME_LIMIT), FRAME_LIMIT)
    if plan.distance is None:
        level = RADIAL_LEVEL
        distance_quantile = min(math.sqrt(2.0 * math.log(100.0)) * scale, FRAME_LIMIT)
    else:
        distances = scores.map(distances_to, center)
        distance_quantile = min(plan.distance.release(distances, noise), FRAME_LIMIT)
        plan.distance.record(ledger, f"{plan.prefix}: distance quantile", plan.component)
        level = plan.distance.level
    extrapolation = math.sqrt(math.log(1.0 / (1.0 - RADIAL_LEVEL)) / -math.log1p(-level))
    half_width = (1.0 + plan.inflate) * extrapolation * distance_quantile
    half_width = min(half_width, MAX_SCALES * scale, FRAME_LIMIT)
    return Frame(
        center=center,
        half_width=half_width,
        distance_quantile=distance_quantile,
        inflate=plan.inflate,
        privacy=ledger,
        distance_level=level,
        scale=scale,
    )


def dp_frame(
    scores: Any,
    epsilon: float,
    *,
    inflate: float = DEFAULT_INFLATE,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    on_weak: str = "refuse",
) -> Frame:
    """A square private frame for two-dimensional points (pure epsilon-DP).

    Parameters
    ----------
    scores : array-like of shape (n, 2)
        The points, for example PC scores. ``n`` is public.
    epsilon : float
        Budget (> 0), split by :func:`frame_shares` between a private scale (the median
        distance between random pairs), the two coordinate medians (each on the
        sign-and-magnitude grid, then on a window about that answer in units of the scale)
        and the 0.99 quantile of the distances from that centre (a lower level when the budget
        is small, extrapolated to 0.99); all are exponential mechanisms over public grids.
    inflate : float, default 0.2
        The half-width is ``(1 + inflate) R_0.99``.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with (epsilon, 0) before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        Exact integer noise on a secure stream (``"discrete"``, what None means unless the
        calibration is classical) or numpy's floating-point noise, for studies
        (:class:`~dppca.NoiseSettings` says more).
    on_weak : {"refuse", "release"}, default "refuse"
        When epsilon cannot locate the scale and the centre at this ``n`` (public values,
        :mod:`dppca.privacy.requirements`): refuse before the charge, naming the smallest
        epsilon and ``n`` that would, or release anyway (for studies) with a warning.

    Returns
    -------
    Frame

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when the frame cannot be located (nothing is spent).

    Examples
    --------
    >>> from dppca import dp_frame
    >>> import numpy as np
    >>> points = np.random.default_rng(0).normal(size=(5000, 2))
    >>> frame = dp_frame(points, 1.0, random_state=1)
    >>> bool(np.all(np.abs(frame.center) < 0.2)) and 2.5 < frame.half_width < 5.0
    True
    """
    data, names = check_data(scores, "scores")
    if data.shape[1] != 2:
        raise ValueError(f"scores must have exactly 2 columns; got {data.shape[1]}.")
    epsilon = check_epsilon(epsilon)
    inflate = check_real(inflate, "inflate", low=0.0, high=1e3, low_inclusive=True)
    sampler = resolve_sampler(sampler)
    on_weak = check_on_weak(on_weak)

    def planned(n: int, budget: float) -> FramePlan:
        return plan_frame(
            n,
            budget,
            sampler,
            what=f"epsilon={budget:g}",
            inflate=inflate,
            labels=(names[0], names[1]),
        )

    plan = planned(data.shape[0], epsilon)
    enforce(
        lambda n, budget: planned(n, budget).requirements,
        data.shape[0],
        epsilon,
        on_weak,
        "dp_frame",
    )
    rng = check_random_state(random_state)
    charge(accountant, Budget(epsilon, 0.0), "dp_frame")
    noise = Noise(sampler, rng)  # keyed after the charge: a refused call leaves rng untouched
    return private_frame(ArrayValues(data), plan, noise)
