"""The clipped scree: each pair's row of squared half-differences scaled down to L1 norm at
most a clip level ``C``, the mean rows released by one Gaussian mechanism of L2 sensitivity
``sqrt(2) C / m``; ``C`` public, or a multiple of a private quantile of the row totals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from dppca._validation import check_option, check_real
from dppca.numerics.row_values import RowValues, column_means
from dppca.numerics.sensitivity import row_clip_sensitivity
from dppca.privacy.budget import (
    PrivacyLedger,
    check_parts,
    split_epsilon,
)
from dppca.privacy.mechanisms import (
    GaussianMechanism,
    Noise,
)
from dppca.privacy.quantiles import (
    GridQuantile,
    locating_reach,
    safe_level,
)
from dppca.privacy.requirements import Requirement, locating
from dppca.releases.scree.common import (
    PlannedScree,
    ScreeMethod,
    check_widths,
    joint_gaussian,
    joint_name,
    means_mechanism,
    scale_range,
    width_range,
)

#: The default clip level is this multiple of the private median row total.
CLIP_MULTIPLIER = 2.5


def row_totals(W: np.ndarray) -> np.ndarray:
    """``S_j = sum_l W_jl`` for each pair (``+inf`` when a row holds an infinite value)."""
    with np.errstate(over="ignore"):
        return cast("np.ndarray", W.sum(axis=1))


def row_shares(W: np.ndarray, clip: float) -> np.ndarray:
    """``W_j / max(C, S_j)``: each row scaled to L1 norm at most 1 (``W_j min(1, C/S_j) / C``).

    Rows are first divided by their largest entry, so no sum overflows; a row with infinite
    entries becomes the indicator of those entries over their number, a row of zeros stays
    zero. Every computed row is non-negative with L1 norm at most ``1 + (k + 2) u`` (``u =
    2^-53``): the division by the rounded row sum adds ``k u`` and two roundings.
    """
    peak = W.max(axis=1)
    infinite = ~np.isfinite(peak)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        unit = W / np.where((peak > 0) & ~infinite, peak, 1.0)[:, None]
        unit[infinite] = np.isinf(W[infinite]).astype(np.float64)
        ratio = clip / peak  # +inf for a zero row, 0 for an infinite one
    shape = unit.sum(axis=1)
    return cast("np.ndarray", unit / np.maximum(ratio, shape)[:, None])


def clip_range(
    m: int, k: int, epsilon: float, delta: float, sampler: str = "continuous"
) -> tuple[float, float]:
    """The clip levels ``C`` whose noise ``C sigma`` is a normal float and whose released values
    stay finite: ``[2^-1000, 2^1000] / sigma``, capped at ``2^1000``. Raises ``ValueError`` when
    the range is empty (absurd budgets only), before any charge."""
    unit = clipped_means_mechanism(m, k, epsilon, delta, sampler).scale
    return scale_range(unit, 1, m, k, epsilon, delta)


def clipped_means_mechanism(
    m: int, k: int, epsilon: float, delta: float, sampler: str
) -> GaussianMechanism:
    """The Gaussian mechanism on the means of :func:`row_shares`
    (:func:`row_clip_sensitivity`)."""
    return GaussianMechanism(
        row_clip_sensitivity(m, k), k, epsilon, delta, sampler, description=joint_name(sampler)
    )


def clip_share(control: dict[str, Any], m: int, epsilon: float) -> float:
    """The share of the scree's epsilon spent on the automatic clip level (public values).

    ``"auto"``: 1.5 times the epsilon that locates the ``clip_level`` quantile of ``m`` row
    totals, ``2 (ln G + ln 1000) / ((1 - level) m - 1)`` (:func:`safe_level`), as a share of
    ``epsilon``, within ``[0.1, 0.5]``.

    Examples
    --------
    >>> round(clip_share({"clip_share": "auto", "clip_level": 0.75}, 1252, 4 / 3), 3)
    0.146
    """
    if not isinstance(control["clip_share"], str):
        return cast("float", control["clip_share"])
    level = control["clip_level"]
    room = min(level, 1.0 - level) * m - 1.0
    needed = locating_reach(1.0, "log") / room if room > 0 else math.inf
    return min(max(1.5 * needed / epsilon, 0.1), 0.5)


def clipped_estimate(
    W: RowValues, plan: PlannedScree, noise: Noise, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    """The clipped means of the pairs' rows ``W`` (the clip level private or public), released
    by the plan's mechanisms; entries go to ``ledger``."""
    k = W.shape[1]
    control, parts, label = plan.control, plan.parts, plan.label
    low, high = parts["clip_range"]
    details: dict[str, Any] = {}
    clip_quantile = parts["clip"]
    if clip_quantile is not None:
        typical = clip_quantile.release(W.map(row_totals), noise)
        clip = min(control["clip_multiplier"] * typical, high)
        clip_quantile.record(ledger, f"{label}: clip level", "scree")
        details.update(clip_quantile=typical, clip_quantile_level=clip_quantile.level)
    else:
        clip = float(control["C_clip"])
    clip = max(clip, low)
    means = parts["means"]
    if control["clip_by"] == "component":  # each W_jl clipped at C: sensitivity sqrt(k) C / m
        widths = np.full(k, clip)
        released, sd = joint_gaussian(W.map(np.minimum, clip), np.zeros(k), widths, means, noise)
        means.record(ledger, f"{label}: component-clipped means", "scree")
        details.update(clip=clip, noise_sd=sd)
        return released, details
    released = means.randomise(column_means(W.map(row_shares, clip)), noise)
    means.record(ledger, f"{label}: row-clipped means", "scree")
    details.update(clip=clip, noise_sd=np.full(k, clip * means.scale))
    return clip * released, details


