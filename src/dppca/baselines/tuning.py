"""The private tuning a knowledgeable user gives a competitor: a clip norm (a private median
of the row norms) and a centre (private coordinate medians, or private means within public
bounds), each with its share of epsilon.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_option, check_real
from dppca.numerics.sscm import offsets
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.durfee import DurfeeQuantile
from dppca.privacy.mechanisms import GaussianMechanism, Noise
from dppca.privacy.quantiles import GridQuantile, safe_level

#: The share of epsilon a private clip norm costs: what g-DPPCA's automatic radius gets.
CLIP_SHARE = 0.1
#: The share of epsilon private centring costs (each coordinate's median gets 1/d of it).
CENTER_SHARE = 0.5


def private_center(
    data: np.ndarray, epsilon: float, noise: Noise, ledger: PrivacyLedger, name: str
) -> np.ndarray:
    """Coordinate-wise private medians: Durfee's two-sided search (no bounds) on each of the
    ``d`` columns with ``epsilon / d`` each (pure DP; basic composition over the columns)."""
    d = data.shape[1]
    parts = split_epsilon(epsilon, [1.0 / d] * d)
    center = np.empty(d)
    for column, part in enumerate(parts):
        search = DurfeeQuantile(0.5, part, sampler=noise.sampler, description=f"column {column}")
        center[column] = search.release(data[:, column], noise)
        search.record(ledger, f"{name}: centre of column {column}", "baseline")
    return center


#: The share of epsilon (and of delta) a private mean within public bounds costs.
BOUNDED_CENTER_SHARE = 0.1


def bounded_center(
    data: np.ndarray,
    bounds: tuple[float, float],
    budget: Budget,
    noise: Noise,
    ledger: PrivacyLedger,
    name: str,
) -> np.ndarray:
    """Coordinate means within public ``bounds = (low, high)`` (values clamped into them): one
    Gaussian mechanism on the ``d`` means, each moving by at most ``(high - low) / n`` when a
    row is replaced (L2 sensitivity ``(high - low) sqrt(d) / n``)."""
    n, d = data.shape
    low, high = bounds
    mechanism = GaussianMechanism(
        (high - low) * math.sqrt(d) / n, d, budget.epsilon, budget.delta, noise.sampler
    )
    means = np.clip(data, low, high).mean(axis=0)
    mechanism.record(ledger, f"{name}: centre (means within public bounds)", "baseline")
    return mechanism.randomise(means, noise)


def clip_quantile(n: int, epsilon: float, noise: Noise) -> GridQuantile:
    """The mechanism of :func:`private_clip` for ``n`` rows (built before any release, so that
    a share of epsilon too small for it is refused before anything is spent)."""
    level = safe_level(0.5, n, epsilon, "log")
    return GridQuantile("log", level, epsilon, noise.sampler, description="row norms")


def private_clip(
    data: np.ndarray, quantile: GridQuantile, noise: Noise, ledger: PrivacyLedger, name: str
) -> float:
    """A private median of the row norms on the logarithmic grid (``quantile``, from
    :func:`clip_quantile`): the same mechanism and the same share of epsilon as g-DPPCA's
    automatic winsorization radius. The norms are computed without overflow or underflow
    (:func:`~dppca.numerics.sscm.offsets`)."""
    _, norms = offsets(data, np.zeros(data.shape[1]))
    clip = quantile.release(norms, noise)
    quantile.record(ledger, f"{name}: clip norm", "baseline")
    return clip


def tuning_shares(clip: Any, center: Any) -> tuple[float, float]:
    """The shares of epsilon spent on a private clip norm and on private centring."""
    clip_share = CLIP_SHARE if isinstance(clip, str) else 0.0
    center_share = {None: 0.0, "private": CENTER_SHARE, "bounded": BOUNDED_CENTER_SHARE}[center]
    return clip_share, center_share


def check_tuning(
    clip: Any, center: Any, bounds: Any = None
) -> tuple[float | str, str | None, tuple[float, float] | None]:
    if isinstance(clip, str):
        clip = check_option(clip, "clip", ["private", "scale"])
        if clip == "scale" and center != "private":
            raise ValueError(
                'clip="scale" takes the clip from the private centre\'s scale, so it needs '
                f'center="private"; got center={center!r}.'
            )
    else:
        clip = check_real(clip, "clip", low=0.0)
    if center is not None:
        center = check_option(center, "center", ["private", "bounded"])
    if (center == "bounded") != (bounds is not None):
        raise ValueError(
            'center="bounded" needs bounds=(low, high), the public range of every coordinate, '
            f"and bounds apply only to it; got center={center!r}, bounds={bounds!r}."
        )
    if bounds is not None:
        low = check_real(bounds[0], "bounds[0]")
        high = check_real(bounds[1], "bounds[1]", low=low)
        bounds = (low, high)
    return clip, center, bounds


def centered(
    data: np.ndarray,
    center: str | None,
    bounds: tuple[float, float] | None,
    budget: Budget,
    noise: Noise,
    ledger: PrivacyLedger,
    name: str,
) -> np.ndarray:
    """The rows minus a private centre (``budget``): coordinate medians or bounded means."""
    if center is None:
        return data
    if center == "bounded":
        assert bounds is not None  # checked by check_tuning
        return data - bounded_center(data, bounds, budget, noise, ledger, name)
    return data - private_center(data, budget.epsilon, noise, ledger, name)
