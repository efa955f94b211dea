"""Shared helpers of the benchmark scripts: the method roster, Markdown tables, timing."""

from __future__ import annotations

import importlib.util
import signal
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from dppca import dp_loading
from dppca.baselines import (
    analyze_gauss,
    diffprivlib_pca,
    nsggd,
    opendp_pca,
    projector_pca,
    sklearn_pca,
)


def markdown_table(table: pd.DataFrame) -> str:
    """A Markdown table with 4 significant digits (no optional dependency)."""

    def cell(value: object) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(False)]
    return "\n".join(lines)


def methods(
    k: int, epsilon: float, delta: float, *, clip_norm: float, eigengap: float, seed: int
) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Every method as ``X -> components (d x k)``, with the stated public tuning."""
    roster = {
        "g-DPPCA spherical (ours)": lambda X: dp_loading(
            X, epsilon, delta, random_state=seed
        ).directions[:, :k],
        "g-DPPCA spherical, paper calibration": lambda X: dp_loading(
            X, epsilon, delta, mechanism="paper", random_state=seed
        ).directions[:, :k],
        "g-DPPCA winsorized, auto radius": lambda X: dp_loading(
            X, epsilon, delta, transform="winsorized", radius="auto", random_state=seed
        ).directions[:, :k],
        "AG": lambda X: (
            analyze_gauss(X, k, epsilon, delta, clip_norm=clip_norm, random_state=seed).components
        ),
        "NSGGD": lambda X: nsggd(X, k, epsilon, delta, random_state=seed).components,
        "projector PCA (SGPCA)": lambda X: (
            projector_pca(
                X, k, epsilon, delta, truncation=clip_norm, eigengap=eigengap, random_state=seed
            ).components
        ),
        "PCA (non-private)": lambda X: sklearn_pca(X, k),
    }
    if importlib.util.find_spec("diffprivlib") is not None:
        roster["diffprivlib PCA"] = lambda X: diffprivlib_pca(
            X, k, epsilon, data_norm=clip_norm, bounds=(-clip_norm, clip_norm), random_state=seed
        )
    if importlib.util.find_spec("opendp") is not None:
        roster["OpenDP PCA"] = lambda X: opendp_pca(X, k, epsilon, row_norm=clip_norm)
    return roster


class Stopped(BaseException):  # not caught by a library's "except Exception"
    """A method ran past its time limit."""


def _alarm(signum, frame):
    raise Stopped


def with_limit(function: Callable[[], object], seconds: float):
    """``function()``, or raise :class:`Stopped` after ``seconds`` (Unix, main thread)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(function: Callable[[], object], limit: float = 120.0) -> float:
    """Seconds taken by ``function()``; ``inf`` when stopped at ``limit``."""
    start = time.perf_counter()
    try:
        with_limit(function, limit)
    except Stopped:
        return float("inf")
    return time.perf_counter() - start
