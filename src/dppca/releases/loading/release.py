"""The release of a loading plan (the noisy Kendall matrix and its eigenvectors), and
``dp_loading``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca._validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_random_state,
)
from dppca.numerics.dask_rows import DaskRows, dask_unit_kendall
from dppca.numerics.kendall import unit_kendall
from dppca.numerics.linalg import align_columns, covariance_pca, descending_eigh
from dppca.numerics.pairs import half_distances
from dppca.numerics.permutation import random_permutation
from dppca.numerics.rows import checked_rows, row_values, sample_covariance
from dppca.numerics.signs import (
    WinsorizedSign,
)
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    warn_weak_budget,
)
from dppca.privacy.mechanisms import (
    Noise,
)
from dppca.privacy.requirements import check_on_weak, enforce
from dppca.privacy.settings import NoiseSettings
from dppca.releases.loading.plan import (
    DEFAULT_RADIUS_LEVEL,
    DEFAULT_RADIUS_SHARE,
    LoadingPlan,
    LoadingSettings,
)
from dppca.releases.loading.sscm import SSCMPlan, sscm_release
from dppca.releases.notes import emit
from dppca.results.loading import LoadingResult, NonPrivateLoading, unusable_loading


def loading_release(
    data: np.ndarray | DaskRows,
    names: list[str],
    plan: LoadingPlan | SSCMPlan,
    rng: np.random.Generator,
    *,
    non_private: bool = False,
    progress: bool = False,
) -> LoadingResult:
    """The releases of a validated plan on validated data (the caller has charged the budget)."""
    if isinstance(plan, SSCMPlan):
        assert isinstance(data, np.ndarray)  # the callers refuse the SSCM of Dask data
        return sscm_release(data, names, plan, rng, non_private=non_private)
    n = data.shape[0]
    degree, sensitivity, calibration = plan.degree, plan.sensitivity_kind, plan.calibration
    noise = Noise(plan.sampler, rng)
    ledger = PrivacyLedger()
    sign = plan.sign
    if plan.radius_quantile is not None:  # an automatic radius
        distances = row_values(data).pairs(random_permutation(n, rng), half_distances)
        quantile = plan.radius_quantile.release(distances, noise)
        radius = min(max(quantile, plan.radius_range[0]), plan.radius_range[1])  # public clamp
        plan.radius_quantile.record(ledger, "loading: winsorization radius", "loading")
        sign = WinsorizedSign(radius)
    assert sign is not None  # a given transform, or the automatic radius's

    if isinstance(data, DaskRows):
        unit = dask_unit_kendall(data, sign, degree, rng)
    else:
        unit = unit_kendall(data, sign, degree, rng, progress=progress)
    noisy = plan.mechanism.randomise_symmetric(unit, noise)
    plan.mechanism.record(ledger, "loading: Kendall matrix", "loading")
    unit_eigenvalues, directions = descending_eigh(noisy)
    scale = sign.bound**2  # post-processing: back to the caller's units

    reference = None
    if non_private:
        _, kendall_vectors = descending_eigh(unit)
        covariance = sample_covariance(data)
        eigenvalues, pca_vectors = covariance_pca(covariance, directions)
        reference = NonPrivateLoading(
            kendall=unit * scale,
            kendall_directions=align_columns(kendall_vectors, directions),
            directions=pca_vectors,
            eigenvalues=eigenvalues,
        )
    spherical = sign.name == "spherical"
    settings = {
        **sign.settings(),
        "radius": "auto" if plan.auto_radius else (None if spherical else sign.bound),
        **(
            {"radius_share": plan.radius_share, "radius_level": plan.radius_level}
            if plan.auto_radius
            else {}
        ),
        "sensitivity": sensitivity,
        "calibration": calibration,
        "pairs": "all" if degree is None else degree,
        "sampler": plan.sampler,
        "epsilon": plan.epsilon,
        "delta": plan.delta,
    }
    return LoadingResult(
        directions=directions,
        kendall=noisy * scale,
        kendall_eigenvalues=unit_eigenvalues * scale,
        sigma=plan.sigma * scale,
        sensitivity=plan.sensitivity * scale,
        radius=None if spherical else sign.bound,
        feature_names=names,
        n_samples=n,
        settings=settings,
        privacy=ledger,
        non_private=reference,
    )


def dp_loading(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    statistic: str = "kendall",
    center: Any = None,
    transform: Any = "spherical",
    radius: Any = None,
    sensitivity: str = "tight",
    calibration: str = "analytic",
    mechanism: str = "gaussian",
    pairs: Any = "auto",
    radius_share: float = DEFAULT_RADIUS_SHARE,
    radius_level: float = DEFAULT_RADIUS_LEVEL,
    random_state: Any = None,
    non_private: bool = False,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    progress: bool = True,
    on_weak: str = "refuse",
) -> LoadingResult:
    """Differentially private principal directions (g-DPPCA).

    Releases ``K + E``, the generalized Kendall matrix plus symmetric Gaussian noise, and returns
    its eigenvectors. (epsilon, delta)-DP under replacement of one row (n is public).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        Real numeric data; DataFrame column names become variable names. No centring or scaling is
        applied (the Kendall matrix is translation invariant; scale with public constants only).
    epsilon : float
        Privacy budget, > 0.
    delta : float
        In (0, 1).
    statistic : {"kendall", "sscm", "auto"}, default "kendall"
        The generalized Kendall matrix (g-DPPCA), the spatial sign covariance matrix about a
        private centre, or the one of the two that the benchmarks favour at this ``n``,
        ``p`` and epsilon (public values alone): see :class:`~dppca.LoadingSettings`.
    center : array-like of shape (n_features,), optional
        For the SSCM: a public centre (known without these data) about which the spatial signs
        are taken, so that nothing is spent on locating one; None: a private centre (see
        :class:`~dppca.LoadingSettings`).
    transform, radius, pairs, sensitivity, radius_share, radius_level
        The generalized spatial sign, its radius (public, or ``"auto"``), the pairs of the
        Kendall matrix and its sensitivity: see :class:`~dppca.LoadingSettings`, which holds
        them (defaults ``"spherical"``, None, ``"auto"``, ``"tight"``, 0.1, 0.5).
    calibration, mechanism
        ``"analytic"`` or ``"classical"``, and ``"gaussian"`` or ``"paper"`` (the R package's
        ``sigma = 4 sqrt(2 ln(1.25/delta)) / (n epsilon)`` exactly): see
        :class:`~dppca.NoiseSettings`.
    random_state : None, int, SeedSequence or Generator
        Source of all randomness. Seeds are for research and tests; use None for a release.
    non_private : bool, default False
        Also compute non-private references (:class:`NonPrivateLoading`). They are not private.
    accountant : Accountant, optional
        Charged with (epsilon, delta) after validation, before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        Exact integer noise on a secure stream (``"discrete"``, what None means unless the
        calibration is classical) or numpy's floating-point noise, for studies
        (:class:`~dppca.NoiseSettings` says more).
    progress : bool, default True
        A progress bar on stderr while the Kendall matrix takes more than two seconds.
    on_weak : {"refuse", "release"}, default "refuse"
        With ``radius="auto"``, when ``radius_share`` of epsilon cannot locate the radius at
        this ``n`` (public values, :mod:`dppca.privacy.requirements`): refuse before the
        charge, naming the smallest epsilon and ``n`` that would, or release anyway (for
        studies) with a warning.

    Returns
    -------
    LoadingResult

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when the radius cannot be located (nothing is spent).

    Notes
    -----
    ``sigma = Delta_F * s(epsilon_K, delta)`` with ``Delta_F = 2 sqrt(2) ||g||_inf^2 / n`` (tight)
    and ``s`` the analytic Gaussian multiplier; at epsilon = 1, delta = 1e-5 it is about 0.55 of
    the paper's sigma. ``epsilon_K = epsilon`` except with ``radius="auto"``, where
    ``epsilon_K = (1 - radius_share) epsilon``. Every release is in ``result.privacy``.

    The sensitivity includes twice the kernel's proven floating-point error bound, so the
    guarantee covers the matrix actually computed. The default (discrete) sampler draws exact
    integer noise on a grid; ``sampler="continuous"`` draws it in floating point ("idealized
    numerics").

    References
    ----------
    Kim, M. and Jung, S. (2025). Robust and differentially private principal component analysis.
    Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for differential privacy.
    Canonne, C., Kamath, G. and Steinke, T. (2020). The discrete Gaussian for differential
    privacy.
    McSherry, F. and Talwar, K. (2007). Mechanism design via differential privacy.

    Examples
    --------
    >>> from dppca import dp_loading
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dp_loading(X, 2.0, 1e-6, random_state=1)
    >>> np.abs(result.directions[:, 0]).round(1).tolist()
    [1.0, 0.1, 0.0, 0.0]
    >>> result.privacy.total
    Budget(epsilon=2, delta=1e-06)
    """
    data, names = checked_rows(X)
    delta = check_delta(delta)
    settings = LoadingSettings(
        statistic=statistic,
        center=center,
        transform=transform,
        radius=radius,
        pairs=pairs,
        sensitivity=sensitivity,
        radius_share=radius_share,
        radius_level=radius_level,
    )
    noise = NoiseSettings(mechanism=mechanism, calibration=calibration, sampler=sampler)
    settings = settings.resolve(
        data.shape,
        Budget(check_epsilon(epsilon), delta),
        noise,
        in_memory=not isinstance(data, DaskRows),
    )
    settings.check_shape(data.shape[0])
    settings.check_noise(noise)
    refuse_dask_sscm(settings, data)
    on_weak = check_on_weak(on_weak)

    def planned(n: int, budget: float) -> LoadingPlan | SSCMPlan:
        return settings.plan((n, data.shape[1]), Budget(budget, delta), noise)

    plan = planned(data.shape[0], check_epsilon(epsilon))
    enforce(
        lambda n, budget: planned(n, budget).requirements,
        plan.n,
        plan.epsilon,
        on_weak,
        "dp_loading",
    )
    non_private = check_bool(non_private, "non_private")
    progress = check_bool(progress, "progress")
    rng = check_random_state(random_state)
    warn_weak_budget(plan.epsilon, plan.delta, plan.n)
    charge(accountant, Budget(plan.epsilon, plan.delta), "dp_loading")
    released = loading_release(data, names, plan, rng, non_private=non_private, progress=progress)
    if not released.directions_status.usable:
        emit([f"The directions are {released.directions_status}."])
    return unusable_loading(released)


def refuse_dask_sscm(settings: LoadingSettings, data: Any) -> None:
    """Refuse the SSCM of Dask data (its centre steps need the rows in memory), before any
    charge."""
    if settings.statistic == "sscm" and isinstance(data, DaskRows):
        raise ValueError(
            "statistic='sscm' needs the data in memory (its centre steps pass over every row "
            "several times); for Dask data use statistic='kendall'."
        )
