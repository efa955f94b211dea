"""Durfee's (2023) unbounded differentially private quantiles.

The one-sided search (a public lower bound, no upper bound) is AboveThreshold on the monotone,
sensitivity-1 counts ``c_i = #{x_j < t_i}`` over the geometric grid
``t_i = lower + beta^i - 1``, ``i = 1, ..., max_steps``: with a noisy target
``T = q n + Exp(rate epsilon/2)`` it returns the first ``t_i`` with
``c_i + Exp(rate epsilon/2) >= T`` (Durfee 2023, Algorithm 3; noise in count units, strict counts
and the ``>=`` stop rule as in the R package ``dppca``). Under replacement of one value every count
moves by at most 1 and all in the same direction, so one-sided exponential noise of rate
``epsilon/2`` on the target and on each query gives pure epsilon-DP.

The package's automatic tunings use grid quantiles instead (:mod:`dppca.privacy.quantiles`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from dppca._validation import (
    check_epsilon,
    check_option,
    check_positive_int,
    check_real,
)
from dppca.exceptions import DurfeeStepLimitWarning
from dppca.numerics.row_values import RowValues, counts_below
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
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
    return cast("np.ndarray", grid)


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
    >>> from dppca.privacy.durfee import DurfeeQuantile
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
