"""The variable (correlation) plot and the biplot."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dppca.numerics.biplot import BiplotCoordinates
from dppca.plotting._style import (
    BIPLOT_ARROW_COLOR,
    BIPLOT_POINT_COLOR,
    DP_COLOR,
    axes_or_new,
    draw_arrows,
    finish,
    finish_square,
    label_points,
    note,
)
from dppca.plotting.loadings import select_variables


def plot_variables(
    coordinates: pd.DataFrame,
    *,
    top: int | None = None,
    circle: bool = True,
    color: str = DP_COLOR,
    title: str | None = "DP variable plot",
    ax: Any = None,
):
    """Variable correlations with two components as arrows, with the unit circle.

    ``coordinates`` is a DataFrame of variables by two components (for example
    ``result.variable_coordinates()``); NaN rows (no variance in the estimated components) are
    left out.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.patches import Circle

    columns = list(coordinates.columns[:2])
    shown = select_variables(coordinates.dropna(), columns, top)
    tips = shown[columns].to_numpy()
    ax = axes_or_new(ax)
    ax.axhline(0, color="0.75", linestyle="--", linewidth=0.6)
    ax.axvline(0, color="0.75", linestyle="--", linewidth=0.6)
    if circle:
        ax.add_patch(
            Circle(
                (0, 0),
                1.0,
                fill=False,
                linestyle="--",
                edgecolor="0.6",
                linewidth=0.8,
                gid="unit circle",
            )
        )
        limit = 1.15
    else:
        limit = 1.2 * max(float(np.max(np.abs(tips))) if len(tips) else 0.1, 0.1)
    draw_arrows(ax, tips, color)
    finish_square(ax, tips, [str(name) for name in shown.index], color, limit, title, columns)
    return ax


def plot_biplot(
    biplot: BiplotCoordinates,
    names: list[str],
    *,
    axis_labels: tuple[str, str] = ("PC1", "PC2"),
    top: int | None = None,
    title: str | None = "DP biplot",
    ax: Any = None,
):
    """Grey score points and variable arrows (coordinates from ``biplot_coordinates``).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes_or_new(ax)
    if len(biplot.points):
        ax.scatter(
            biplot.points[:, 0],
            biplot.points[:, 1],
            s=4,
            color=BIPLOT_POINT_COLOR,
            alpha=0.6,
            linewidths=0,
            gid="points",
        )
    arrows = pd.DataFrame(biplot.arrows, index=names, columns=list(axis_labels))
    shown = select_variables(arrows, list(axis_labels), top)
    if biplot.arrow_scale > 0:
        draw_arrows(ax, shown.to_numpy(), BIPLOT_ARROW_COLOR)
        span = (biplot.xlim[1] - biplot.xlim[0]) if biplot.xlim else 2 * biplot.score_radius
        label_points(
            ax, shown.to_numpy(), [str(n) for n in shown.index], BIPLOT_ARROW_COLOR, span / 2
        )
    if biplot.note:
        ax.text(0.02, 0.02, biplot.note, transform=ax.transAxes, fontsize=7, color="0.4")
    if not len(biplot.points) and biplot.arrow_scale == 0:
        note(ax, "No synthetic points to draw")
    if biplot.xlim is not None and biplot.ylim is not None:
        ax.set_xlim(*biplot.xlim)
        ax.set_ylim(*biplot.ylim)
    ax.set_aspect("equal")
    finish(ax, title, axis_labels[0], axis_labels[1])
    return ax
