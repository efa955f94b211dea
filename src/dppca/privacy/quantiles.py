"""Private quantiles on public grids, which the package's automatic tunings use.

The exponential mechanism over a fixed public grid (logarithmic for positive values, linear in
units of a private scale for signed ones) is bounded by the grid, never runs away, and is
equivariant to the data's units (:func:`log_quantile`, :func:`linear_quantile`). Its level
follows :func:`safe_level`, so that the answer lies within the data with probability at least
99.9 %. Durfee's unbounded search is in :mod:`dppca.privacy.durfee`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from dppca._validation import check_epsilon, check_option, check_real
from dppca.numerics.grids import (
    GRIDS,
    LINEAR_GRID_LIMIT,
    LOG_GRID_LIMIT,
    LOG_GRID_STEPS,
    SIGNED_GRID_LIMIT,
    CellCounts,
    grid_runs,
    grid_size,
    linear_cells,
    log_cells,
    signed_cells,
    signed_value,
)
from dppca.numerics.row_values import RowValues, cell_counts
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.exponential import exponential_runs
from dppca.privacy.mechanisms import SAMPLERS, Noise, check_sampler, sampler_label

#: The chance, at most, that a grid quantile at :func:`safe_level` lands outside the data.
OUTSIDE_DATA = 0.001


def grid_quantile(
    counted: CellCounts,
    q: float,
    epsilon: float,
    noise: Noise,
    limit: int,
) -> int:
    """The exponential mechanism for the ``q`` quantile over the grid points ``-limit..limit``:
    point ``j`` has utility ``-d_j``, the distance from ``q n`` to the interval
    ``[#{cell_i < j}, #{cell_i <= j}]`` (0 when the point holds the quantile, even among ties).
    Both counts move by at most 1 when one value is replaced, so ``d_j`` does too (pure
    epsilon-DP). ``counted`` holds the counts of the values' grid indices, clamped into the
    grid by the caller. The answer is a uniform point of the chosen run: every grid point then
    has exactly the probability the definition gives it (a representative of the run, such as
    its end, would depend on where the data cut the runs, and would not be private)."""
    target = q * counted.total
    starts, lengths, below, at_or_below = grid_runs(counted, limit)
    nearest = np.clip(target, below, at_or_below)  # the interval's count nearest the target
    run, offset = exponential_runs(lengths, nearest, target, epsilon, noise)
    return int(starts[run]) + offset


def log_quantile(
    x: np.ndarray | RowValues, q: float, epsilon: float, noise: Noise, positive: bool = False
) -> float:
    """A private ``q`` quantile of non-negative values on the logarithmic grid ``10^(j/1000)``,
    ``|j| <= 300000`` (pure epsilon-DP).

    The answer is a grid point between ``1e-300`` and ``1e300`` whatever the data; multiplying
    the data by a power of ten shifts every count along the grid, so the same random bits give
    the answer multiplied by that power (up to rounding at cell boundaries).

    With ``positive``, the quantile is of the values above the grid's first point only (0,
    and values below ``1e-300``, are left out): the level of the untied values when most are
    tied at 0 (pairs of duplicated rows). The utility ``-d(q N, [c_<, c_<=])`` with ``N`` the
    number of values counted still moves by at most 1 when one value is replaced: ``N`` and
    the counts move by at most 1, in the same direction, and ``q <= 1``.
    """
    counted = cell_counts(x, log_cells)
    if positive and counted.cells.size and counted.cells[0] == -LOG_GRID_LIMIT:
        counted = CellCounts(counted.cells[1:], counted.counts[1:])
    index = grid_quantile(counted, q, epsilon, noise, LOG_GRID_LIMIT)
    return float(10.0 ** (index / LOG_GRID_STEPS))


def signed_quantile(x: np.ndarray | RowValues, q: float, epsilon: float, noise: Noise) -> float:
    """A private ``q`` quantile of real values on the sign-and-magnitude grid
    ``0, +-10^(j/1000)``, ``|j| <= 300000`` (pure epsilon-DP).

    The answer lies within ``1e300`` of 0 whatever the data. Multiplying the data by a power of
    ten shifts every run along the grid except the one through 0, whose length depends on the
    units: the same random bits give the answer in the other units unless that run is chosen
    or its length changes the choice (then the answer is equal in distribution only). Its
    resolution is relative (0.23 % of the answer), so a location is refined on a
    :func:`linear_quantile` window about it.
    """
    counted = cell_counts(x, signed_cells)
    index = grid_quantile(counted, q, epsilon, noise, SIGNED_GRID_LIMIT)
    return signed_value(index)


def linear_quantile(
    x: np.ndarray | RowValues,
    q: float,
    epsilon: float,
    noise: Noise,
    step: float,
    origin: float = 0.0,
) -> float:
    """A private ``q`` quantile of real values on the grid ``origin + j step``, ``|j| <= 2^14``
    (pure epsilon-DP); ``step`` and ``origin`` must be public or private (never statistics of
    ``x``). Values beyond the grid count at its ends."""
    counted = cell_counts(x, linear_cells, step, origin)
    return origin + grid_quantile(counted, q, epsilon, noise, LINEAR_GRID_LIMIT) * step


def locating_reach(epsilon: float, grid: str) -> float:
    """``r = 2 (ln G + ln 1000) / epsilon``: the grid quantile's count lies within ``r`` of the
    best grid point's with probability at least 99.9 % (see :func:`safe_level`)."""
    return 2.0 * (math.log(grid_size(grid)) - math.log(OUTSIDE_DATA)) / epsilon


