"""The variable (correlation) plot and the biplot."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_option
from dppca.numerics.biplot import BiplotCoordinates
from dppca.plotting._results import is_result, refuse
from dppca.plotting._style import (
    BIPLOT_ARROW_COLOR,
    BIPLOT_POINT_COLOR,
    DP_COLOR,
    axes_or_new,
    caption_below,
    draw_arrows,
    finish,
    finish_square,
    label_points,
    labels_ready,
    note,
)
from dppca.plotting.loadings import select_variables


def plot_variables(
    coordinates: Any,
    *,
    variables: Any = None,
    kind: str = "vector",
    circle: bool = True,
    color: str = DP_COLOR,
    title: str | None = "DP variable plot",
    labels: bool = True,
    caption: str | None = None,
    ax: Any = None,
):
    """Variable correlations with two components as arrows (or points), with the unit circle.

    ``coordinates`` is a DataFrame of variables by two components (for example
    ``result.variable_coordinates()``), or a :class:`~dppca.DPPCAResult`, whose private
    coordinates are drawn; NaN rows (no variance in the estimated components) are left out.
    ``variables`` selects the variables shown (see :func:`~dppca.plotting.loadings.plot_loadings`);
    ``circle`` draws the unit circle; ``caption`` is a note under the panel.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_variables
    >>> import pandas as pd
    >>> table = pd.DataFrame({"PC1": [0.9, -0.2], "PC2": [0.1, 0.7]}, index=["a", "b"])
    >>> [float(limit) for limit in plot_variables(table, kind="point").get_xlim()]
    [-1.15, 1.15]
    """
    from matplotlib.patches import Circle

    kind = check_option(kind, "kind", ("vector", "point"))
    if is_result(coordinates, "DPPCAResult"):
        coordinates = coordinates.variable_coordinates()
    elif not isinstance(coordinates, pd.DataFrame):
        refuse(
            coordinates,
            "coordinates",
            "plot_variables",
            "a DataFrame of variables by two components or a DPPCAResult",
            "Correlations need the private scree values of dp_pca."
            if is_result(coordinates)
            else "",
        )
    columns = list(coordinates.columns[:2])
    shown = select_variables(coordinates.dropna(), columns, variables)
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
    if kind == "vector":
        draw_arrows(ax, tips, color)
    else:
        ax.scatter(tips[:, 0], tips[:, 1], s=22, color=color, alpha=0.9, zorder=3, gid="points")
    if caption:
        caption_below(ax, caption)
    names = [str(name) for name in shown.index] if labels else []
    finish_square(ax, tips if labels else tips[:0], names, color, limit, title, columns)
    return ax


def plot_biplot(
    biplot: BiplotCoordinates,
    names: list[str],
    *,
    axis_labels: tuple[str, str] = ("PC1", "PC2"),
    variables: Any = None,
    labels: bool = True,
    title: str | None = "DP biplot",
    points_label: str = "synthetic scores (drawn from the private histogram)",
    ax: Any = None,
):
    """Grey score points and variable arrows (coordinates from ``biplot_coordinates`` or
    :meth:`dppca.DPPCAResult.biplot`); the points are named in a legend (``points_label``).
    A result is refused: its points are drawn at random, which
    :class:`~dppca.plotting.BiplotDisplay` does (``result.plot("biplot", random_state=...)``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_biplot
    >>> import numpy as np
    >>> from dppca.numerics.biplot import biplot_coordinates
    >>> points = np.random.default_rng(0).normal(size=(200, 2))
    >>> coordinates = biplot_coordinates(points, np.eye(3), np.array([4.0, 1.0, 0.5]), (1, 2), 200)
    >>> ax = plot_biplot(coordinates, ["a", "b", "c"])
    >>> ax.get_legend().get_texts()[0].get_text()
    'synthetic scores (drawn from the private histogram)'
    """
    if not isinstance(biplot, BiplotCoordinates):
        refuse(
            biplot,
            "biplot",
            "plot_biplot",
            "BiplotCoordinates (from DPPCAResult.biplot)",
            'BiplotDisplay.from_result(result) or result.plot("biplot") draws a DPPCAResult.'
            if is_result(biplot)
            else "",
        )
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
            label=points_label,
        )
        ax.legend(loc="lower right", fontsize=7, frameon=False, markerscale=2.5)
    arrows = pd.DataFrame(biplot.arrows, index=names, columns=list(axis_labels))
    shown = select_variables(arrows, list(axis_labels), variables)
    if biplot.arrow_scale > 0:
        tips = shown.to_numpy()
        draw_arrows(ax, tips, BIPLOT_ARROW_COLOR)
        span = (biplot.xlim[1] - biplot.xlim[0]) if biplot.xlim else 2 * biplot.score_radius
        if labels:
            label_points(ax, tips, [str(n) for n in shown.index], BIPLOT_ARROW_COLOR, span / 2)
    if biplot.note:
        ax.text(0.02, 0.02, biplot.note, transform=ax.transAxes, fontsize=7, color="0.4")
    if not len(biplot.points) and biplot.arrow_scale == 0:
        note(ax, "No synthetic points to draw")
    if biplot.xlim is not None and biplot.ylim is not None:
        ax.set_xlim(*biplot.xlim)
        ax.set_ylim(*biplot.ylim)
    ax.set_aspect("equal")
    finish(ax, title, axis_labels[0], axis_labels[1])
    labels_ready(ax)
    return ax
