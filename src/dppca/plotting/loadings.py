"""Loading plots: vectors, points and a heatmap of private (or reference) directions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_option, check_positive_int
from dppca.numerics.linalg import axis_labels
from dppca.plotting._style import (
    DP_COLOR,
    HEATMAP_HIGH,
    HEATMAP_LOW,
    axes_or_new,
    draw_arrows,
    finish_square,
)

LOADING_KINDS = ("vector", "point")


def select_variables(loadings: pd.DataFrame, columns: list[str], top: int | None) -> pd.DataFrame:
    """All rows, or the ``top`` rows with the longest loading vectors on ``columns``."""
    if top is None:
        return loadings
    top = check_positive_int(top, "top")
    norms = np.hypot.reduce(loadings[columns].to_numpy(), axis=1)
    order = np.argsort(-norms, kind="stable")[:top]
    return loadings.iloc[np.sort(order)]


def plot_loadings(
    loadings: pd.DataFrame,
    *,
    axes: tuple[int, int] = (1, 2),
    kind: str = "point",
    top: int | None = None,
    limit: float | None = None,
    color: str = DP_COLOR,
    title: str | None = "DP loading plot",
    intervals: pd.DataFrame | None = None,
    ax: Any = None,
):
    """Variables as arrows or points in the plane of two principal directions.

    Parameters
    ----------
    loadings : DataFrame
        Variables (index) by components ``PC1..PCp`` (for example ``result.loadings``).
    axes : (int, int), default (1, 2)
    kind : {"point", "vector"}, default "point"
    top : int, optional
        Only the ``top`` variables with the longest vectors in this plane.
    limit : float, optional
        Half-width of the square axes; default 1.35 times the largest coordinate (pass the same
        value to panels that should share a scale).
    color : str
    title : str or None
    intervals : DataFrame, optional
        Whiskers: rows ``variable``, ``component``, ``lower``, ``upper`` (the ``loadings`` table
        of :meth:`~dppca.DPPCAResult.uncertainty`).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Drawing spends no privacy budget: it only shows released directions.
    """
    kind = check_option(kind, "kind", LOADING_KINDS)
    columns = list(axis_labels(axes))
    missing = [c for c in columns if c not in loadings.columns]
    if missing:
        raise ValueError(f"axes {tuple(axes)} need loadings columns {missing}.")
    shown = select_variables(loadings, columns, top)
    tips = shown[columns].to_numpy()
    if limit is None:
        limit = 1.35 * max(float(np.max(np.abs(tips))), 0.1)  # room for the labels
    ax = axes_or_new(ax)
    ax.axhline(0, color="0.8", linestyle="--", linewidth=0.6)
    ax.axvline(0, color="0.8", linestyle="--", linewidth=0.6)
    if kind == "vector":
        draw_arrows(ax, tips, color)
    else:
        ax.scatter(tips[:, 0], tips[:, 1], s=22, color=color, alpha=0.9, zorder=3, gid="points")
    if intervals is not None:
        _whiskers(ax, intervals, shown.index, columns, tips, color)
    finish_square(ax, tips, [str(name) for name in shown.index], color, limit, title, columns)
    return ax


def _whiskers(ax, intervals: pd.DataFrame, names, columns, tips, color) -> None:
    """Horizontal and vertical noise intervals through each variable's point."""
    table = intervals.set_index(["variable", "component"])
    for (x, y), name in zip(tips, names, strict=True):
        (x_low, x_high), (y_low, y_high) = (
            table.loc[(name, column), ["lower", "upper"]].to_numpy() for column in columns
        )
        ax.plot([x_low, x_high], [y, y], color=color, alpha=0.45, linewidth=1.0, gid="whisker")
        ax.plot([x, x], [y_low, y_high], color=color, alpha=0.45, linewidth=1.0, gid="whisker")


def plot_loading_heatmap(
    loadings: pd.DataFrame,
    *,
    components: int = 5,
    top: int | None = None,
    limit: float | None = None,
    title: str | None = "DP loading heatmap",
    ax: Any = None,
):
    """A diverging heatmap of variables by the first ``components`` directions.

    Blue is negative, red positive, white 0, with symmetric limits ``+-limit`` (default the
    largest absolute loading shown; pass the same value to panels that should share it).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.colors import LinearSegmentedColormap

    components = min(check_positive_int(components, "components"), loadings.shape[1])
    columns = list(loadings.columns[:components])
    shown = select_variables(loadings, columns, top)
    values = shown[columns].to_numpy()
    if limit is None:
        limit = max(float(np.max(np.abs(values))), 1e-12)
    cmap = LinearSegmentedColormap.from_list("dppca", [HEATMAP_LOW, "#FFFFFF", HEATMAP_HIGH])
    ax = axes_or_new(ax, figsize=(0.9 * components + 2.5, 0.28 * len(shown) + 1.5))
    image = ax.imshow(values, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto")
    ax.set_xticks(range(components), columns, fontweight="bold")
    ax.set_yticks(range(len(shown)), [str(name) for name in shown.index], fontsize=8)
    for (row, column), value in np.ndenumerate(values):
        ax.text(
            column,
            row,
            f"{value:.2f}",
            ha="center",
            va="center",
            fontsize=7,
            color="white" if abs(value) >= 0.55 * limit else "0.15",
        )
    ax.figure.colorbar(image, ax=ax, label="Loading", shrink=0.8)
    if title:
        ax.set_title(title, fontweight="bold", fontsize=11)
    return ax
