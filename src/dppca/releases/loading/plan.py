"""A loading release's settings and plan: the directions given or estimated, the sign transform,
the automatic radius and the Kendall matrix's Gaussian mechanism, fixed from public values.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca._validation import (
    check_data,
    check_delta,
    check_epsilon,
    check_option,
    check_real,
)
from dppca.numerics.kendall import check_pairs, unit_error_bound
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
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import (
    MAX_NOISE_SCALE,
    GaussianMechanism,
    check_noise_scale,
    resolve_sampler,
)
from dppca.privacy.quantiles import GridQuantile, safe_level
from dppca.privacy.requirements import Requirement, locating

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
