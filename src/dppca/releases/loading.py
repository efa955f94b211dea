"""Private principal directions: g-DPPCA (Kim and Jung 2025).

The Kendall matrix ``K`` of generalized spatial signs has Frobenius sensitivity
``2 sqrt(2) ||g||_inf^2 / n`` under replacement of one row, so the Gaussian mechanism on
``vecd(K)`` releases ``K + E`` with ``E`` symmetric, ``E_jj ~ N(0, sigma^2)``,
``E_jl ~ N(0, sigma^2/2)`` and ``sigma = Delta_F * s(epsilon, delta)``. The private directions
are the eigenvectors of ``K + E`` (post-processing): for elliptical data they estimate the
eigenvectors of the scatter matrix, whatever the tails.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca._validation import (
    check_bool,
    check_data,
    check_delta,
    check_epsilon,
    check_option,
    check_random_state,
    check_real,
)
from dppca.numerics.dask_rows import (
    DaskRows,
    checked_rows,
    dask_unit_kendall,
    row_values,
)
from dppca.numerics.kendall import check_pairs, unit_error_bound, unit_kendall
from dppca.numerics.linalg import (
    align_columns,
    covariance_pca,
    descending_eigh,
    pc_labels,
    sample_covariance,
)
from dppca.numerics.pairs import half_distances, random_pairs
from dppca.numerics.sensitivity import SENSITIVITIES, unit_kendall_sensitivity
from dppca.numerics.signs import (
    MAX_BOUND,
    MIN_BOUND,
    SignTransform,
    WinsorizedSign,
    make_sign_transform,
)
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    check_parts,
    split_epsilon,
    warn_weak_budget,
)
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import (
    MAX_NOISE_SCALE,
    GaussianMechanism,
    Noise,
    check_noise_scale,
    resolve_sampler,
)
from dppca.privacy.quantiles import GridQuantile, safe_level
from dppca.privacy.requirements import Requirement, check_on_weak, enforce, locating

MECHANISMS = ("gaussian", "paper")

#: Share of the loading epsilon spent on the winsorization radius when ``radius="auto"``.
DEFAULT_RADIUS_SHARE = 0.1
#: Level of the private quantile of pair half-distances used as the automatic radius.
DEFAULT_RADIUS_LEVEL = 0.5


#: Tolerance of the orthonormality check of user-given directions, ``max |V'V - I|``.
ORTHONORMAL_TOLERANCE = 1e-6


def check_directions(directions: Any, p: int) -> np.ndarray:
    """User-given directions: a finite real ``p x p`` matrix with orthonormal columns."""
    matrix, _ = check_data(directions, "directions", min_rows=1)
    if matrix.shape != (p, p):
        raise ValueError(
            f"directions must be a {p} x {p} matrix (one column per direction); got shape "
            f"{matrix.shape}."
        )
    error = float(np.max(np.abs(matrix.T @ matrix - np.eye(p))))
    if error > ORTHONORMAL_TOLERANCE:
        raise ValueError(
            f"directions must have orthonormal columns (max |V'V - I| <= "
            f"{ORTHONORMAL_TOLERANCE:g}); got {error:.3g}."
        )
    return matrix


def check_direction_source(
    directions: Any, loading_epsilon: Any, loading_delta: Any, p: int
) -> tuple[np.ndarray | None, Budget | None]:
    """Given directions (validated), or the loading budget to estimate them; not both."""
    if directions is not None:
        if loading_epsilon is not None or loading_delta is not None:
            raise ValueError(
                "loading_epsilon and loading_delta apply only when directions=None (the "
                "directions are then estimated privately); got both directions and a loading "
                "budget."
            )
        return check_directions(directions, p), None
    if loading_epsilon is None or loading_delta is None:
        raise ValueError(
            "directions=None needs loading_epsilon and loading_delta: the budget for estimating "
            "private directions (or pass orthonormal directions)."
        )
    return None, Budget(
        check_epsilon(loading_epsilon, "loading_epsilon"),
        check_delta(loading_delta, "loading_delta"),
    )


def check_sign_settings(
    transform: Any,
    radius: Any,
    radius_share: Any = DEFAULT_RADIUS_SHARE,
    radius_level: Any = DEFAULT_RADIUS_LEVEL,
    name: str = "transform",
) -> tuple[SignTransform | None, float, float]:
    """Validate the spatial-sign settings: the transform (None for ``radius="auto"``, resolved
    privately later) and the automatic radius's share and level. Errors call the transform
    ``name``."""
    if not isinstance(radius, str):
        return make_sign_transform(transform, radius, name), radius_share, radius_level
    if radius != "auto":
        raise ValueError(f'radius must be a positive number or "auto"; got {radius!r}.')
    if transform != "winsorized":
        raise ValueError(f'radius="auto" applies to {name}="winsorized"; got {name}={transform!r}.')
    return (
        None,
        check_real(radius_share, "radius_share", low=0.0, high=1.0),
        check_real(radius_level, "radius_level", low=0.0, high=1.0),
    )


@dataclass(frozen=True)
class NonPrivateLoading:
    """Non-private references, computed only on request (``non_private=True``).

    These are **not** differentially private releases. Columns are sign-aligned to the private
    directions.

    Attributes
    ----------
    kendall : ndarray of shape (p, p)
        The exact Kendall matrix.
    kendall_directions : ndarray of shape (p, p)
        Its eigenvectors, descending.
    directions : ndarray of shape (p, p)
        Ordinary PCA: eigenvectors of the sample covariance matrix, descending (the same name
        and meaning as in :class:`~dppca.results.pca.NonPrivatePCA`).
    eigenvalues : ndarray of shape (p,)
        Their eigenvalues, clipped at 0.
    """

    kendall: np.ndarray
    kendall_directions: np.ndarray
    directions: np.ndarray
    eigenvalues: np.ndarray


@dataclass(frozen=True)
class LoadingResult:
    """Private principal directions and how they were made.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Columns are the private directions, by descending eigenvalue of the noisy Kendall matrix,
        each with its largest-magnitude entry positive.
    kendall : ndarray of shape (p, p)
        The released noisy Kendall matrix ``K + E`` (the output of the Gaussian mechanism).
    kendall_eigenvalues : ndarray of shape (p,)
        Eigenvalues of the noisy Kendall matrix (post-processing of the release).
    sigma : float
        Standard deviation of the diagonal noise (off-diagonal: ``sigma / sqrt(2)``).
    sensitivity : float
        Frobenius sensitivity used.
    radius : float or None
        The winsorization radius or declared bound (``||g||_inf``); None for spherical signs.
    feature_names : list of str
    n_samples : int
    settings : dict
    privacy : PrivacyLedger
    non_private : NonPrivateLoading or None

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_loading(X, 2.0, 1e-6, random_state=1)
    >>> result.loadings.columns.tolist()
    ['PC1', 'PC2', 'PC3']
    >>> bool(result.sigma > 0), result.radius is None  # spherical signs need no radius
    (True, True)
    """

    directions: np.ndarray
    kendall: np.ndarray = field(repr=False)
    kendall_eigenvalues: np.ndarray
    sigma: float
    sensitivity: float
    radius: float | None
    feature_names: list[str]
    n_samples: int
    settings: dict[str, Any]
    privacy: PrivacyLedger = field(repr=False)
    non_private: NonPrivateLoading | None = field(default=None, repr=False)

    def plot(self, kind: str = "loading", **options: Any) -> Any:
        """Draw the release and return its display (:mod:`dppca.plotting`).

        ``kind`` in ``("loading", "heatmap")``; ``options`` as for :meth:`dppca.DPPCAResult.plot`.
        Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, ("loading", "heatmap"), **options)

    @property
    def loadings(self) -> pd.DataFrame:
        """The directions as a DataFrame: index = variable names, columns ``PC1..PCp``."""
        columns = pc_labels(self.directions.shape[1])
        return pd.DataFrame(self.directions, index=self.feature_names, columns=columns)

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): facts, the first loadings and the ledger."""
        facts = [
            ("data", f"{self.n_samples} observations x {len(self.feature_names)} variables"),
            ("sign", f"{self.settings['transform']}, noise sd {self.sigma:.4g}"),
        ]
        shown = self.loadings.iloc[:, : min(3, self.loadings.shape[1])]
        tables = [
            ("Private loadings", shown),
            ("Privacy budget spent", self.privacy.budget_table()),
        ]
        return card("Private principal directions (g-DPPCA)", facts, tables)

    def __repr__(self) -> str:
        total = self.privacy.total
        return (
            f"LoadingResult(n_samples={self.n_samples}, n_features={len(self.feature_names)}, "
            f"transform={self.settings['transform']!r}, sigma={self.sigma:.4g}, "
            f"privacy spent: epsilon={total.epsilon:.4g}, delta={total.delta:.4g})"
        )


def kendall_mechanism(
    n: int,
    p: int,
    float_error: float,
    epsilon: float,
    delta: float,
    sensitivity: str,
    calibration: str,
    sampler: str = "continuous",
) -> GaussianMechanism:
    """The Gaussian mechanism of a unit-space Kendall matrix of ``n`` rows and ``p`` variables.

    It adds noise to ``vecd(K)`` (:meth:`GaussianMechanism.randomise_symmetric`), so ``E_jj`` has
    standard deviation ``sigma`` and ``E_jl`` ``sigma / sqrt(2)``. Its L2 sensitivity is
    :func:`~dppca.numerics.sensitivity.kendall_sensitivity` with the kernel's error bound
    ``float_error`` (:func:`~dppca.numerics.kendall.unit_error_bound`). Public values only.
    """
    mechanism = (
        f"discrete Gaussian (zCDP, {sensitivity} sensitivity)"
        if sampler == "discrete"
        else f"Gaussian ({calibration} calibration, {sensitivity} sensitivity)"
    )
    return GaussianMechanism(
        unit_kendall_sensitivity(n, sensitivity, float_error),
        p * (p + 1) // 2,
        epsilon,
        delta,
        sampler,
        calibration=calibration,
        description=mechanism,
    )


def dp_loading(
    X: Any,
    epsilon: float,
    delta: float,
    *,
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
    transform : {"spherical", "winsorized"} or callable, default "spherical"
        Generalized spatial sign ``h``: 1, ``min(radius, s)``, or a user ``h`` capped at its
        declared bound ``radius``.
    radius : float or "auto", optional
        Winsorization radius (public), ``"auto"`` to estimate it privately, or the declared bound
        of a callable ``h``.
    sensitivity : {"tight", "paper"}, default "tight"
        ``2 sqrt(2) ||g||^2 / n`` or the paper's ``4 ||g||^2 / n``.
    calibration : {"analytic", "classical"}, default "analytic"
        Balle and Wang (2018) or ``sqrt(2 ln(1.25/delta)) / epsilon`` (warns for epsilon >= 1).
    mechanism : {"gaussian", "paper"}, default "gaussian"
        ``"paper"`` sets ``sensitivity="paper"`` and ``calibration="classical"``, reproducing the
        R package's ``sigma = 4 sqrt(2 ln(1.25/delta)) / (n epsilon)`` exactly.
    pairs : "auto", "all" or even int, default "auto"
        All pairs, or the incomplete U-statistic over a circulant design in which every row is
        in ``pairs`` pairs (linear in n, same sensitivity; see :func:`dppca.kendall_matrix`).
        ``"auto"``: all pairs up to 20,000 rows, ``pairs=64`` above.
    radius_share : float, default 0.1
        With ``radius="auto"``: the share of epsilon (no delta) spent on the radius.
    radius_level : float, default 0.5
        With ``radius="auto"``: the quantile level of the pair half-distances
        ``||x_a - x_b|| / sqrt(2)`` over disjoint random pairs (each row in one pair, so a count
        has sensitivity 1), estimated by the exponential mechanism on a logarithmic grid
        (equivariant to the data's units; the level moves towards 1/2 when the budget is
        small, see :func:`~dppca.privacy.quantiles.safe_level`), clamped into
        ``[1e-150, 1e150]``.
    random_state : None, int, SeedSequence or Generator
        Source of all randomness. Seeds are for research and tests; use None for a release.
    non_private : bool, default False
        Also compute non-private references (:class:`NonPrivateLoading`). They are not private.
    accountant : Accountant, optional
        Charged with (epsilon, delta) after validation, before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.
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
    [1.0, 0.0, 0.0, 0.0]
    >>> result.privacy.total
    Budget(epsilon=2, delta=1e-06)
    """
    data, names = checked_rows(X)
    delta = check_delta(delta)
    on_weak = check_on_weak(on_weak)

    def planned(n: int, budget: float) -> LoadingPlan:
        return plan_loading(
            (n, data.shape[1]),
            Budget(check_epsilon(budget), delta),
            transform=transform,
            radius=radius,
            sensitivity=sensitivity,
            calibration=calibration,
            mechanism=mechanism,
            pairs=pairs,
            radius_share=radius_share,
            radius_level=radius_level,
            sampler=sampler,
        )

    plan = planned(data.shape[0], epsilon)
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
    return loading_release(data, names, plan, rng, non_private=non_private, progress=progress)


