"""The Huber scree: a private scale per component, then noisy clipped gradient descent on
the Huber loss (Yu, Ren and Zhou 2024).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from dppca._validation import check_positive_int, check_real
from dppca.numerics.pairs import half_squared_gaps
from dppca.numerics.permutation import random_permutation
from dppca.numerics.row_values import RowValues, column_means, column_of
from dppca.privacy.budget import (
    PrivacyLedger,
    check_parts,
    split_epsilon,
)
from dppca.privacy.mechanisms import (
    MAX_NOISE_SCALE,
    Noise,
)
from dppca.privacy.quantiles import (
    GridQuantile,
    safe_level,
)
from dppca.privacy.requirements import Requirement, locating
from dppca.releases.scree.common import PlannedScree, ScreeMethod, means_mechanism


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
    return cast("np.ndarray", clipped / (2.0 * thresholds))


def huber_estimate(
    W: RowValues, plan: PlannedScree, noise: Noise, ledger: PrivacyLedger
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
        pairs = random_permutation(m, noise.rng)
        squares = W.map(column_of, column).pairs(pairs, half_squared_gaps)
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


def huber_parts(
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


def check_control(c: dict[str, Any]) -> dict[str, Any]:
    """The Huber scree's control, merged with its defaults, checked value by value."""
    c["m2_frac"] = check_real(c["m2_frac"], "m2_frac", low=0.0, high=1.0)
    c["mu0"] = check_real(c["mu0"], "mu0")
    c["eta0"] = check_real(c["eta0"], "eta0", low=0.0)
    if c["T"] is not None:
        c["T"] = check_positive_int(c["T"], "T")
    return c


def mechanisms(parts: Mapping[str, Any]) -> list[Any]:
    """Each component's private scale, then the descent's (all its steps in one loss)."""
    return [*parts["scales"], parts["descent"]]


def requirements(parts: Mapping[str, Any], m: int, label: str) -> list[Requirement]:
    """The private scales must be located among the ``m // 2`` pairs' half-differences."""
    return [
        locating(
            label,
            "private scales",
            m // 2,
            min(scale.epsilon for scale in parts["scales"]),
            "log",
            "another scree method (scree='clipped' with a public C_clip)",
        )
    ]


METHOD = ScreeMethod(
    defaults={"m2_frac": 0.25, "mu0": 0.0, "eta0": 1.0, "T": None},
    check=check_control,
    min_pairs=4,
    plan_parts=huber_parts,
    mechanisms=mechanisms,
    requirements=requirements,
    estimate=huber_estimate,
)
