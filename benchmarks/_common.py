"""Shared helpers of the benchmark scripts: the method roster, Markdown tables, timing."""

from __future__ import annotations

import importlib.util
import multiprocessing
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
            analyze_gauss(X, k, epsilon, delta, clip=clip_norm, random_state=seed).components
        ),
        "AG, private clip": lambda X: (
            analyze_gauss(X, k, epsilon, delta, clip="private", random_state=seed).components
        ),
        "AG, private clip and centre": lambda X: (
            analyze_gauss(
                X, k, epsilon, delta, clip="private", center="private", random_state=seed
            ).components
        ),
        "NSGGD": lambda X: nsggd(X, k, epsilon, delta, random_state=seed).components,
        "NSGGD, private centre": lambda X: (
            nsggd(X, k, epsilon, delta, center="private", random_state=seed).components
        ),
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


class Stopped(Exception):
    """A method ran past its time limit."""


def with_limit(function: Callable[[], object], seconds: float):
    """``function()`` in a forked child process; raise :class:`Stopped` after ``seconds``.

    A separate process is the only safe way to stop the peers' samplers, which loop inside
    compiled code and callbacks.
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)

    def target() -> None:
        try:
            sender.send(("ok", function()))
        except BaseException as error:  # report any failure to the parent
            sender.send(("error", f"{type(error).__name__}: {error}"))

    process = context.Process(target=target)
    process.start()
    try:
        if not receiver.poll(seconds):
            raise Stopped
        status, value = receiver.recv()
    finally:
        if process.is_alive():
            process.terminate()
        process.join()
    if status == "error":
        raise RuntimeError(value)
    return value


def timed(function: Callable[[], object], limit: float = 120.0) -> float:
    """Seconds taken by ``function()`` (measured in the child); ``inf`` when stopped."""

    def measure() -> float:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start

    try:
        return with_limit(measure, limit)
    except Stopped:
        return float("inf")