def clipped_parts(
    control: dict[str, Any],
    m: int,
    k: int,
    epsilon: float,
    delta: float,
    sampler: str,
    what: str,
) -> dict[str, Any]:
    """The automatic clip level's quantile (or None for a public ``C_clip``), the clipped
    means' Gaussian mechanism and the public range of clip levels; with ``clip_by="component"``
    the Gaussian mechanism on the means of each component clipped at ``C_clip`` (the R
    package's)."""
    if control["clip_by"] == "component":
        clips = width_range(m, k, epsilon, delta, sampler)
        check_widths("C_clip", control["C_clip"], *clips)
        means = means_mechanism(m, k, epsilon, delta, sampler)
        return {"clip": None, "means": means, "clip_range": clips}
    if isinstance(control["C_clip"], str):
        share = clip_share(control, m, epsilon)
        quantile_epsilon, mean_epsilon = check_parts(
            split_epsilon(epsilon, [share, 1 - share]), what
        )
        clip = GridQuantile(
            "log",
            safe_level(control["clip_level"], m, quantile_epsilon, "log"),
            quantile_epsilon,
            sampler,
            description="row totals",
            positive=True,  # pairs of duplicated rows (total 0) do not pull the clip to 0
        )
        clips = clip_range(m, k, mean_epsilon, delta, sampler)
    else:
        clip, mean_epsilon = None, epsilon
        clips = clip_range(m, k, epsilon, delta, sampler)
        check_widths("C_clip", control["C_clip"], *clips)
    means = clipped_means_mechanism(m, k, mean_epsilon, delta, sampler)
    return {"clip": clip, "means": means, "clip_range": clips}


def check_control(c: dict[str, Any]) -> dict[str, Any]:
    """The clipped scree's control, merged with its defaults, checked value by value."""
    if isinstance(c["C_clip"], str):
        check_option(c["C_clip"], "C_clip", ["auto"])
    else:
        c["C_clip"] = check_real(c["C_clip"], "C_clip", low=0.0)
    c["clip_level"] = check_real(c["clip_level"], "clip_level", low=0.0, high=1.0)
    c["clip_multiplier"] = check_real(c["clip_multiplier"], "clip_multiplier", low=0.0)
    if isinstance(c["clip_share"], str):
        check_option(c["clip_share"], "clip_share", ["auto"])
    else:
        c["clip_share"] = check_real(c["clip_share"], "clip_share", low=0.0, high=1.0)
    c["clip_by"] = check_option(c["clip_by"], "clip_by", ["row", "component"])
    if c["clip_by"] == "component" and isinstance(c["C_clip"], str):
        raise ValueError(
            'clip_by="component" (the R package\'s clipped scree) needs a public number '
            'C_clip, the largest value of each W; got C_clip="auto".'
        )
    return c


def mechanisms(parts: Mapping[str, Any]) -> list[Any]:
    """The private clip level's quantile (none for a public clip), then the means'."""
    clip = [] if parts["clip"] is None else [parts["clip"]]
    return [*clip, parts["means"]]


def requirements(parts: Mapping[str, Any], m: int, label: str) -> list[Requirement]:
    """A private clip level must be located among the ``m`` row totals."""
    clip = parts["clip"]
    if clip is None:
        return []
    return [
        locating(
            label,
            "clip level",
            m,
            clip.epsilon,
            "log",
            "a public clip level (C_clip in the clipped scree's control)",
        )
    ]


METHOD = ScreeMethod(
    defaults={
        "C_clip": "auto",
        "clip_level": 0.75,
        "clip_multiplier": CLIP_MULTIPLIER,
        "clip_share": "auto",
        "clip_by": "row",
    },
    check=check_control,
    min_pairs=1,
    plan_parts=clipped_parts,
    mechanisms=mechanisms,
    requirements=requirements,
    estimate=clipped_estimate,
)
