"""A loading release's settings and plan: the directions given or estimated, the sign transform,
the automatic radius and the Kendall matrix's Gaussian mechanism, fixed from public values.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dppca._settings import Constraint, Settings, one_of, optional, real
from dppca.numerics.kendall import auto_degree, unit_error_bound
from dppca.numerics.sensitivity import SENSITIVITIES, unit_kendall_sensitivity
from dppca.numerics.signs import (
    MAX_BOUND,
    MIN_BOUND,
    SignTransform,
    WinsorizedSign,
    make_sign_transform,
)
from dppca.privacy.budget import (
    Budget,
    check_parts,
    split_epsilon,
)
from dppca.privacy.mechanisms import (
    MAX_NOISE_SCALE,
    GaussianMechanism,
    check_noise_scale,
)
from dppca.privacy.quantiles import GridQuantile, safe_level
from dppca.privacy.requirements import Requirement, locating
from dppca.privacy.settings import NoiseSettings
from dppca.releases.loading.given import check_center
from dppca.releases.loading.sscm import SSCMPlan, plan_sscm

#: The statistics the directions can come from: the generalized Kendall matrix (g-DPPCA), or
#: the spatial sign covariance matrix about a private centre.
STATISTICS = ("kendall", "sscm", "auto")
#: ``statistic="auto"`` takes the SSCM from this ``n epsilon`` of the directions' release, where
#: it beat or tied the Kendall matrix in 333 of 336 cells of the accuracy benchmark (below, the
#: Kendall matrix won 98 of 144).
AUTO_N_EPSILON = 2000.0
#: The Kendall matrix's settings at their defaults (the SSCM takes none of them).
KENDALL_DEFAULTS = {
    "transform": "spherical",
    "radius": None,
    "pairs": "auto",
    "sensitivity": "tight",
}

#: Share of the loading epsilon spent on the winsorization radius when ``radius="auto"``.
DEFAULT_RADIUS_SHARE = 0.1


#: Level of the private quantile of pair half-distances used as the automatic radius.
DEFAULT_RADIUS_LEVEL = 0.5


def check_sign_settings(
    transform: Any, radius: Any, name: str = "transform"
) -> SignTransform | None:
    """The sign transform of ``transform`` and a public ``radius``, or None for ``radius="auto"``
    (resolved privately by the release), which needs ``transform="winsorized"``. Errors call the
    transform ``name``."""
    if not isinstance(radius, str):
        return make_sign_transform(transform, radius, name)
    if radius != "auto":
        raise ValueError(f'radius must be a positive number or "auto"; got {radius!r}.')
    if transform != "winsorized":
        raise ValueError(f'radius="auto" applies to {name}="winsorized"; got {name}={transform!r}.')
    return None


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


def check_pairs_kind(pairs: Any, name: str) -> Any:
    """``pairs``: ``"auto"``, ``"all"`` or an even integer of at least 2 (its upper limit,
    ``n - 1``, is checked with the data's size)."""
    if isinstance(pairs, str) and pairs in ("all", "auto"):
        return pairs
    if isinstance(pairs, bool | np.bool_) or not isinstance(pairs, int | np.integer):
        raise TypeError(f'{name} must be "auto", "all" or an even integer; got {pairs!r}.')
    if pairs < 2 or pairs % 2:
        raise ValueError(
            f'{name} must be "auto", "all" or an even integer with 2 <= {name} <= n - 1; '
            f"got {pairs!r}."
        )
    return int(pairs)


def design_degree(pairs: str | int, n: int) -> int | None:
    """The design's degree for checked ``pairs``: None for all pairs, :func:`auto_degree` of
    ``n`` for ``"auto"``, else ``pairs``."""
    if pairs == "all":
        return None
    return auto_degree(n) if pairs == "auto" else int(pairs)


@dataclass(frozen=True)
class LoadingSettings(Settings):
    """How the private directions are estimated: the generalized spatial sign, the pairs of the
    Kendall matrix and its sensitivity (:func:`~dppca.dp_loading`), checked once.

    Parameters
    ----------
    transform : {"spherical", "winsorized"} or callable, default "spherical"
        Generalized spatial sign ``h``: 1, ``min(radius, s)``, or a user ``h`` capped at its
        declared bound ``radius``.
    radius : float or "auto", optional
        Winsorization radius (public), ``"auto"`` to estimate it privately, or the declared bound
        of a callable ``h``.
    pairs : "auto", "all" or even int, default "auto"
        All pairs, or the incomplete U-statistic over a circulant design in which every row is
        in ``pairs`` pairs (linear in n, same sensitivity; see :func:`dppca.kendall_matrix`).
        ``"auto"``: all pairs up to 20,000 rows, ``pairs=64`` above.
    sensitivity : {"tight", "paper"}, default "tight"
        ``2 sqrt(2) ||g||^2 / n`` or the paper's ``4 ||g||^2 / n`` (Kim and Jung 2025); the
        R package's calibration (:class:`~dppca.NoiseSettings` ``mechanism="paper"``) uses the
        paper's.
    radius_share : float, default 0.1
        With ``radius="auto"``: the share of epsilon (no delta) spent on the radius.
    radius_level : float, default 0.5
        With ``radius="auto"``: the quantile level of the pair half-distances
        ``||x_a - x_b|| / sqrt(2)`` over disjoint random pairs (each row in one pair, so a count
        has sensitivity 1), estimated by the exponential mechanism on a logarithmic grid
        (McSherry and Talwar 2007; equivariant to the data's units; the level moves towards 1/2
        when the budget is small, see :func:`~dppca.privacy.quantiles.safe_level`), clamped
        into ``[1e-150, 1e150]``.
    statistic : {"kendall", "sscm", "auto"}, default "kendall"
        The matrix whose eigenvectors are the directions: the generalized Kendall matrix
        (g-DPPCA, Kim and Jung 2025; translation invariant, Frobenius sensitivity
        ``2 sqrt(2) / n``), or the spatial sign covariance matrix about a private centre
        (Visuri, Koivunen and Oja 2000; sensitivity ``sqrt(2) / n``, each row entering once,
        at the price of the centre's budget; :mod:`dppca.releases.loading.sscm`). The other
        settings apply to the Kendall matrix. ``"auto"`` chooses from public values alone
        (:meth:`resolve`): the SSCM when ``n epsilon >= 2000`` for the directions' release, the
        data are in memory, the Kendall settings are at their defaults, the calibration is
        analytic and the SSCM's plan locates its centre at any distance; the Kendall matrix
        otherwise.
    center : array-like of shape (n_features,), optional
        For the SSCM: a public centre (known without the data, e.g. a design's or a published
        population's means), about which the spatial signs are taken. Nothing is then spent on
        locating a centre: the pair scale alone is released before the matrix, which gets the
        rest of the budget. None (the default): a private centre. The Kendall matrix is
        translation invariant and takes none.

    Examples
    --------
    >>> from dppca import Budget, LoadingSettings, NoiseSettings
    >>> settings = LoadingSettings(transform="winsorized", radius=2.0)
    >>> plan = settings.plan((1000, 4), Budget(1.0, 1e-6), NoiseSettings(sampler="continuous"))
    >>> plan.sign.bound, round(plan.sigma, 5)
    (2.0, 0.01195)
    """

    transform: str | Callable[[np.ndarray], np.ndarray] = "spherical"
    radius: float | str | None = None
    pairs: str | int = "auto"
    sensitivity: str = "tight"
    radius_share: float = DEFAULT_RADIUS_SHARE
    radius_level: float = DEFAULT_RADIUS_LEVEL
    statistic: str = "kendall"
    center: Any = None
    #: The sign transform of a public radius (None for ``radius="auto"``).
    sign: SignTransform | None = field(default=None, init=False, repr=False, compare=False)

    constraints: ClassVar[Mapping[str, Constraint]] = {
        "statistic": one_of(*STATISTICS),
        "center": optional(check_center),
        "pairs": check_pairs_kind,
        "sensitivity": one_of(*SENSITIVITIES),
        "radius_share": real(0.0, 1.0),
        "radius_level": real(0.0, 1.0),
    }

    def _check_together(self, names: Mapping[str, str]) -> None:
        sign = check_sign_settings(self.transform, self.radius, names.get("transform", "transform"))
        object.__setattr__(self, "sign", sign)
        given = self._kendall_settings()
        if self.statistic == "sscm" and given:
            raise ValueError(
                f"{sorted(given)} apply to statistic='kendall'; the SSCM uses spatial signs "
                f"about a private centre (got {given})."
            )
        if self.statistic == "kendall" and self.center is not None:
            raise ValueError(
                f"{names.get('center', 'center')} applies to statistic='sscm' (or 'auto'); the "
                "Kendall matrix is translation invariant and takes no centre."
            )

    def _kendall_settings(self) -> dict[str, Any]:
        """The Kendall matrix's settings given away from their defaults."""
        return {
            name: getattr(self, name)
            for name, default in KENDALL_DEFAULTS.items()
            if getattr(self, name) != default
        }

    def resolve(
        self, shape: tuple[int, int], budget: Budget, noise: NoiseSettings, *, in_memory: bool
    ) -> LoadingSettings:
        """These settings with ``statistic="auto"`` replaced by the statistic it chooses for
        data of ``shape`` (``in_memory`` or not) and the directions' ``budget`` (public values
        alone; see the class). Other statistics are kept.

        Examples
        --------
        >>> from dppca import Budget, LoadingSettings, NoiseSettings
        >>> auto, noise = LoadingSettings(statistic="auto"), NoiseSettings()
        >>> auto.resolve((5000, 20), Budget(1.0, 1e-8), noise, in_memory=True).statistic
        'sscm'
        >>> auto.resolve((1000, 20), Budget(1.0, 1e-8), noise, in_memory=True).statistic
        'kendall'
        """
        if self.statistic != "auto":
            return self
        n = shape[0]
        center = self._center(shape[1])  # checked whichever statistic is chosen
        chosen = "kendall"
        if (
            in_memory
            and n * budget.epsilon >= AUTO_N_EPSILON
            and noise.calibration == "analytic"
            and not self._kendall_settings()
        ):
            try:
                plan = plan_sscm(shape, budget, str(noise.sampler), center)
            except ValueError:  # a noise scale out of range
                plan = None
            if plan is not None and all(need.met for need in plan.requirements):
                chosen = "sscm"
        return self.replace(statistic="sscm") if chosen == "sscm" else self.as_kendall()

    def as_kendall(self) -> LoadingSettings:
        """These settings with the Kendall matrix, which takes no centre."""
        return self.replace(statistic="kendall", center=None)

    def _center(self, p: int) -> np.ndarray | None:
        """The public centre as an array of the data's ``p`` variables, or None."""
        if self.center is None:
            return None
        if len(self.center) != p:
            raise ValueError(
                f"{self.name_of('center')} must have one value per variable ({p}); got "
                f"{len(self.center)}."
            )
        return np.array(self.center)

    def check_noise(self, noise: NoiseSettings) -> None:
        """Refuse noise settings the statistic cannot use: the SSCM's Gaussian parts are
        composed by Gaussian DP or zCDP, which the classical calibration is not."""
        if self.statistic == "sscm" and noise.calibration != "analytic":
            raise ValueError(
                "statistic='sscm' needs calibration='analytic' (its Gaussian parts compose by "
                f"Gaussian DP); got calibration={noise.calibration!r}"
                + (" (mechanism='paper')." if noise.paper else ".")
            )

    def to_dict(self) -> dict[str, Any]:
        """The fields and their values; a callable ``transform`` is named (``"custom:h"``), as
        it cannot be stored."""
        fields = super().to_dict()
        if callable(self.transform) and self.sign is not None:
            fields["transform"] = self.sign.settings()["transform"]
        return fields

    def check_shape(self, n: int) -> None:
        """Refuse an explicit ``pairs`` above ``n - 1`` (each row has at most ``n - 1``
        partners)."""
        if not isinstance(self.pairs, str) and self.pairs > n - 1:
            name = self.name_of("pairs")
            raise ValueError(
                f'{name} must be "auto", "all" or an even integer with 2 <= {name} <= n - 1 = '
                f"{n - 1}; got {self.pairs!r}."
            )

    def plan(
        self, shape: tuple[int, int], budget: Budget, noise: NoiseSettings
    ) -> LoadingPlan | SSCMPlan:
        """The release's plan for data of ``shape`` and a validated ``budget``, its noise fixed
        from public values, without checking the settings again.

        Every noise scale is set by public values here, before any charge: one that is not a
        positive normal float is refused (for an automatic radius, at both ends of its search
        grid).
        """
        if self.statistic == "auto":
            raise ValueError("statistic='auto' is resolved before planning (resolve()).")
        if self.statistic == "sscm":
            return plan_sscm(shape, budget, str(noise.sampler), self._center(shape[1]))
        n, p = shape
        epsilon, delta = budget.epsilon, budget.delta
        sensitivity = "paper" if noise.paper else self.sensitivity
        calibration, sampler = noise.calibration, str(noise.sampler)
        sign = self.sign
        degree = design_degree(self.pairs, n)
        radius_epsilon, kendall_epsilon = 0.0, epsilon
        if sign is None:
            radius_epsilon, kendall_epsilon = check_parts(
                split_epsilon(epsilon, [self.radius_share, 1.0 - self.radius_share]),
                f"epsilon={epsilon:g} and radius_share={self.radius_share:g}",
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
                safe_level(self.radius_level, n // 2, radius_epsilon, "log"),
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
            check_noise_scale(
                sigma * sign.bound**2, f"the Kendall matrix, sign bound {sign.bound:g}"
            )
            radius_range = (sign.bound, sign.bound)
        return LoadingPlan(
            n=n,
            p=p,
            epsilon=epsilon,
            delta=delta,
            transform=self.transform,
            sign=sign,
            radius_share=self.radius_share,
            radius_level=self.radius_level,
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