@dataclass(frozen=True)
class LoadingPlan:
    """Validated settings of a loading release and its noise, fixed by public values only.

    ``sign`` is None for an automatic radius (resolved privately by the release). ``sigma`` and
    ``sensitivity`` are in units of the sign bound squared (the release is made in unit space).
    """

    n: int
    p: int
    epsilon: float
    delta: float
    transform: Any
    sign: SignTransform | None
    radius_share: float
    radius_level: float
    radius_epsilon: float
    kendall_epsilon: float
    sensitivity_kind: str
    calibration: str
    degree: int | None
    float_error: float
    mechanism: GaussianMechanism
    sampler: str
    radius_range: tuple[float, float]
    #: The private quantile of pair half-distances that sets an automatic radius, or None.
    radius_quantile: GridQuantile | None = None
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once, in release order."""
        radius = [] if self.radius_quantile is None else [self.radius_quantile]
        return [*radius, self.mechanism]

    @property
    def auto_radius(self) -> bool:
        return self.sign is None

    @property
    def sigma(self) -> float:
        """The Kendall matrix's noise sd, in units of the sign bound squared."""
        return self.mechanism.scale

    @property
    def sensitivity(self) -> float:
        """The Kendall matrix's Frobenius sensitivity, in units of the sign bound squared."""
        return self.mechanism.l2_sensitivity


