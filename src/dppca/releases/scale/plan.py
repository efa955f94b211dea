"""A scale release's settings and plan (the clip quantiles' and the means' mechanisms, fixed from
public values), public scales, and the division of the data by the scales.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast, overload

import numpy as np
from scipy import special

from dppca._validation import (
    check_option,
    check_real,
)
from dppca.numerics.dask_rows import DaskRows, map_rows
from dppca.numerics.rows import Rows
from dppca.privacy.budget import (
    Budget,
    check_parts,
    split_epsilon,
)
from dppca.privacy.mechanisms import GaussianMechanism
from dppca.privacy.quantiles import GridQuantile, safe_level
from dppca.privacy.requirements import Requirement, locating
from dppca.releases.scree import means_mechanism, width_range

#: The default level of each variable's clip quantile.
DEFAULT_LEVEL = 0.99


#: The default share of epsilon spent on the clip quantiles.
DEFAULT_CLIP_SHARE = 0.5


#: The chance, for the whole table, that a variable with a good release is flagged.
FLAG_RATE = 0.01


def clipped_normal_mean(level: float) -> float:
    """``E min(|Z|, z)`` for standard normal ``Z`` and ``z = Phi^-1((1 + level) / 2)``: the
    clipped mean half-difference of a normal variable of standard deviation 1.

    Examples
    --------
    >>> round(clipped_normal_mean(0.9), 4)
    0.7561
    >>> round(clipped_normal_mean(1 - 1e-12), 4)  # no clipping: E|Z| = sqrt(2 / pi)
    0.7979
    """
    z = float(special.ndtri((1.0 + level) / 2.0))
    density = math.exp(-z * z / 2.0) / math.sqrt(2.0 * math.pi)
    return 2.0 * (1.0 / math.sqrt(2.0 * math.pi) - density) + 2.0 * z * float(special.ndtr(-z))


@dataclass(frozen=True)
class ScalePlan:
    """A validated scale release: one clip quantile per variable (``quantiles``), the means'
    Gaussian mechanism and the normal consistency constant of the clip level used."""

    n: int
    p: int
    budget: Budget
    sampler: str
    quantiles: tuple[GridQuantile, ...]
    means: GaussianMechanism
    consistency: float
    widths: tuple[float, float]
    #: What the budget must locate and resolve (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once, in release order."""
        return [*self.quantiles, self.means]

    @property
    def level(self) -> float:
        """The level of the clip quantiles (after :func:`~dppca.privacy.quantiles.safe_level`)."""
        return self.quantiles[0].level


def plan_scale(
    shape: tuple[int, int],
    budget: Budget,
    sampler: str,
    *,
    level: float = DEFAULT_LEVEL,
    clip_share: float = DEFAULT_CLIP_SHARE,
    label: str = "scale",
) -> ScalePlan:
    """Plan the scale release for data of ``shape``, a validated ``budget`` and checked
    ``level`` and ``clip_share``, its mechanisms fixed from public values (before any charge),
    without checking the settings again: the clip quantiles' level is moved
    towards 1/2 as far as the budget needs. Its requirements (:func:`scale_requirements`) say
    whether the budget can locate the clip levels and resolve a normal variable's scale."""
    n, p = shape
    what = f"The scale's epsilon={budget.epsilon:g}, delta={budget.delta:g} and clip_share"
    clip_epsilon, mean_epsilon = check_parts(
        split_epsilon(budget.epsilon, [clip_share, 1.0 - clip_share]), what
    )
    (each,) = check_parts([split_epsilon(clip_epsilon, [1.0 / p] * p)[-1]], what)
    m = n // 2
    used = safe_level(level, m, each, "log")
    quantiles = tuple(
        GridQuantile(
            "log", used, each, sampler, description=f"pair differences of variable {j + 1}"
        )
        for j in range(p)
    )
    means = means_mechanism(m, 2 * p, mean_epsilon, budget.delta, sampler)
    widths = width_range(m, 2 * p, mean_epsilon, budget.delta, sampler, release=label)
    consistency = clipped_normal_mean(used)
    requirements = (
        locating(label, "clip levels", m, each, "log", PUBLIC_SCALES),
        resolving(label, used, consistency, means.scale, p),
    )
    return ScalePlan(n, p, budget, sampler, quantiles, means, consistency, widths, requirements)


#: The public alternative to private scales, as refusals name it.
PUBLIC_SCALES = "public scales, scale=[...] (units known without the data)"


def resolving(label: str, level: float, consistency: float, unit_sd: float, p: int) -> Requirement:
    """The requirement that a normal variable's scale be resolved: its expected released
    values clear each of the three flags of :func:`scale_release` by ``z`` more noise sd
    (``z`` as there), so that it is flagged with probability about ``FLAG_RATE / p``.

    For a normal variable the clipped mean over the clip is ``r = c(z_q) / z_q`` and every
    pair is untied; with unit noise sd ``u`` (in units of the clip) the flags need
    ``r >= 2 z u``, ``q >= 2 z u`` and ``1 - r >= 2 sqrt(2) z u``.
    """
    z = -float(special.ndtri(FLAG_RATE / p))
    ratio = consistency / float(special.ndtri((1.0 + level) / 2.0))
    largest = min(ratio, level, (1.0 - ratio) / math.sqrt(2.0)) / (2.0 * z)
    warning = (
        f"{label}: the scales' noise sd ({unit_sd:.3g} of each clip level) is too large to tell "
        f"a variable's scale from its flags (at most {largest:.3g} is needed); variables will be "
        "flagged as unreliable."
    )
    return Requirement(label, "means", unit_sd <= largest, PUBLIC_SCALES, warning)


def check_scale(scale: Any, p: int) -> tuple[bool, np.ndarray | None]:
    """A ``scale=`` setting: None, ``"private"`` (released by :func:`dp_scale`'s mechanism) or
    ``p`` public scales. Returns whether the scales are private, and the public ones."""
    if scale is None:
        return False, None
    if isinstance(scale, str):
        check_option(scale, "scale", ["private"])
        return True, None
    return False, check_public_scales(scale, p)


def check_public_scales(scale: Any, p: int) -> np.ndarray:
    """User-given scales: ``p`` positive finite numbers (public constants, or scales released
    earlier)."""
    values = np.asarray(scale, dtype=object)
    if values.ndim != 1 or values.shape[0] != p:
        raise ValueError(
            f'scale must be None, "private" or {p} positive numbers (one per variable); got '
            f"{values.shape[0] if values.ndim == 1 else f'shape {values.shape}'} values."
        )
    return np.array([check_real(value, "scale", low=0.0) for value in values], dtype=np.float64)


#: Scaled values are clamped to this size, so that a tiny scale cannot make them infinite.
SCALED_LIMIT = 1e300


@overload
def scaled(data: np.ndarray, scales: np.ndarray, limit: float = ...) -> np.ndarray: ...


@overload
def scaled(data: DaskRows, scales: np.ndarray, limit: float = ...) -> DaskRows: ...


def scaled(data: Rows, scales: np.ndarray, limit: float = SCALED_LIMIT) -> Rows:
    """``data / scales`` column by column (a new array), clamped to ``+-limit`` (for Dask data,
    lazily, chunk by chunk).

    Examples
    --------
    >>> scaled(np.array([[2.0, 1e-10]]), np.array([2.0, 1e-311])).tolist()
    [[1.0, 1e+300]]
    """
    if isinstance(data, DaskRows):
        return map_rows(data, scaled, scales, limit)
    with np.errstate(over="ignore"):
        return cast("Rows", np.clip(data / scales, -limit, limit))
