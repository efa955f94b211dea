"""Durfee's (2023) unbounded differentially private quantiles.

The one-sided search (a public lower bound, no upper bound) is AboveThreshold on the monotone,
sensitivity-1 counts ``c_i = #{x_j < t_i}`` over the geometric grid
``t_i = lower + beta^i - 1``, ``i = 1, ..., max_steps``: with a noisy target
``T = q n + Exp(rate epsilon/2)`` it returns the first ``t_i`` with
``c_i + Exp(rate epsilon/2) >= T`` (Durfee 2023, Algorithm 3; noise in count units, strict counts
and the ``>=`` stop rule as in the R package ``dppca``). Under replacement of one value every count
moves by at most 1 and all in the same direction, so one-sided exponential noise of rate
``epsilon/2`` on the target and on each query gives pure epsilon-DP.

The package's automatic tunings use grid quantiles instead (:func:`log_quantile`,
:func:`linear_quantile`): the exponential mechanism over a fixed public grid (logarithmic for
positive values, linear in units of a private scale for signed ones), which is bounded by the
grid, never runs away, and is equivariant to the data's units. Their level follows
:func:`safe_level`, so that the answer lies within the data with probability at least 99.9 %.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca._validation import (
    check_epsilon,
    check_option,
    check_positive_int,
    check_real,
)
from dppca.exceptions import DurfeeStepLimitWarning
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
from dppca.numerics.row_values import RowValues, cell_counts, counts_below
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.exponential import exponential_runs
from dppca.privacy.mechanisms import (
    SAMPLERS,
    Noise,
    check_noise_scale,
    check_sampler,
    exponential_noise,
    sampler_label,
)

DEFAULT_BETA = 1.01
DEFAULT_MAX_STEPS = 5000
#: The longest grid a search may use (its noise is drawn for every grid point).
MAX_STEPS_LIMIT = 10**6


def durfee_grid(lower: float, beta: float, max_steps: int) -> np.ndarray:
    """``lower + beta^i - 1``, ``i = 1..max_steps``; non-finite points become the largest float.

    Every answer of the one-sided search is a point of this public grid.
    """
    with np.errstate(over="ignore"):
        steps = np.expm1(np.arange(1, max_steps + 1) * np.log(beta))
        grid = lower + steps
    grid[~np.isfinite(grid)] = np.finfo(np.float64).max
    return grid


def _upper_search(
    counts: np.ndarray,
    size: int,
    q: float,
    epsilon: float,
    noise: Noise,
    max_steps: int,
) -> tuple[int, bool]:
    """The one-sided search on the counts ``c_i = #{x < t_i}`` of ``size`` values below the
    grid points: the selected step ``i`` (1-based) and whether the step limit was reached (then
    ``i = max_steps``).

    With the discrete sampler the noise is one-sided geometric (integer), drawn step by step
    until the search stops; the same argument as for exponential noise gives pure epsilon-DP,
    since every count is an integer that moves by at most 1 and ``P(G >= a + 1) >= e^{-epsilon/2}
    P(G >= a)`` for every real ``a``.
    """
    scale = 2.0 / epsilon
    target = q * size + exponential_noise(scale, 1, noise)[0]
    if not noise.discrete:
        noisy = counts + exponential_noise(scale, max_steps, noise)
        hits = np.flatnonzero(noisy >= target)
        if hits.size == 0:
            return max_steps, True
        return int(hits[0]) + 1, False
    for step, count in enumerate(counts, start=1):
        if count + exponential_noise(scale, 1, noise)[0] >= target:
            return step, False
    return max_steps, True


def _check_search(
    q: Any, epsilon: Any, beta: Any, max_steps: Any
) -> tuple[float, float, float, int]:
    q, epsilon = check_real(q, "q", low=0.0, high=1.0), check_epsilon(epsilon)
    beta, max_steps = check_real(beta, "beta", low=1.0), check_positive_int(max_steps, "max_steps")
    if max_steps > MAX_STEPS_LIMIT:
        raise ValueError(f"max_steps must be at most {MAX_STEPS_LIMIT}; got {max_steps}.")
    check_search_epsilon(epsilon, f"a Durfee quantile search at epsilon={epsilon:g}")
    return q, epsilon, beta, max_steps


def check_search_epsilon(epsilon: float, what: str) -> None:
    """Refuse, before any charge, a search epsilon whose noise scale ``2 / epsilon`` is not a
    positive normal float (a two-sided search gives each branch half of its epsilon)."""
    check_noise_scale(2.0 / epsilon, what)


def _search_values(values: np.ndarray, lower: float | None) -> np.ndarray:
    """The values the search counts: overflow mapped to the largest floats and (one-sided
    search) values below ``lower`` raised to it, so the search has nothing to refuse once the
    budget is charged (an error at that point would depend on the data)."""
    largest = np.finfo(np.float64).max
    values = np.asarray(values, dtype=np.float64)
    values = np.nan_to_num(values, nan=0.0, posinf=largest, neginf=-largest)
    return values if lower is None else np.maximum(values, lower)


def _branch_values(values: np.ndarray, sign: float, beta: float) -> np.ndarray:
    """A branch of the two-sided search: ``sign beta x + beta - 1``, clamped at 0."""
    with np.errstate(over="ignore"):
        moved = sign * beta * _search_values(values, None) + (beta - 1.0)
    return np.clip(moved, 0.0, np.finfo(np.float64).max)


def _warn_capped(max_steps: int, stacklevel: int) -> None:
    """Warn that a search ran off its grid. Whether AboveThreshold stopped, and where, is its
    (differentially private) output, so the warning is post-processing and reveals nothing more."""
    warnings.warn(
        f"Durfee quantile search reached max_steps={max_steps} without stopping; returning "
        "the last grid point. Increase max_steps or beta (or rescale the data by a public "
        "constant).",
        DurfeeStepLimitWarning,
        stacklevel=stacklevel,
    )


def durfee_upper_quantile(
    values: np.ndarray | RowValues,
    q: float,
    epsilon: float,
    noise: Noise,
    lower: float,
    beta: float,
    max_steps: int,
) -> float:
    """The one-sided search's answer (a kernel: the settings come validated from
    :class:`DurfeeQuantile`): the selected grid point ``lower + beta^i - 1``, from the counts
    of the values below every grid point (chunk by chunk for chunked values).

    Warns
    -----
    DurfeeStepLimitWarning
        When no grid point was selected; the last grid point is returned.
    """
    grid = durfee_grid(lower, beta, max_steps)
    counts = counts_below(values, grid, _search_values, lower)
    step, capped = _upper_search(counts, values.shape[0], q, epsilon, noise, max_steps)
    if capped:
        _warn_capped(max_steps, stacklevel=4)
    return float(grid[step - 1])


def durfee_signed_quantile(
    values: np.ndarray | RowValues,
    q: float,
    epsilon: float,
    noise: Noise,
    beta: float,
    max_steps: int,
) -> float:
    """The two-sided (fully unbounded) search (Durfee 2023, Algorithm 4; a kernel: the settings
    come validated from :class:`DurfeeQuantile`).

    The positive branch runs the one-sided search with epsilon/2 on ``beta x + beta - 1`` (clamped
    at 0) at level ``q``; its step ``i`` counts ``#{x < beta^(i-1) - 1}``. The negative branch does
    the same on ``-beta x + beta - 1`` at level ``1 - q``. With ``k = i - 1`` the estimate of a
    branch is ``beta^k - 1``. Selection (as in the R package ``dppca``): the positive estimate if
    its branch was not capped and ``k > 0``; otherwise the negated negative estimate if that
    branch was not capped and ``k > 0``; otherwise 0. Estimates are therefore on the grid
    ``+-(beta^k - 1)``.

    Warns
    -----
    DurfeeStepLimitWarning
        Once, when either branch reached the step limit.
    """
    grid = durfee_grid(0.0, beta, max_steps)
    branches = [
        _upper_search(
            counts_below(values, grid, _branch_values, sign, beta),
            values.shape[0],
            level,
            epsilon / 2.0,
            noise,
            max_steps,
        )
        for sign, level in ((1.0, q), (-1.0, 1.0 - q))
    ]
    if any(capped for _, capped in branches):
        _warn_capped(max_steps, stacklevel=4)
    for sign, (step, capped) in zip((1.0, -1.0), branches, strict=True):
        if not capped and step > 1:
            return sign * float(grid[step - 2])
    return 0.0


@dataclass(frozen=True)
class DurfeeQuantile:
    """Durfee's (2023) unbounded quantile: AboveThreshold on a geometric grid (pure epsilon-DP).

    With a public ``lower`` bound: the one-sided search on ``lower + beta^i - 1`` (Algorithm 3);
    with ``lower=None``: the two-sided search, each branch with half of epsilon (Algorithm 4).
    It checks its settings when made (before any charge), owns its draw (:meth:`release`) and
    its ledger entry (:meth:`record`).

    Parameters
    ----------
    q : float
        Level in (0, 1).
    epsilon : float
    lower : float or None
        A public lower bound on the values (values below it count as it), or None.
    beta : float, default 1.01
        Grid ratio (> 1): the relative resolution of the answer is about ``beta - 1``.
    max_steps : int, default 5000
        Grid length; the largest reachable value is about ``beta^max_steps``.
    sampler : {"continuous", "discrete"}
    description : str
        What the quantile is of, for the ledger.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.mechanisms import Noise
    >>> from dppca.privacy.quantiles import DurfeeQuantile
    >>> from dppca.privacy.budget import PrivacyLedger
    >>> mechanism = DurfeeQuantile(0.5, 1.0, lower=0.0)
    >>> noise = Noise("continuous", np.random.default_rng(0))
    >>> 40 < mechanism.release(np.arange(100.0), noise) < 60
    True
    >>> mechanism.record(PrivacyLedger(), "median", "quantile").budget
    Budget(epsilon=1, delta=0)
    """

    q: float
    epsilon: float
    lower: float | None = None
    beta: float = DEFAULT_BETA
    max_steps: int = DEFAULT_MAX_STEPS
    sampler: str = "continuous"
    description: str = "values"

    def __post_init__(self) -> None:
        # The checked values (Python floats and ints) replace the given ones: the search's
        # arithmetic is then that of the recorded epsilon, whatever type was passed.
        q, epsilon, beta, max_steps = _check_search(self.q, self.epsilon, self.beta, self.max_steps)
        for name, value in (
            ("q", q),
            ("epsilon", epsilon),
            ("beta", beta),
            ("max_steps", max_steps),
        ):
            object.__setattr__(self, name, value)
        check_option(self.sampler, "sampler", SAMPLERS)
        if self.lower is None:  # each branch of the two-sided search has half of epsilon
            what = f"a two-sided search's branch at epsilon={epsilon:g}"
            check_search_epsilon(epsilon / 2.0, what)
        else:
            object.__setattr__(self, "lower", check_real(self.lower, "lower"))

    def release(self, values: np.ndarray | RowValues, noise: Noise) -> float:
        """The released quantile of ``values`` (validated real values, in one array or in
        chunks; overflowing ones count as the largest floats, and values below ``lower`` as
        ``lower``: nothing is refused)."""
        check_sampler(self.sampler, noise)
        if self.lower is None:
            return durfee_signed_quantile(
                values, self.q, self.epsilon, noise, self.beta, self.max_steps
            )
        return durfee_upper_quantile(
            values, self.q, self.epsilon, noise, self.lower, self.beta, self.max_steps
        )

    @property
    def loss(self) -> PrivacyLoss:
        """How the release composes: pure epsilon-DP."""
        return PrivacyLoss("pure", epsilon=self.epsilon)

    def record(self, ledger: PrivacyLedger, name: str, component: Component) -> LedgerEntry:
        """Enter the release in ``ledger``."""
        search = "two-sided" if self.lower is None else f"one-sided, lower={self.lower:g}"
        mechanism = f"Durfee quantile ({search}, level {self.q:.3g} of {self.description})"
        label = sampler_label(mechanism, self.sampler)
        return ledger.record(name, label, Budget(self.epsilon, 0.0), component, (self.loss,))


#: The logarithmic grid ``10^(j / LOG_GRID_STEPS)``: 1000 points per decade (ratio 1.0023), from
#: ``10^-300`` to ``10^300``.
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