def plan_loading(
    shape: tuple[int, int],
    budget: Budget,
    *,
    transform: Any = "spherical",
    radius: Any = None,
    sensitivity: Any = "tight",
    calibration: Any = "analytic",
    mechanism: Any = "gaussian",
    pairs: Any = "auto",
    radius_share: Any = DEFAULT_RADIUS_SHARE,
    radius_level: Any = DEFAULT_RADIUS_LEVEL,
    sampler: Any = None,
    transform_name: str = "transform",
) -> LoadingPlan:
    """Validate :func:`dp_loading`'s settings for data of ``shape`` and a validated ``budget``,
    and fix its noise (``transform_name``: the caller's name for ``transform``, used in error
    messages).

    Every noise scale is set by public values here, before any charge: one that is not a
    positive normal float is refused (for an automatic radius, at both ends of its search grid).
    """
    n, p = shape
    epsilon, delta = budget.epsilon, budget.delta
    mechanism = check_option(mechanism, "mechanism", MECHANISMS)
    sensitivity = check_option(sensitivity, "sensitivity", SENSITIVITIES)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    if mechanism == "paper":
        sensitivity, calibration = "paper", "classical"
    sign, radius_share, radius_level = check_sign_settings(
        transform, radius, radius_share, radius_level, transform_name
    )
    degree = check_pairs(pairs, n)
    sampler = resolve_sampler(sampler, calibration)
    radius_epsilon, kendall_epsilon = 0.0, epsilon
    if sign is None:
        radius_epsilon, kendall_epsilon = check_parts(
            split_epsilon(epsilon, [radius_share, 1.0 - radius_share]),
            f"epsilon={epsilon:g} and radius_share={radius_share:g}",
        )
    float_error = unit_error_bound(p, sign or WinsorizedSign(1.0), degree)
    kendall = kendall_mechanism(
        n, p, float_error, kendall_epsilon, delta, sensitivity, calibration, sampler
    )
    sigma = kendall.scale
    check_noise_scale(sigma, "the Kendall matrix (in units of the sign bound squared)")
    radius_quantile = None
    requirements: list[Requirement] = []
    if sign is None:
        requirements.append(
            locating(
                "loading",
                "winsorization radius",
                n // 2,
                radius_epsilon,
                "log",
                "a public radius (radius=...)",
            )
        )
        radius_quantile = GridQuantile(
            "log",
            safe_level(radius_level, n // 2, radius_epsilon, "log"),
            radius_epsilon,
            sampler,
            description="pair half-distances",
            positive=True,  # pairs of duplicated rows (distance 0) are left out
        )
        radius_range = (
            max(MIN_BOUND, math.sqrt(sys.float_info.min / sigma)),
            min(MAX_BOUND, math.sqrt(MAX_NOISE_SCALE / sigma)),
        )
        if radius_range[0] > radius_range[1]:
            raise ValueError(
                f"No winsorization radius gives a representable noise scale at epsilon="
                f"{epsilon:g}, delta={delta:g}; use a less extreme budget."
            )
    else:
        check_noise_scale(sigma * sign.bound**2, f"the Kendall matrix, sign bound {sign.bound:g}")
        radius_range = (sign.bound, sign.bound)
    return LoadingPlan(
        n=n,
        p=p,
        epsilon=epsilon,
        delta=delta,
        transform=transform,
        sign=sign,
        radius_share=radius_share,
        radius_level=radius_level,
        radius_epsilon=radius_epsilon,
        kendall_epsilon=kendall_epsilon,
        sensitivity_kind=sensitivity,
        calibration=calibration,
        degree=degree,
        float_error=float_error,
        mechanism=kendall,
        sampler=sampler,
        radius_range=radius_range,
        radius_quantile=radius_quantile,
        requirements=tuple(requirements),
    )


def loading_release(
    data: np.ndarray | DaskRows,
    names: list[str],
    plan: LoadingPlan,
    rng: np.random.Generator,
    *,
    non_private: bool = False,
    progress: bool = False,
) -> LoadingResult:
    """The releases of a validated plan on validated data (the caller has charged the budget)."""
    n = data.shape[0]
    degree, sensitivity, calibration = plan.degree, plan.sensitivity_kind, plan.calibration
    noise = Noise(plan.sampler, rng)
    ledger = PrivacyLedger()
    sign = plan.sign
    if plan.radius_quantile is not None:  # an automatic radius
        first, second = random_pairs(n, rng)
        distances = row_values(data).pairs(first, second, half_distances)
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
