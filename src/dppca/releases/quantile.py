"""Durfee's (2023) unbounded private quantile as a release (:func:`dp_quantile`)."""

from __future__ import annotations

from typing import Any

from dppca._validation import check_random_state, check_vector
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, PrivacyLedger
from dppca.privacy.durfee import DEFAULT_BETA, DEFAULT_MAX_STEPS, DurfeeQuantile
from dppca.privacy.mechanisms import Noise, resolve_sampler
from dppca.results.quantile import PrivateQuantile


def dp_quantile(
    x: Any,
    q: float,
    epsilon: float,
    *,
    lower: float | None = None,
    beta: float = DEFAULT_BETA,
    max_steps: int = DEFAULT_MAX_STEPS,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
) -> PrivateQuantile:
    """Differentially private quantile with no bounds on the data (Durfee 2023).

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite real values; ``n`` is public.
    q : float
        Level in (0, 1).
    epsilon : float
        Privacy budget (> 0); the release is pure epsilon-DP (delta = 0) under replacement of one
        value.
    lower : float, optional
        A public lower bound on ``x``: the one-sided search on the grid ``lower + beta^i - 1``.
        Values below it count as ``lower`` (clamped, not refused: whether any value lies below
        a bound is itself private). None (default): the two-sided search, answers on
        ``+-(beta^k - 1)``.
    beta : float, default 1.01
        Grid ratio (> 1). The answer's resolution at ``v`` is about ``(beta - 1)(|v| + 1)``
        (relative to ``lower`` in the one-sided search), so data far below 1 in magnitude should be
        rescaled by a public constant first.
    max_steps : int, default 5000
        Grid length (reachable magnitude about ``beta^max_steps``, 4e21 by default).
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with (epsilon, 0) before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        Exact integer noise on a secure stream (``"discrete"``, what None means unless the
        calibration is classical) or numpy's floating-point noise, for studies
        (:class:`~dppca.NoiseSettings` says more).

    Returns
    -------
    PrivateQuantile

    Warns
    -----
    DurfeeStepLimitWarning
        When a search reached ``max_steps``.

    Notes
    -----
    AboveThreshold with one-sided exponential noise of rate epsilon/2 in count units on the
    target ``q n`` and on each count ``#{x < t_i}`` (strict counts, ``>=`` stop rule). The data are
    sorted (each branch's values, chunk by chunk for chunked data) and each grid point is
    counted in O(log n).

    Examples
    --------
    >>> from dppca import dp_quantile
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=2000)
    >>> median = dp_quantile(x, 0.5, 1.0, random_state=1)
    >>> bool(abs(float(median)) < 0.2), median.privacy.total
    (True, Budget(epsilon=1, delta=0))
    """
    values = check_vector(x, "x")
    # The mechanism is the release's plan: it checks q, epsilon, lower, beta, max_steps.
    mechanism = DurfeeQuantile(
        q, epsilon, lower, beta, max_steps, sampler=resolve_sampler(sampler), description="x"
    )
    rng = check_random_state(random_state)
    charge(accountant, Budget(mechanism.epsilon, 0.0), "dp_quantile")
    noise = Noise(mechanism.sampler, rng)  # keyed after the charge: a refused call leaves rng
    value = mechanism.release(values, noise)
    ledger = PrivacyLedger()
    mechanism.record(ledger, f"quantile q={q:g}", "quantile")
    return PrivateQuantile(value=value, q=float(q), privacy=ledger)
