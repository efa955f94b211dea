"""The private modified winsorized mean (Ramsay and Spicker 2025): per component two one-sided
Durfee quantiles, then the winsorized means through one Gaussian mechanism.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from dppca._validation import check_bool, check_real
from dppca.exceptions import DurfeeStepLimitWarning
from dppca.numerics.permutation import random_permutation
from dppca.numerics.row_values import RowValues, column_of
from dppca.privacy.budget import (
    PrivacyLedger,
    check_parts,
    split_epsilon,
)
from dppca.privacy.durfee import DurfeeQuantile, check_search_epsilon
from dppca.privacy.mechanisms import (
    Noise,
)
from dppca.privacy.requirements import Requirement
from dppca.releases.scree.common import (
    REQUIRED,
    PlannedScree,
    ScreeMethod,
    check_widths,
    joint_gaussian,
    means_mechanism,
    summarise_capped,
    width_range,
)


def pmwm_estimate(
    W: RowValues, plan: PlannedScree, noise: Noise, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    """The winsorized means of ``W`` between each component's private trims, released by the
    plan's mechanisms; entries go to ``ledger``."""
    m, k = W.shape
    control, parts, label = plan.control, plan.parts, plan.label
    W_q = W_m = W
    if control["split_mode"]:
        W_q, W_m = W.halves(random_permutation(m, noise.rng))
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
    summarise_capped(caught, label)
    values, sd = joint_gaussian(
        W_m.map(np.clip, lows, highs), lows, highs - lows, parts["means"], noise
    )
    parts["means"].record(ledger, f"{label}: winsorized means", "scree")
    return values, {"lower": lows, "upper": highs, "trim": parts["trim"], "noise_sd": sd}


def pmwm_parts(
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
    check_widths("b", control["b"], 0.0, high)
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


def check_control(c: dict[str, Any]) -> dict[str, Any]:
    """The PMWM scree's control, merged with its defaults, checked value by value."""
    c["a"] = check_real(c["a"], "a", low=0.0, low_inclusive=True)
    c["b"] = check_real(c["b"], "b", low=c["a"])
    c["trim_const"] = check_real(c["trim_const"], "trim_const", low=0.0)
    c["eta"] = check_real(c["eta"], "eta", low=0.0, high=0.5, low_inclusive=True)
    c["beta"] = check_real(c["beta"], "beta", low=1.0)
    c["split_mode"] = check_bool(c["split_mode"], "split_mode")
    return c


def mechanisms(parts: Mapping[str, Any]) -> list[Any]:
    """Each component's two one-sided searches, then the winsorized means'."""
    return [*(search for pair in parts["bounds"] for search in pair), parts["means"]]


def requirements(parts: Mapping[str, Any], m: int, label: str) -> list[Requirement]:
    """None: the searches start from public bounds."""
    return []


METHOD = ScreeMethod(
    defaults={
        "a": REQUIRED,
        "b": REQUIRED,
        "trim_const": REQUIRED,
        "eta": REQUIRED,
        "beta": 1.01,
        "split_mode": False,
    },
    check=check_control,
    min_pairs=1,
    plan_parts=pmwm_parts,
    mechanisms=mechanisms,
    requirements=requirements,
    estimate=pmwm_estimate,
)
