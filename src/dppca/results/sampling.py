"""Synthetic scores drawn from a private histogram (post-processing; as in the R package
``dppca``).

A cell is drawn with its private probability; the point is the cell's centre (``"center"``) or a
uniform point in it (``"uniform"``), plus ``N(0, diag((gamma Dx)^2, (gamma Dy)^2))`` with ``Dx``,
``Dy`` the cell widths and ``gamma`` the bandwidth scale (0.5 for center, 0.25 for uniform by
default; 0 adds nothing). Group sample sizes follow the private estimates of the group sizes by
the
largest-remainder rule.
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np
import pandas as pd

from dppca._stack import user_stacklevel
from dppca._validation import (
    check_option,
    check_positive_int,
    check_random_state,
    check_real,
)
from dppca.numerics.monotone import largest_remainder

SAMPLING_METHODS = ("center", "uniform")
DEFAULT_BANDWIDTH = {"center": 0.5, "uniform": 0.25}


class NoMassWarning(UserWarning):
    """A private histogram has no probability mass, so no synthetic points were drawn.

    Examples
    --------
    >>> from dppca import NoMassWarning
    >>> issubclass(NoMassWarning, UserWarning)
    True
    """


def _draw(
    table: pd.DataFrame, size: int, method: str, gamma: float, rng: np.random.Generator
) -> np.ndarray:
    prob = np.where(np.isfinite(table["prob"]) & (table["prob"] > 0), table["prob"], 0.0)
    picked = rng.choice(len(table), size=size, p=prob / prob.sum())
    low = table[["xmin", "ymin"]].to_numpy()[picked]
    high = table[["xmax", "ymax"]].to_numpy()[picked]
    if method == "center":
        points = (low + high) / 2.0
    else:
        points = low + rng.random((size, 2)) * (high - low)
    widths = np.array(
        [(table["xmax"] - table["xmin"]).median(), (table["ymax"] - table["ymin"]).median()]
    )
    return cast("np.ndarray", points + rng.standard_normal((size, 2)) * gamma * widths)


def sample_scores(
    score_result: Any,
    n: int | None = None,
    method: str = "uniform",
    bandwidth_scale: float | None = None,
    random_state: Any = None,
    *,
    histogram: str | None = None,
    center: bool = False,
) -> pd.DataFrame:
    """Synthetic score points from a private histogram (post-processing: no budget).

    Parameters
    ----------
    score_result : ScoreResult or DPPCAResult
    n : int, optional
        Number of points; default the (public) number of rows. With groups, split across groups
        in proportion to the private estimates of the group sizes (from the noisy counts) by the
        largest-remainder rule.
    method : {"center", "uniform"}, default "uniform"
    bandwidth_scale : float, optional
        ``gamma`` >= 0; default 0.5 for center and 0.25 for uniform.
    random_state : None, int, SeedSequence or Generator
    histogram : str, optional
        Which histogram method to sample from; default the first in the result.
    center : bool, default False
        Shift the points by the private frame centre (display centring).

    Returns
    -------
    DataFrame
        Columns named by the axes (e.g. ``PC1``, ``PC2``), plus ``group`` with groups.

    Raises
    ------
    ValueError
        When the result marks its histogram as not usable (``result.status``: the frame
        missed the data or collapsed; its cells are NaN).

    Warns
    -----
    NoMassWarning
        When a histogram (or a group's) has no probability mass; it then contributes no rows.

    Examples
    --------
    >>> from dppca import sample_scores
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> release = dppca.dp_score(X, 2.0, 1e-6, directions=np.eye(3), random_state=1)
    >>> points = sample_scores(release, 100, random_state=0)
    >>> points.shape, points.columns.tolist()
    ((100, 2), ['PC1', 'PC2'])
    """
    if not hasattr(score_result, "histogram_tables"):
        raise TypeError(
            f"score_result must be a ScoreResult or DPPCAResult; got {type(score_result).__name__}."
        )
    total = score_result.n_samples if n is None else check_positive_int(n, "n")
    method = check_option(method, "method", SAMPLING_METHODS)
    gamma = (
        DEFAULT_BANDWIDTH[method]
        if bandwidth_scale is None
        else check_real(bandwidth_scale, "bandwidth_scale", low=0.0, low_inclusive=True)
    )
    source, pooled, groups = score_result.histogram_tables(histogram)
    rng = check_random_state(random_state)
    status = getattr(score_result, "status", {}).get("histogram")
    if status is not None and not status.usable:
        raise ValueError(
            f"The private {source} histogram is not usable ({status}); no synthetic points can "
            "be drawn from it."
        )
    if groups is None:
        parts = [(None, pooled, total)]
    else:
        levels = list(groups)
        estimated = np.array([score_result.group_sizes[g] for g in levels], dtype=np.float64)
        weights = estimated if estimated.sum() > 0 else np.ones(len(levels))
        sizes = largest_remainder(weights, total)
        if np.any((sizes == 0) & (estimated > 0)):  # a group estimated empty gets no points
            warnings.warn(
                f"n={total} is small relative to the number of groups; at least one group "
                "receives no synthetic points.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        parts = [
            (level, groups[level], int(size)) for level, size in zip(levels, sizes, strict=True)
        ]
    columns = list(score_result.axis_labels)
    frames = []
    for level, table, size in parts:
        where = "" if level is None else f" of group {level!r}"
        if not (table["prob"].clip(lower=0).sum() > 0):
            warnings.warn(
                f"The private {source} histogram{where} has no probability mass; no synthetic "
                "points were drawn from it.",
                NoMassWarning,
                stacklevel=user_stacklevel(),
            )
            points = np.empty((0, 2))
        else:
            points = _draw(table, size, method, gamma, rng)
        if center:
            points = points - score_result.frame.center
        frame = pd.DataFrame(points, columns=columns)
        if level is not None:
            frame["group"] = level
        frames.append(frame)
    result = pd.concat(frames, ignore_index=True)
    if groups is not None:
        result["group"] = pd.Categorical(result["group"], categories=list(groups))
    return result
