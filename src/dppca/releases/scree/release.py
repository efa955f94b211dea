"""``dp_scree``: the private scree of given or private directions, and its result."""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca._validation import (
    check_bool,
    check_choices,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_random_state,
)
from dppca.numerics.monotone import proportions
from dppca.numerics.row_values import RowValues
from dppca.numerics.rows import Rows, checked_rows, ordinary_pca, projected
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    check_repeated,
    warn_weak_budget,
)
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.settings import NoiseSettings
from dppca.releases.loading import (
    LoadingSettings,
    check_direction_source,
    loading_release,
)
from dppca.releases.scree.plan import (
    SCREE_METHODS,
    ScreePlan,
    ScreeSettings,
    scree_release,
)
from dppca.results.scree import NonPrivateScree, ScreeResult


def non_private_scree(data: Rows, directions: np.ndarray, Y: RowValues, k: int) -> NonPrivateScree:
    """Ordinary PCA's top ``k`` eigenvalues and proportions, and the sample variances of the
    scores ``Y`` along the directions used (**not private**; Dask scores are gathered)."""
    eigenvalues, _ = ordinary_pca(data, directions)
    variances = Y.to_numpy().var(axis=0, ddof=1)
    return NonPrivateScree(eigenvalues[:k], proportions(eigenvalues[:k]), variances)


def dp_scree(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    method: Any = "clipped",
    directions: Any = None,
    loading_epsilon: float | None = None,
    loading_delta: float | None = None,
    mono: bool = True,
    control: dict[str, Any] | None = None,
    random_state: Any = None,
    non_private: bool = False,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    on_weak: str = "refuse",
) -> ScreeResult:
    """Differentially private scree: variances along the first ``k`` private directions.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    k : int
        Number of components, ``1 <= k <= n_features``.
    epsilon, delta : float
        The scree budget; each requested method spends all of it.
    method : {"clipped", "pmwm", "huber"} or a sequence of them, default "clipped"
        Each requested method spends the whole scree budget (see
        :class:`~dppca.ScreeSettings`).
    directions : array-like of shape (p, p), optional
        Orthonormal directions (columns); None estimates them with :func:`dp_loading` using
        ``loading_epsilon`` and ``loading_delta``.
    mono : bool, default True
        Antitonic least-squares post-processing (see :class:`~dppca.ScreeSettings`).
    control : dict, optional
        The method's parameters (see :class:`~dppca.ScreeSettings`), or with several methods
        a dict of them keyed by method.
    random_state : None, int, SeedSequence or Generator
    non_private : bool, default False
        Also return :class:`NonPrivateScree` references.
    accountant : Accountant, optional
        Charged with the whole cost before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        Exact integer noise on a secure stream (``"discrete"``, what None means unless the
        calibration is classical) or numpy's floating-point noise, for studies
        (:class:`~dppca.NoiseSettings` says more).
    on_weak : {"refuse", "release"}, default "refuse"
        When the budget cannot locate a method's private clip level or scales at this ``n``
        (public values, :mod:`dppca.privacy.requirements`): refuse before the charge, naming
        the smallest epsilon and ``n`` that would, or release anyway (for studies) with a
        warning.

    Returns
    -------
    ScreeResult

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when a release cannot be located (nothing is spent).

    Notes
    -----
    The default needs no tuning in any units: its clip level is a private quantile on a
    logarithmic grid, so the same seed gives the same release in any units (scaled). Clipping
    scales down the rows above ``2.5 x`` the 0.75 quantile of the row totals; rows dominated
    by the first component are the ones clipped, so the largest variances are shrunk: on
    Gaussian data about 8 % for PC1 when it holds 80 % of two components and 2-5 % with five
    components, while the PVE moves by at most 0.01 (0.05 under Student t3 scores). A larger
    multiplier shrinks less and adds proportionally more noise. On the 1000 Genomes demo
    (``dp_pca``, total epsilon 4) the largest PVE error over PC1-5 against ordinary PCA has
    median 0.039 and maximum 0.148 over 200 seeds, the private directions included
    (``benchmarks/results/utility.md``). The values estimate the variances of the
    scores along the private directions; the noise sd of each is in
    ``settings[method]["noise_sd"]``.

    Examples
    --------
    >>> from dppca import dp_scree
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dp_scree(X, 2, 2.0, 1e-6, directions=np.eye(4), random_state=1)
    >>> (result.values["clipped"] / [9.0, 4.0]).round(1).tolist()  # true variances 9 and 4
    [0.9, 1.0]
    """
    data, names = checked_rows(X)
    n, p = data.shape
    k = check_positive_int(k, "k")
    if k > p:
        raise ValueError(f"k must be an integer in [1, p={p}]; got {k}.")
    budget = Budget(check_epsilon(epsilon), check_delta(delta))
    methods = check_choices(method, "method", SCREE_METHODS)
    settings = ScreeSettings(method=methods, k=k, control=control, mono=mono)
    noise = NoiseSettings(sampler=sampler)
    on_weak = check_on_weak(on_weak)

    def planned(size: int, scree_epsilon: float) -> tuple[ScreePlan, ...]:
        own = Budget(scree_epsilon, budget.delta)
        return settings.plans(size, k, own, noise, shared=False)

    plans = planned(n, budget.epsilon)
    non_private = check_bool(non_private, "non_private")
    given, loading_budget = check_direction_source(directions, loading_epsilon, loading_delta, p)
    rng = check_random_state(random_state)
    cost = check_repeated(budget, len(methods), "scree methods")
    loading_plan = None
    if loading_budget is not None:
        cost = cost + loading_budget
        loading_plan = LoadingSettings().plan(data.shape, loading_budget, noise)

    def requirements_at(size: int, scree_epsilon: float) -> list[Requirement]:
        found = [need for plan in planned(size, scree_epsilon) for need in plan.requirements]
        if loading_budget is not None:
            found += LoadingSettings().plan((size, p), loading_budget, noise).requirements
        return found

    enforce(requirements_at, n, budget.epsilon, on_weak, "dp_scree")
    warn_weak_budget(cost.epsilon, cost.delta, n)
    charge(accountant, cost, "dp_scree")

    ledger = PrivacyLedger()
    loading = None
    if loading_plan is not None:
        loading = loading_release(data, names, loading_plan, rng)
        ledger.extend(loading.privacy)
        given = loading.directions
    assert given is not None  # given directions, or a plan to estimate them
    Y = projected(data, given[:, :k])
    released: dict[str, Any] = {
        "mono": settings.mono,
        "controls": {name: dict(merged) for name, merged in settings.controls.items()},
        "sampler": noise.sampler,
    }
    values, pve = {}, {}
    for plan in plans:
        name = plan.method
        values[name], released[name] = scree_release(Y, plan, rng, ledger)
        pve[name] = proportions(values[name])
    return ScreeResult(
        values=values,
        pve=pve,
        k=k,
        directions=given,
        feature_names=names,
        n_samples=n,
        settings=released,
        privacy=ledger,
        loading=loading,
        non_private=non_private_scree(data, given, Y, k) if non_private else None,
    )
