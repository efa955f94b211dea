"""Private scree: variances along private directions (as in the R package ``dppca``).

Scores on the first ``k`` directions, ``Y = X V_k``, are paired at random into ``m = floor(n/2)``
disjoint pairs, and ``W_jl = (Y_b,l - Y_a,l)^2 / 2`` (translation free: no centring). Each row is
in one pair, so replacing a row changes one row of ``W``. Every method releases a robust mean of
each column of ``W`` through one joint Gaussian mechanism over the ``k`` components: with
per-component widths ``w_l`` (the range a pair can move a component's mean by ``w_l / m``), the
noise is ``N(0, (w_l sqrt(k) / (m mu))^2)``, ``mu``-GDP with ``mu`` from (epsilon, delta) exactly
(Dong, Roth and Su 2022).

* ``"clipped"``: each pair's row ``W_j`` is scaled down to L1 norm at most ``C``,
  ``W_j min(1, C / S_j)`` with ``S_j = sum_l W_jl``, and the mean rows are released by one
  Gaussian mechanism of L2 sensitivity ``sqrt(2) C / m`` (two non-negative rows of L1 norm at
  most ``C`` differ by at most ``sqrt(2) C`` in L2; ``C`` for one component).
  ``C_clip="auto"`` (default) sets ``C = clip_multiplier * q`` with ``q`` a private quantile
  (level ``clip_level``, 0.75) of the row totals ``S_j`` on a logarithmic grid, spending
  ``clip_share`` of epsilon: any units work and the result is equivariant to them; a number is
  a public clip level.
* ``"pmwm"``: private modified winsorized mean (Ramsay and Spicker 2025): per component two
  one-sided Durfee quantiles at levels ``trim`` and ``1 - trim`` clamped to the public ``[a, b]``,
  then the winsorized mean; epsilon/2 to the ``2k`` quantiles, epsilon/2 and delta to the mean.
* ``"huber"``: a private scale per component (the median of squared half-differences of its
  ``W`` values on a logarithmic grid, in place of the R package's dyadic histogram with public
  exponent bounds), then ``T`` steps of noisy clipped gradient descent (Yu, Ren and Zhou 2024).

``mono=True`` post-processes to a non-negative, non-increasing sequence by antitonic least squares.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca._validation import (
    check_bool,
    check_choices,
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
    check_real,
)
from dppca.exceptions import DurfeeStepLimitWarning
from dppca.numerics.dask_rows import Rows, checked_rows
from dppca.numerics.linalg import (
    ordinary_pca,
    pc_labels,
    projected,
)
from dppca.numerics.monotone import antitonic, proportions
from dppca.numerics.pairs import half_squared_gaps, random_halves, random_pairs
from dppca.numerics.row_values import RowValues, as_values, column_means, column_of
from dppca.numerics.sensitivity import means_sensitivity, row_clip_sensitivity
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    check_parts,
    check_repeated,
    split_epsilon,
    warn_weak_budget,
)
from dppca.privacy.mechanisms import (
    MAX_NOISE_SCALE,
    GaussianMechanism,
    Noise,
    resolve_sampler,
)
from dppca.privacy.quantiles import (
    DurfeeQuantile,
    GridQuantile,
    check_search_epsilon,
    locating_reach,
    safe_level,
)
from dppca.privacy.requirements import Requirement, check_on_weak, enforce, locating
from dppca.releases.loading import (
    LoadingResult,
    check_direction_source,
    loading_release,
    plan_loading,
)

SCREE_METHODS = ("clipped", "pmwm", "huber")
#: The default clip level is this multiple of the private median row total.
CLIP_MULTIPLIER = 2.5
_REQUIRED = object()
CONTROL_DEFAULTS: dict[str, dict[str, Any]] = {
    "clipped": {
        "C_clip": "auto",
        "clip_level": 0.75,
        "clip_multiplier": CLIP_MULTIPLIER,
        "clip_share": "auto",
        "clip_by": "row",
    },
    "pmwm": {
        "a": _REQUIRED,
        "b": _REQUIRED,
        "trim_const": _REQUIRED,
        "eta": _REQUIRED,
        "beta": 1.01,
        "split_mode": False,
    },
    "huber": {
        "m2_frac": 0.25,
        "mu0": 0.0,
        "eta0": 1.0,
        "T": None,
    },
}
#: The smallest number of pairs each method needs.
MIN_PAIRS = {"clipped": 1, "pmwm": 1, "huber": 4}


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
        description=_joint_name(sampler),
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
    return _scale_range(unit, m, m, k, epsilon, delta, release)


def _scale_range(
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
    return (values - lows) / widths


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


def row_totals(W: np.ndarray) -> np.ndarray:
    """``S_j = sum_l W_jl`` for each pair (``+inf`` when a row holds an infinite value)."""
    with np.errstate(over="ignore"):
        return W.sum(axis=1)


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
    return unit / np.maximum(ratio, shape)[:, None]


def clip_range(
    m: int, k: int, epsilon: float, delta: float, sampler: str = "continuous"
) -> tuple[float, float]:
    """The clip levels ``C`` whose noise ``C sigma`` is a normal float and whose released values
    stay finite: ``[2^-1000, 2^1000] / sigma``, capped at ``2^1000``. Raises ``ValueError`` when
    the range is empty (absurd budgets only), before any charge."""
    unit = clipped_means_mechanism(m, k, epsilon, delta, sampler).scale
    return _scale_range(unit, 1, m, k, epsilon, delta)


def clipped_means_mechanism(
    m: int, k: int, epsilon: float, delta: float, sampler: str
) -> GaussianMechanism:
    """The Gaussian mechanism on the means of :func:`row_shares`
    (:func:`row_clip_sensitivity`)."""
    return GaussianMechanism(
        row_clip_sensitivity(m, k), k, epsilon, delta, sampler, description=_joint_name(sampler)
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
        return control["clip_share"]
    level = control["clip_level"]
    room = min(level, 1.0 - level) * m - 1.0
    needed = locating_reach(1.0, "log") / room if room > 0 else math.inf
    return min(max(1.5 * needed / epsilon, 0.1), 0.5)


def _clipped(
    W: RowValues, plan: ScreePlan, noise: Noise, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
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


def _pmwm(
    W: RowValues, plan: ScreePlan, noise: Noise, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    m, k = W.shape
    control, parts, label = plan.control, plan.parts, plan.label
    W_q = W_m = W
    if control["split_mode"]:
        quantile_rows, mean_rows = random_halves(m, noise.rng)
        W_q, W_m = W.take(quantile_rows), W.take(mean_rows)
    a, b = control["a"], control["b"]
    lows, highs = np.empty(k), np.empty(k)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DurfeeStepLimitWarning)
        for column, searches in enumerate(parts["bounds"]):
            column_values = W_q.map(column_of, column)
            low, high = (search.release(column_values, noise) for search in searches)
            low, high = min(max(low, a), b), min(max(high, a), b)
            lows[column], highs[column] = (a, b) if high < low else (low, high)
            for search, side in zip(searches, ("lower", "upper"), strict=True):
                search.record(
                    ledger, f"{label}: {side} winsorizing bound of PC{column + 1}", "scree"
                )
    _summarise_capped(caught, label)
    values, sd = joint_gaussian(
        W_m.map(np.clip, lows, highs), lows, highs - lows, parts["means"], noise
    )
    parts["means"].record(ledger, f"{label}: winsorized means", "scree")
    return values, {"lower": lows, "upper": highs, "trim": parts["trim"], "noise_sd": sd}


def _huber_thresholds(scales: np.ndarray | float, m: int, k: int, descent_epsilon: float) -> Any:
    """Clipping thresholds ``sqrt(scale) sqrt((epsilon / k) m / sqrt((1 + log m) log m))``."""
    log_m = math.log(m)
    denominator = math.sqrt((1 + log_m) * log_m)
    if not (denominator > 0 and math.isfinite(denominator)):
        denominator = 1.0
    return np.sqrt(scales) * math.sqrt(descent_epsilon / k * m / denominator)


def _huber_noise(
    scales: np.ndarray | float,
    m: int,
    k: int,
    descent_epsilon: float,
    delta: float,
    control: dict[str, Any],
    sampler: str = "continuous",
) -> Any:
    """Noise sd of each gradient step: ``2 eta0 threshold`` times the Gaussian scale of one of
    ``T`` steps with L2 sensitivity ``sqrt(k) (1 + 4um) / m`` (continuous:
    ``sqrt(k T) (1 + 4um) / (m mu)``)."""
    steps = _huber_steps(control, m)
    thresholds = _huber_thresholds(scales, m, k, descent_epsilon)
    unit = means_mechanism(m, k, descent_epsilon, delta, sampler, compositions=steps).scale
    return 2.0 * control["eta0"] * thresholds * unit


def _huber_scale_range(
    m: int, k: int, descent_epsilon: float, delta: float, control: dict[str, Any], sampler: str
) -> tuple[float, float]:
    """The private scales whose gradient noise is a normal float no larger than
    ``MAX_NOISE_SCALE`` (a public range, within ``[1e-300, 1e300]``; computed on the log scale).
    Raises ``ValueError`` when it is empty (absurd budgets only), before any charge."""
    unit = _huber_noise(1.0, m, k, descent_epsilon, delta, control, sampler)
    log_low = max(-300 * math.log(10), 2 * (-1000 * math.log(2) - math.log(unit)))
    log_high = min(300 * math.log(10), 2 * (math.log(MAX_NOISE_SCALE) - math.log(unit)))
    if not log_low < log_high:
        raise ValueError(
            f"Huber's gradient noise cannot be a normal float at epsilon={descent_epsilon:g}, "
            f"delta={delta:g} with m={m} pairs and k={k} components; use a less extreme budget."
        )
    return math.exp(log_low), math.exp(log_high)


def _huber_steps(control: dict[str, Any], m: int) -> int:
    return control["T"] if control["T"] is not None else math.ceil(math.log(m))


def clipped_gradient(W: np.ndarray, theta: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``clip(W - theta, -t, t) / (2 t)``: the Huber loss's clipped gradient scaled into
    ``[-1/2, 1/2]`` (``inf - theta`` is inf and an overflow a huge value: both clipped)."""
    with np.errstate(invalid="ignore", over="ignore"):
        clipped = np.clip(W - theta, -thresholds, thresholds)
    return clipped / (2.0 * thresholds)


