"""The private plotting frame of a score histogram (after the R package ``dppca``).

Four pure-DP grid quantiles (:mod:`dppca.privacy.quantiles`), all equivariant to the data's
units: a private scale ``s``, the median distance between random disjoint pairs of points (log
grid); the two coordinate medians on the linear grid of step ``s / 256`` (the grid reaches
65,536 scales from the origin) give the centre ``c``; the distances ``||s_i - c||`` give the
radius ``R`` at level ``q`` (log grid): 0.99, or less when the budget is small
(:func:`safe_level`). :func:`frame_shares` splits ``epsilon_F``: the scale and the centres get
1.5 times what locates them, the radius the rest. ``R`` is then extrapolated to the 0.99 level
as for a bivariate normal, whose squared distance is ``-2 ln(1 - q)`` times the scale at level
``q``:
``R_0.99 = R_q sqrt(ln 100 / -ln(1 - q))``. The frame is the square
``c +- (1 + inflate) R_0.99``, its half-width capped at 50 private scales.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dppca._validation import check_data, check_epsilon, check_random_state, check_real
from dppca.numerics.pairs import random_pairs
from dppca.numerics.row_values import ArrayValues, RowValues, column_of
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, Component, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.mechanisms import Noise, resolve_sampler
from dppca.privacy.quantiles import (
    GridQuantile,
    locating_reach,
    safe_level,
    warn_unlocatable,
)

DEFAULT_INFLATE = 0.2
RADIAL_LEVEL = 0.99
#: The scale and the centres get this multiple of the epsilon they need to be located; the
#: radius gets the rest (at least a quarter).
LOCATING_MARGIN = 1.5
#: Grid points of the centre's linear grid per unit of the private scale.
CENTRE_STEPS = 256
#: The half-width is at most this many private scales (post-processing of two releases): a
#: bivariate normal needs about 2.2 and a bivariate t with 3 degrees of freedom about 6, so the
#: cap only bounds a radius search that ran past the data (probability at most 0.1 %).
MAX_SCALES = 50.0
#: Public clamps of the frame (post-processing): every coordinate of the square stays within
#: ``1e151``, so distances and areas of points in it are finite floats.
FRAME_LIMIT = 1e150


@dataclass(frozen=True)
class Frame:
    """A square private frame.

    Attributes
    ----------
    center : ndarray of shape (2,)
        Private coordinate medians.
    half_width : float
        ``(1 + inflate) * distance_quantile * sqrt(ln 100 / -ln(1 - distance_level))``,
        at most ``MAX_SCALES = 50`` private scales and ``1e150`` (the centre's coordinates too).
    distance_quantile : float
        The private ``distance_level`` quantile of the distances from the centre.
    inflate : float
    privacy : PrivacyLedger
        The four quantile releases.
    distance_level : float
        The level of ``distance_quantile`` (0.99 unless the budget was too small for it).
    scale : float
        The private scale: the median distance between random disjoint pairs of points (NaN
        for frames read from an older file).

    Examples
    --------
    >>> import numpy as np, dppca
    >>> frame = dppca.dp_frame(np.random.default_rng(0).normal(size=(2000, 2)), 1.0, random_state=1)
    >>> (xlow, xhigh), (ylow, yhigh) = frame.limits()
    >>> bool(xhigh - xlow == yhigh - ylow == 2 * frame.half_width)
    True
    """

    center: np.ndarray
    half_width: float
    distance_quantile: float
    inflate: float
    privacy: PrivacyLedger = field(repr=False)
    distance_level: float = RADIAL_LEVEL
    scale: float = math.nan

    @property
    def xlim(self) -> tuple[float, float]:
        """The frame's horizontal limits."""
        return (float(self.center[0] - self.half_width), float(self.center[0] + self.half_width))

    @property
    def ylim(self) -> tuple[float, float]:
        """The frame's vertical limits."""
        return (float(self.center[1] - self.half_width), float(self.center[1] + self.half_width))

    def limits(self, center: bool = False) -> tuple[tuple[float, float], tuple[float, float]]:
        """``(xlim, ylim)``; with ``center=True`` shifted by the private centre (display only)."""
        if not center:
            return self.xlim, self.ylim
        return (-self.half_width, self.half_width), (-self.half_width, self.half_width)


def frame_shares(n: int, epsilon: float) -> list[float]:
    """Shares of the frame's epsilon for the scale, the two centres and the radius (public).

    The scale (a median of ``n // 2`` pair distances) and each centre (a median of ``n``
    values) need ``epsilon_min = 2 (ln G + ln 1000) / (m / 2 - 1)`` to be located
    (:func:`~dppca.privacy.quantiles.safe_level`); they get ``1.5`` times that, at most three
    quarters of ``epsilon`` together (in proportion when it is short), and the radius the rest,
    so that its level can approach 0.99.

    Examples
    --------
    >>> [round(share, 3) for share in frame_shares(2504, 0.467)]
    [0.208, 0.124, 0.124, 0.543]
    """

    def needed(m: int, grid: str) -> float:
        room = m / 2 - 1
        return math.inf if room <= 0 else locating_reach(1.0, grid) / room

    scale, centre = needed(n // 2, "log"), needed(n, "linear")
    total = scale + 2 * centre
    factor = min(LOCATING_MARGIN, 0.75 * epsilon / total) / epsilon if total < math.inf else 0.0
    if factor == 0.0:
        return [0.25, 0.25, 0.25, 0.25]
    shares = [scale * factor, centre * factor, centre * factor]
    return [*shares, 1.0 - sum(shares)]


@dataclass(frozen=True)
class FramePlan:
    """A validated frame release: its four quantile mechanisms, fixed by public values only
    (the centres' grid step is the private scale, given at release time)."""

    scale: GridQuantile
    centres: tuple[GridQuantile, GridQuantile]
    distance: GridQuantile
    inflate: float
    labels: tuple[str, str]
    prefix: str
    component: Component


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
) -> FramePlan:
    """The frame's mechanisms for ``n`` points at ``epsilon`` (split by :func:`frame_shares`).

    Refuses a budget that leaves one of the four quantiles with none (``what`` names the
    caller's budget) and warns, from public values before any charge, when the scale or a
    centre cannot be located (:func:`~dppca.privacy.quantiles.warn_unlocatable`).
    """
    parts = check_parts(split_epsilon(epsilon, frame_shares(n, epsilon)), what)
    scale_epsilon, *centre_epsilon, distance_epsilon = parts
    warn_unlocatable(n // 2, scale_epsilon, "log", f"{prefix}: scale")
    warn_unlocatable(n, centre_epsilon[0], "linear", f"{prefix}: centre")
    scale = GridQuantile(
        "log",
        safe_level(0.5, n // 2, scale_epsilon, "log"),
        scale_epsilon,
        sampler,
        description="pair distances",
    )
    x, y = (
        GridQuantile(
            "linear",
            safe_level(0.5, n, centre_epsilon[axis], "linear"),
            centre_epsilon[axis],
            sampler,
            description=f"{labels[axis]}, step scale/{CENTRE_STEPS}",
        )
        for axis in range(2)
    )
    distance = GridQuantile(
        "log",
        safe_level(RADIAL_LEVEL, n, distance_epsilon, "log"),
        distance_epsilon,
        sampler,
        description="distances to the centre",
    )
    return FramePlan(scale, (x, y), distance, inflate, labels, prefix, component)


def planar_distances(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``||second_i - first_i||`` of two-dimensional points, row by row (overflow gives inf,
    which the logarithmic grid counts at its last point)."""
    with np.errstate(over="ignore", invalid="ignore"):
        gaps = second - first
        return np.hypot(gaps[:, 0], gaps[:, 1])


def distances_to(points: np.ndarray, center: np.ndarray) -> np.ndarray:
    """``||points_i - center||`` of two-dimensional points (beyond the largest float: inf)."""
    with np.errstate(over="ignore"):
        return np.hypot(points[:, 0] - center[0], points[:, 1] - center[1])


def private_frame(scores: RowValues, plan: FramePlan, noise: Noise) -> Frame:
    """The frame of validated ``(n, 2)`` scores (in one array or in chunks) by a validated plan
    (the caller has charged its budget, delta 0); its ledger entries are named ``prefix: ...``."""
    ledger = PrivacyLedger()
    first, second = random_pairs(scores.shape[0], noise.rng)
    scale = plan.scale.release(scores.pairs(first, second, planar_distances), noise)
    plan.scale.record(ledger, f"{plan.prefix}: scale", plan.component)
    center = np.empty(2)
    for axis, mechanism in enumerate(plan.centres):
        centre = mechanism.release(scores.map(column_of, axis), noise, step=scale / CENTRE_STEPS)
        center[axis] = min(max(centre, -FRAME_LIMIT), FRAME_LIMIT)
        mechanism.record(ledger, f"{plan.prefix}: centre {plan.labels[axis]}", plan.component)
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
) -> Frame:
    """A square private frame for two-dimensional points (pure epsilon-DP).

    Parameters
    ----------
    scores : array-like of shape (n, 2)
        The points, for example PC scores. ``n`` is public.
    epsilon : float
        Budget (> 0), split by :func:`frame_shares` between a private scale (the median
        distance between random pairs), the two coordinate medians (on a grid of step
        scale/256) and the 0.99 quantile of the distances from that centre (a lower level when
        the budget is small, extrapolated to 0.99); all are exponential mechanisms over fixed
        grids.
    inflate : float, default 0.2
        The half-width is ``(1 + inflate) R_0.99``.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with (epsilon, 0) before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.

    Returns
    -------
    Frame

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
    plan = plan_frame(
        data.shape[0],
        epsilon,
        sampler,
        what=f"epsilon={epsilon:g}",
        inflate=inflate,
        labels=(names[0], names[1]),
    )
    rng = check_random_state(random_state)
    charge(accountant, Budget(epsilon, 0.0), "dp_frame")
    noise = Noise(sampler, rng)  # keyed after the charge: a refused call leaves rng untouched
    return private_frame(ArrayValues(data), plan, noise)
