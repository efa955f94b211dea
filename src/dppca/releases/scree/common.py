"""The machinery every scree method shares: the joint Gaussian release of clipped means, its
noise per unit width and the widths' public range.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

from dppca._stack import user_stacklevel
from dppca.exceptions import DurfeeStepLimitWarning
from dppca.numerics.row_values import RowValues, as_values, column_means
from dppca.numerics.sensitivity import means_sensitivity
from dppca.privacy.budget import PrivacyLedger
from dppca.privacy.mechanisms import (
    GaussianMechanism,
    Noise,
)
from dppca.privacy.requirements import Requirement


def noise_per_width(
    m: int, k: int, epsilon: float, delta: float, sampler: str = "continuous"
) -> float:
    """The joint mechanism's noise sd per unit of a component's width: the Gaussian mechanism's
    scale for L2 sensitivity ``sqrt(k) (1 + 4 u m) / m`` (``/ mu(epsilon, delta)`` with the
    continuous sampler). Public values only."""
    return means_mechanism(m, k, epsilon, delta, sampler).scale


def means_mechanism(
    m: int, k: int, epsilon: float, delta: float, sampler: str, compositions: int = 1
) -> GaussianMechanism:
    """The Gaussian mechanism on the ``k`` means of ``m`` pairs' values scaled into a unit
    interval: L2 sensitivity ``sqrt(k) / m`` times :func:`float_factor`."""
    return GaussianMechanism(
        means_sensitivity(m, k),
        k,
        epsilon,
        delta,
        sampler,
        compositions=compositions,
        description=joint_name(sampler),
    )


def width_range(
    m: int,
    k: int,
    epsilon: float,
    delta: float,
    sampler: str = "continuous",
    release: str = "scree",
) -> tuple[float, float]:
    """The widths (clip levels, winsorizing ranges) whose noise is a normal float and whose sums
    of ``m`` values stay finite: ``[2^-1000, 2^1000] / noise_per_width``, capped at
    ``2^1000 / m``.

    Automatic clip levels are clamped into this public range, and a width below it is raised to
    its lower end for the noise (more noise than needed, never less). Raises ``ValueError`` when
    the range is empty (only for absurd budgets), before any charge.
    """
    unit = noise_per_width(m, k, epsilon, delta, sampler)
    return scale_range(unit, m, m, k, epsilon, delta, release)


def scale_range(
    unit: float,
    terms: int,
    m: int,
    k: int,
    epsilon: float,
    delta: float,
    release: str = "scree",
) -> tuple[float, float]:
    """``[2^-1000, 2^1000] / unit`` capped at ``2^1000 / terms``; ``ValueError`` when empty."""
    with np.errstate(over="ignore", under="ignore"):
        low = float(np.float64(2.0**-1000) / unit)
        high = min(float(np.float64(2.0**1000) / unit), 2.0**1000 / terms)
    if not (math.isfinite(low) and low >= sys.float_info.min and low <= high):
        raise ValueError(
            f"The {release}'s noise cannot be a normal float at epsilon={epsilon:g}, "
            f"delta={delta:g} with m={m} pairs and {k} values (noise sd per unit width "
            f"{unit:.3g}); use a less extreme budget."
        )
    return low, high


def unit_scaled(values: np.ndarray, lows: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """``(values - lows) / widths``, column by column."""
    return cast("np.ndarray", (values - lows) / widths)


def joint_gaussian(
    values: np.ndarray | RowValues,
    lows: np.ndarray,
    widths: np.ndarray,
    mechanism: GaussianMechanism,
    noise: Noise,
) -> tuple[np.ndarray, np.ndarray]:
    """The means of ``values`` (``m x k``, column ``l`` within ``[low_l, low_l + w_l]``) through
    ``mechanism`` (:func:`means_mechanism`): ``low + w * mean + N(0, diag(sd^2))`` with
    ``sd_l = w_l`` times the mechanism's scale, ``w_l`` raised to the lower end of
    :func:`width_range`.

    The means of ``(values - low) / w``, in ``[0, 1]``, move by at most ``1/m`` per component
    when one pair changes, so the vector has L2 sensitivity ``sqrt(k) / m`` (times
    :func:`float_factor`). ``low + w * mean`` is post-processing. Returns the released means and
    ``sd``.
    """
    with np.errstate(under="ignore"):  # the lower end of width_range for this mechanism
        low = float(np.float64(2.0**-1000) / mechanism.scale)
    widths = np.maximum(widths, low)
    scaled = column_means(as_values(values).map(unit_scaled, lows, widths))
    return lows + mechanism.randomise(scaled, noise) * widths, widths * mechanism.scale


def joint_name(sampler: str) -> str:
    """The joint Gaussian mechanism's name in the ledger, by sampler."""
    return "joint discrete Gaussian (zCDP)" if sampler == "discrete" else "joint Gaussian (GDP)"


def summarise_capped(caught: list[warnings.WarningMessage], label: str) -> None:
    """One warning for the Durfee searches in ``caught`` that reached their step limit."""
    capped = [w for w in caught if issubclass(w.category, DurfeeStepLimitWarning)]
    if capped:
        warnings.warn(
            f"{label}: {len(capped)} Durfee quantile search(es) reached their step limit.",
            DurfeeStepLimitWarning,
            stacklevel=user_stacklevel(),
        )


def check_widths(name: str, values: Any, low: float, high: float) -> None:
    """Refuse a public width ``name`` outside ``[low, high]`` (before any charge)."""
    values = np.asarray(values, dtype=np.float64)
    if np.any(values < low) or np.any(values > high):
        raise ValueError(
            f"{name} must lie between {low:.3g} and {high:.3g} at this budget and number of rows "
            f"(so that the noise is a normal float and sums stay finite); got {values.tolist()}."
        )


#: A control parameter without a default: the user must give it.
REQUIRED = object()


class PlannedScree(Protocol):
    """What a method's estimate reads of its plan."""

    @property
    def control(self) -> Mapping[str, Any]: ...

    @property
    def parts(self) -> Mapping[str, Any]: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True)
class ScreeMethod:
    """One scree method, all in its own module: its control's defaults (:data:`REQUIRED` where
    the user must give a value) and their check, the least number of pairs it needs, the
    mechanisms it plans from public values (``plan_parts``: the mechanisms and the public
    values that go with them), which of those parts draw noise (``mechanisms``), what its
    budget must locate (``requirements``) and its estimate from the pairs.
    """

    defaults: Mapping[str, Any]
    check: Callable[[dict[str, Any]], dict[str, Any]]
    min_pairs: int
    plan_parts: Callable[..., dict[str, Any]]
    mechanisms: Callable[[Mapping[str, Any]], list[Any]]
    requirements: Callable[[Mapping[str, Any], int, str], list[Requirement]]
    estimate: Callable[
        [RowValues, PlannedScree, Noise, PrivacyLedger], tuple[np.ndarray, dict[str, Any]]
    ]