def _huber(
    W: RowValues, plan: ScreePlan, noise: Noise, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    """Huber gradient descent from private scales: each component's scale is the median of
    ``(w_b - w_a)^2 / 2`` over random disjoint pairs of its values on the logarithmic grid, in
    place of the R package's dyadic histogram between public exponents (Yu, Ren and Zhou 2024
    use a private second moment)."""
    m, k = W.shape
    control, parts, label = plan.control, plan.parts, plan.label
    descent, steps = parts["descent"], parts["steps"]
    descent_epsilon = descent.epsilon
    low, high = parts["scale_range"]
    scales = np.empty(k)
    for column, mechanism in enumerate(parts["scales"]):
        first, second = random_pairs(m, noise.rng)
        squares = W.map(column_of, column).pairs(first, second, half_squared_gaps)
        scales[column] = min(max(mechanism.release(squares, noise), low), high)
        mechanism.record(ledger, f"{label}: private scale of PC{column + 1}", "scree")
    thresholds = _huber_thresholds(scales, m, k, descent_epsilon)
    sd = 2.0 * control["eta0"] * thresholds * descent.scale
    theta = np.full(k, float(control["mu0"]))
    width = 2.0 * control["eta0"] * thresholds  # a step moves by at most width / m per pair
    for _ in range(steps):
        gradients = column_means(W.map(clipped_gradient, theta, thresholds))
        scaled = descent.randomise(gradients, noise)
        step = theta + scaled * width
        theta = np.maximum(step, 0.0)  # each iterate is projected onto [0, inf)
    descent.record(ledger, f"{label}: Huber gradient descent ({steps} steps)", "scree")
    # The last noisy step before its projection is the mechanism's output.
    return step, {"scales": scales, "thresholds": thresholds, "steps": steps, "noise_sd": sd}


_ESTIMATORS = {"clipped": _clipped, "pmwm": _pmwm, "huber": _huber}


def _joint_name(sampler: str) -> str:
    return "joint discrete Gaussian (zCDP)" if sampler == "discrete" else "joint Gaussian (GDP)"


def _summarise_capped(caught: list[warnings.WarningMessage], label: str) -> None:
    capped = [w for w in caught if issubclass(w.category, DurfeeStepLimitWarning)]
    if capped:
        warnings.warn(
            f"{label}: {len(capped)} Durfee quantile search(es) reached their step limit.",
            DurfeeStepLimitWarning,
            stacklevel=4,
        )


def check_scree_control(
    method: str, control: Any, k: int, parameter: str = "control"
) -> dict[str, Any]:
    """Merge a method's control with its defaults, naming unknown and missing parameters (and
    the caller's ``parameter``, ``control`` or ``scree_control``)."""
    defaults = CONTROL_DEFAULTS[method]
    if control is None:
        control = {}
    if not isinstance(control, dict):
        raise TypeError(f"{parameter} for scree method {method!r} must be a dict; got {control!r}.")
    unknown = sorted(set(control) - set(defaults))
    if unknown:
        raise ValueError(
            f"Unknown {parameter} parameter(s) {unknown} for scree method {method!r}; allowed: "
            f"{sorted(defaults)}."
        )
    merged = {**defaults, **control}
    missing = [name for name, value in merged.items() if value is _REQUIRED]
    if missing:
        values = {"pmwm": {"a": 0.0, "b": 10.0, "trim_const": 10, "eta": 0.01}}[method]
        if parameter.startswith("--"):  # the command line's option
            example = " ".join(f"{parameter} {key}={value}" for key, value in values.items())
        else:
            example = f"{parameter}={values}"
        raise ValueError(
            f"Scree method {method!r} needs the control parameter(s) {missing} (public tuning "
            f"values), for example {example}."
        )
    return _validate_control(method, merged, k)


def _validate_control(method: str, c: dict[str, Any], k: int) -> dict[str, Any]:
    if method == "clipped":
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
    elif method == "pmwm":
        c["a"] = check_real(c["a"], "a", low=0.0, low_inclusive=True)
        c["b"] = check_real(c["b"], "b", low=c["a"])
        c["trim_const"] = check_real(c["trim_const"], "trim_const", low=0.0)
        c["eta"] = check_real(c["eta"], "eta", low=0.0, high=0.5, low_inclusive=True)
        c["beta"] = check_real(c["beta"], "beta", low=1.0)
        c["split_mode"] = check_bool(c["split_mode"], "split_mode")
    else:
        c["m2_frac"] = check_real(c["m2_frac"], "m2_frac", low=0.0, high=1.0)
        c["mu0"] = check_real(c["mu0"], "mu0")
        c["eta0"] = check_real(c["eta0"], "eta0", low=0.0)
        if c["T"] is not None:
            c["T"] = check_positive_int(c["T"], "T")
    return c


@dataclass(frozen=True)
class ScreePlan:
    """A validated scree release: one method, its merged control, the number of rows ``n``
    and components ``k``, its budget and sampler, and every mechanism it draws from (fixed by
    public values only)."""

    method: str
    control: Mapping[str, Any]
    n: int
    k: int
    budget: Budget
    sampler: str
    #: The method's mechanisms and the public values that go with them (ranges, steps).
    parts: Mapping[str, Any]
    mono: bool = True
    label: str = "scree"
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once, in release order."""
        parts = self.parts
        if self.method == "clipped":
            clip = [] if parts["clip"] is None else [parts["clip"]]  # None: a public clip
            return [*clip, parts["means"]]
        if self.method == "pmwm":
            return [*(search for pair in parts["bounds"] for search in pair), parts["means"]]
        return [*parts["scales"], parts["descent"]]


def plan_scree(
    method: str,
    control: dict[str, Any],
    n: int,
    k: int,
    budget: Budget,
    sampler: str,
    *,
    mono: bool = True,
    label: str = "scree",
) -> ScreePlan:
    """Checks that need the data's size and the budget, run before any charge: each method's
    least number of pairs (Huber 4; PMWM with split_mode 2), and noise scales that are normal
    floats for every value the private steps can produce (public clip levels and bounds must
    lie in :func:`width_range`); then the method's mechanisms. ``method`` and ``control`` come
    validated from :func:`check_scree_control`."""
    epsilon, delta = budget.epsilon, budget.delta
    what = f"The scree's epsilon={epsilon:g}, delta={delta:g} and {method!r} control"
    check_parts([epsilon, delta], what)
    pairs = 2 if method == "pmwm" and control["split_mode"] else MIN_PAIRS[method]
    if n // 2 < pairs:
        raise ValueError(f"Scree method {method!r} needs at least {2 * pairs} rows; got {n}.")
    m = n // 2
    if method == "clipped":
        mechanisms = _clipped_mechanisms(control, m, k, epsilon, delta, sampler, what)
    elif method == "pmwm":
        mechanisms = _pmwm_mechanisms(control, m, k, epsilon, delta, sampler, what)
    else:
        mechanisms = _huber_mechanisms(control, m, k, epsilon, delta, sampler, what)
    frozen = MappingProxyType(dict(control))
    requirements = tuple(_requirements(method, mechanisms, m, label))
    return ScreePlan(
        method,
        frozen,
        n,
        k,
        budget,
        sampler,
        MappingProxyType(mechanisms),
        mono,
        label,
        requirements,
    )


def _requirements(
    method: str, mechanisms: Mapping[str, Any], m: int, label: str
) -> list[Requirement]:
    """What the method's private clip level (clipped) or scales (Huber) must locate."""
    if method == "clipped" and mechanisms["clip"] is not None:
        clip = mechanisms["clip"]
        return [
            locating(
                label,
                "clip level",
                m,
                clip.epsilon,
                "log",
                "a public clip level, scree_control={'C_clip': ...}",
            )
        ]
    if method == "huber":
        return [
            locating(
                label,
                "private scales",
                m // 2,
                min(scale.epsilon for scale in mechanisms["scales"]),
                "log",
                "another scree method (scree='clipped' with a public C_clip)",
            )
        ]
    return []


def _clipped_mechanisms(
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
        _check_widths("C_clip", control["C_clip"], *clips)
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
        _check_widths("C_clip", control["C_clip"], *clips)
    means = clipped_means_mechanism(m, k, mean_epsilon, delta, sampler)
    return {"clip": clip, "means": means, "clip_range": clips}


def _pmwm_mechanisms(
    control: dict[str, Any],
    m: int,
    k: int,
    epsilon: float,
    delta: float,
    sampler: str,
    what: str,
) -> dict[str, Any]:
    """The two one-sided Durfee searches of each component (levels ``trim`` and ``1 - trim``,
    each with an exact share of half of epsilon) and the winsorized means' Gaussian mechanism."""
    quantile_rows = m // 2 if control["split_mode"] else m
    mean_rows = m - m // 2 if control["split_mode"] else m
    trim = min(max(control["trim_const"] / quantile_rows, control["eta"]), 0.49)
    quantile_epsilon, mean_epsilon = check_parts(split_epsilon(epsilon, [0.5, 0.5]), what)
    parts = check_parts(split_epsilon(quantile_epsilon, [1 / (2 * k)] * (2 * k)), what)
    check_search_epsilon(min(parts), "the scree's winsorizing searches")
    _, high = width_range(mean_rows, k, mean_epsilon, delta, sampler)
    _check_widths("b", control["b"], 0.0, high)
    bounds = [
        (
            DurfeeQuantile(
                trim, parts[2 * j], 0.0, control["beta"], sampler=sampler, description=f"PC{j + 1}"
            ),
            DurfeeQuantile(
                1.0 - trim,
                parts[2 * j + 1],
                0.0,
                control["beta"],
                sampler=sampler,
                description=f"PC{j + 1}",
            ),
        )
        for j in range(k)
    ]
    means = means_mechanism(mean_rows, k, mean_epsilon, delta, sampler)
    return {"bounds": bounds, "means": means, "trim": trim}


def _huber_mechanisms(
    control: dict[str, Any],
    m: int,
    k: int,
    epsilon: float,
    delta: float,
    sampler: str,
    what: str,
) -> dict[str, Any]:
    """Each component's private scale (a log-grid median with an exact share of
    ``m2_frac epsilon``), the noisy gradient steps' Gaussian mechanism and the public range of
    scales."""
    scale_epsilon, descent_epsilon = check_parts(
        split_epsilon(epsilon, [control["m2_frac"], 1 - control["m2_frac"]]), what
    )
    parts = check_parts(split_epsilon(scale_epsilon, [1 / k] * k), what)
    scales = [
        GridQuantile(
            "log",
            safe_level(0.5, m // 2, part, "log"),
            part,
            sampler,
            description=f"squared half-differences of PC{j + 1}",
            positive=True,
        )
        for j, part in enumerate(parts)
    ]
    steps = _huber_steps(control, m)
    descent = means_mechanism(m, k, descent_epsilon, delta, sampler, compositions=steps)
    return {
        "scales": scales,
        "descent": descent,
        "steps": steps,
        "scale_range": _huber_scale_range(m, k, descent_epsilon, delta, control, sampler),
    }


def _check_widths(name: str, values: Any, low: float, high: float) -> None:
    values = np.asarray(values, dtype=np.float64)
    if np.any(values < low) or np.any(values > high):
        raise ValueError(
            f"{name} must lie between {low:.3g} and {high:.3g} at this budget and number of rows "
            f"(so that the noise is a normal float and sums stay finite); got {values.tolist()}."
        )


def split_controls(methods: tuple[str, ...], control: Any, k: int) -> dict[str, dict[str, Any]]:
    """Per-method controls: a method's own dict, or (required for several methods) a dict keyed
    by method names."""
    keyed = isinstance(control, dict) and bool(control) and set(control) <= set(SCREE_METHODS)
    if len(methods) > 1 and control is not None and not keyed:
        raise ValueError(
            "With several scree methods, control must be a dict keyed by method, e.g. "
            "{'pmwm': {...}, 'huber': {...}}."
        )
    if keyed and not set(control) <= set(methods):
        raise ValueError(
            f"control names method(s) {sorted(set(control) - set(methods))} that were not "
            f"requested (method={list(methods)})."
        )
    return {
        name: check_scree_control(name, control.get(name) if keyed else control, k)
        for name in methods
    }


def scree_release(
    Y: RowValues, plan: ScreePlan, rng: np.random.Generator, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    """Release the scree of scores ``Y`` (n x k, in one array or in chunks) by a validated
    plan; entries go to ``ledger`` (the caller has charged the budget)."""
    noise = Noise(plan.sampler, rng)
    first, second = random_pairs(Y.shape[0], rng)
    W = Y.pairs(first, second, half_squared_gaps)
    raw, details = _ESTIMATORS[plan.method](W, plan, noise, ledger)
    details["raw"] = raw
    values = antitonic(raw) if plan.mono else np.maximum(raw, 0.0)
    return values, details


@dataclass(frozen=True)
class NonPrivateScree:
    """Non-private references (on request). **Not** differentially private.

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        Ordinary PCA: the top ``k`` eigenvalues of the sample covariance (clipped at 0).
    pve : ndarray of shape (k,)
        Their proportions over the ``k`` components.
    variances : ndarray of shape (k,)
        Sample variances of the scores along the directions used.
    """

    eigenvalues: np.ndarray
    pve: np.ndarray
    variances: np.ndarray


def non_private_scree(data: Rows, directions: np.ndarray, Y: RowValues, k: int) -> NonPrivateScree:
    """Ordinary PCA's top ``k`` eigenvalues and proportions, and the sample variances of the
    scores ``Y`` along the directions used (**not private**; Dask scores are gathered)."""
    eigenvalues, _ = ordinary_pca(data, directions)
    variances = Y.to_numpy().var(axis=0, ddof=1)
    return NonPrivateScree(eigenvalues[:k], proportions(eigenvalues[:k]), variances)


@dataclass(frozen=True)
class ScreeResult:
    """Private scree values and proportions of variance explained.

    Attributes
    ----------
    values : dict of str to ndarray of shape (k,)
        Per method, the private variances along the first ``k`` directions (after ``mono``).
    pve : dict of str to ndarray of shape (k,)
        ``values / sum(values)`` (normalised over the ``k`` estimated components).
    k : int
    directions : ndarray of shape (p, p)
    feature_names : list of str
    n_samples : int
    settings : dict
        The controls and, per method, its (private) clip levels, quantiles or scales and noise sd.
    privacy : PrivacyLedger
    loading : LoadingResult or None
    non_private : NonPrivateScree or None

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_scree(X, 3, 2.0, 1e-6, directions=np.eye(3), random_state=1)
    >>> result.to_frame().columns.tolist(), result.k
    (['clipped'], 3)
    """

    values: dict[str, np.ndarray]
    pve: dict[str, np.ndarray]
    k: int
    directions: np.ndarray = field(repr=False)
    feature_names: list[str] = field(repr=False)
    n_samples: int = 0
    settings: dict[str, Any] = field(default_factory=dict, repr=False)
    privacy: PrivacyLedger = field(default_factory=PrivacyLedger, repr=False)
    loading: LoadingResult | None = field(default=None, repr=False)
    non_private: NonPrivateScree | None = field(default=None, repr=False)

    def plot(self, kind: str = "scree", **options: Any) -> Any:
        """Draw the release and return its display (:mod:`dppca.plotting`).

        ``kind`` in ``("scree",)``; ``options`` as for :meth:`dppca.DPPCAResult.plot`.
        Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, ("scree",), **options)

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): the scree per method and the ledger."""
        facts = [("data", f"{self.n_samples} observations, {self.k} components")]
        tables = [
            ("Private scree", self.to_frame()),
            ("Privacy budget spent", self.privacy.budget_table()),
        ]
        return card("Private scree", facts, tables)

    def to_frame(self) -> pd.DataFrame:
        """Scree values per method (columns) and component (index ``PC1..PCk``)."""
        index = pc_labels(self.k)
        return pd.DataFrame(self.values, index=index)


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
    directions : array-like of shape (p, p), optional
        Orthonormal directions (columns); None estimates them with :func:`dp_loading` using
        ``loading_epsilon`` and ``loading_delta``.
    mono : bool, default True
        Antitonic least-squares post-processing (non-negative, non-increasing).
    control : dict, optional
        Method parameters (a dict keyed by method when several are requested).
        ``"clipped"``: ``C_clip`` ("auto" or one public number, the largest L1 norm of a pair's
        row), ``clip_level`` (0.75: the level of the private quantile of the row totals, moved
        towards 1/2 by :func:`~dppca.privacy.quantiles.safe_level` when the budget is small),
        ``clip_multiplier`` (2.5), ``clip_share`` (``"auto"``: 1.5 times the share of epsilon
        that locates the level, within ``[0.1, 0.5]``, see :func:`clip_share`; or a number),
        ``clip_by`` (``"row"``; ``"component"``: the R package's form, each ``W_jl`` clipped at
        a public ``C_clip``, noise sd ``sqrt(k) C_clip / (m mu)``).
        ``"pmwm"``: ``a``, ``b`` (public bounds on W), ``trim_const``, ``eta`` (required: its
        winsorizing quantiles are Durfee searches clamped to ``[a, b]``), ``beta`` (1.01),
        ``split_mode`` (False). ``"huber"``: ``m2_frac`` (0.25), ``mu0`` (0), ``eta0`` (1),
        ``T`` (ceil(log m)); the R package's ``k_min_m2``, ``k_max_m2`` and ``M`` are not needed
        (the private scales are grid medians in any units).
    random_state : None, int, SeedSequence or Generator
    non_private : bool, default False
        Also return :class:`NonPrivateScree` references.
    accountant : Accountant, optional
        Charged with the whole cost before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.
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
    [1.0, 1.0]
    """
    data, names = checked_rows(X)
    n, p = data.shape
    k = check_positive_int(k, "k")
    if k > p:
        raise ValueError(f"k must be an integer in [1, p={p}]; got {k}.")
    budget = Budget(check_epsilon(epsilon), check_delta(delta))
    methods = check_choices(method, "method", SCREE_METHODS)
    controls = split_controls(methods, control, k)
    sampler = resolve_sampler(sampler)
    mono = check_bool(mono, "mono")
    on_weak = check_on_weak(on_weak)

    def planned(size: int, scree_epsilon: float) -> list[ScreePlan]:
        own = Budget(scree_epsilon, budget.delta)
        return [
            plan_scree(
                name, controls[name], size, k, own, sampler, mono=mono, label=f"scree ({name})"
            )
            for name in methods
        ]

    plans = planned(n, budget.epsilon)
    non_private = check_bool(non_private, "non_private")
    given, loading_budget = check_direction_source(directions, loading_epsilon, loading_delta, p)
    rng = check_random_state(random_state)
    cost = check_repeated(budget, len(methods), "scree methods")
    loading_plan = None
    if loading_budget is not None:
        cost = cost + loading_budget
        loading_plan = plan_loading(data.shape, loading_budget, sampler=sampler)

    def requirements_at(size: int, scree_epsilon: float) -> list[Requirement]:
        found = [need for plan in planned(size, scree_epsilon) for need in plan.requirements]
        if loading_budget is not None:
            found += plan_loading((size, p), loading_budget, sampler=sampler).requirements
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
    values, pve, settings = {}, {}, {"mono": mono, "controls": controls, "sampler": sampler}
    for plan in plans:
        name = plan.method
        values[name], settings[name] = scree_release(Y, plan, rng, ledger)
        pve[name] = proportions(values[name])
    return ScreeResult(
        values=values,
        pve=pve,
        k=k,
        directions=given,
        feature_names=names,
        n_samples=n,
        settings=settings,
        privacy=ledger,
        loading=loading,
        non_private=non_private_scree(data, given, Y, k) if non_private else None,
    )