def safe_level(q: float, n: int, epsilon: float, grid: str) -> float:
    """The level nearest ``q`` at which a grid quantile of ``n`` values stays within the data.

    Every grid point whose count is ``r`` or more further from ``q n`` than the best point's has
    weight at most ``exp(-epsilon r / 2)`` relative to it, so the mechanism picks one with
    probability at most ``G exp(-epsilon r / 2)`` for a grid of ``G`` points. With
    ``r = 2 (ln G + ln 1000) / epsilon`` (:func:`locating_reach`) that is at most 0.1 %. The best
    point's count is within 1/2 of ``q n`` (for data without large ties on the grid), so a level
    with ``min(q, 1 - q) n >= r + 1`` keeps the answer between the smallest and the largest
    value with probability at least 99.9 %. The level is moved towards 1/2 until the rule holds
    (1/2 when even the median cannot meet it, which
    :func:`~dppca.privacy.requirements.locating` reports before the release).

    Examples
    --------
    >>> round(safe_level(0.99, 2504, 0.16, "log"), 3)
    0.899
    """
    margin = min((locating_reach(epsilon, grid) + 1.0) / n, 0.5)
    return min(max(q, margin), 1.0 - margin)


@dataclass(frozen=True)
class GridQuantile:
    """The exponential mechanism for the ``level`` quantile on a public grid (pure epsilon-DP).

    Grid point ``j`` has utility ``-|c_j - level n|`` with ``c_j`` the number of values at or
    below it, which moves by at most 1 when one value is replaced (McSherry and Talwar 2007;
    Smith 2011 for quantiles). ``grid="log"``: positive values on ``10^(j/1000)``;
    ``"signed"``: real values on ``0, +-10^(j/1000)``; ``"linear"``: real values on
    ``origin + j step``, ``|j| <= 2^14``, with a public or private ``step`` and ``origin``
    (a window about a location found before). It owns its draw
    (:meth:`release`, sampled exactly by :func:`~dppca.privacy.exponential.exponential_runs`)
    and its ledger entry (:meth:`record`).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.mechanisms import Noise
    >>> from dppca.privacy.budget import PrivacyLedger
    >>> from dppca.privacy.quantiles import GridQuantile
    >>> values = np.random.default_rng(1).lognormal(size=1000)
    >>> mechanism = GridQuantile("log", 0.5, 1.0, description="values")
    >>> noise = Noise("continuous", np.random.default_rng(0))
    >>> 0.8 < mechanism.release(values, noise) < 1.25
    True
    >>> mechanism.record(PrivacyLedger(), "median", "quantile").budget
    Budget(epsilon=1, delta=0)
    """

    grid: str
    level: float
    epsilon: float
    sampler: str = "continuous"
    description: str = "values"
    #: On the log grid: the quantile of the values above its first point only (ties at 0
    #: left out; see :func:`log_quantile`).
    positive: bool = False

    def __post_init__(self) -> None:
        check_option(self.grid, "grid", GRIDS)
        if self.positive and self.grid != "log":
            raise ValueError("positive applies to the log grid only.")
        object.__setattr__(self, "level", check_real(self.level, "level", low=0.0, high=1.0))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        check_option(self.sampler, "sampler", SAMPLERS)

    def release(
        self,
        values: np.ndarray | RowValues,
        noise: Noise,
        step: float | None = None,
        origin: float = 0.0,
    ) -> float:
        """The released grid point of ``values`` (in one array or in chunks). The linear grid
        needs its ``step`` and ``origin``: public or private (never statistics of ``values``),
        ``step`` a positive normal float whose ``2^14`` multiples are finite, ``origin`` finite;
        the other grids take neither."""
        check_sampler(self.sampler, noise)
        if self.grid != "linear":
            if step is not None or origin != 0.0:
                raise ValueError(f"the {self.grid} grid takes no step or origin.")
            if self.grid == "log":
                return log_quantile(values, self.level, self.epsilon, noise, self.positive)
            return signed_quantile(values, self.level, self.epsilon, noise)
        largest = sys.float_info.max / (4 * LINEAR_GRID_LIMIT)
        if isinstance(step, bool) or not (
            isinstance(step, float | int) and sys.float_info.min <= step <= largest
        ):
            raise ValueError(
                f"step must be a positive normal float at most {largest:.3g}; got {step!r}."
            )
        if not (isinstance(origin, float | int) and abs(origin) <= largest):
            raise ValueError(
                f"origin must be a float of size at most {largest:.3g}; got {origin!r}."
            )
        return linear_quantile(values, self.level, self.epsilon, noise, float(step), float(origin))

    @property
    def loss(self) -> PrivacyLoss:
        """How the release composes: pure epsilon-DP."""
        return PrivacyLoss("pure", epsilon=self.epsilon)

    def record(self, ledger: PrivacyLedger, name: str, component: Component) -> LedgerEntry:
        """Enter the release in ``ledger``."""
        mechanism = (
            f"exponential mechanism, {self.grid} grid (level {self.level:.3g} of "
            f"{'the positive ' if self.positive else ''}{self.description})"
        )
        label = sampler_label(mechanism, self.sampler)
        return ledger.record(name, label, Budget(self.epsilon, 0.0), component, (self.loss,))
