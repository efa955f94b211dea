"""Score plots: private histograms (cell opacity by probability), synthetic points, groups."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import label_texts
from dppca.plotting._results import is_result, refuse
from dppca.plotting._style import (
    SCORE_COLOR,
    axes_or_new,
    caption_below,
    finish,
    group_colors,
    note,
)

EMPTY_NOTE = "No cells survived private thresholding"


def _rectangles(cells: pd.DataFrame) -> np.ndarray:
    x0, x1, y0, y1 = (cells[c].to_numpy() for c in ("xmin", "xmax", "ymin", "ymax"))
    return np.stack([np.c_[x0, y0], np.c_[x1, y0], np.c_[x1, y1], np.c_[x0, y1]], axis=1)


def _add_cells(ax, cells: pd.DataFrame, color: str, opacity_max: float, label: str | None):
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba

    shown = cells[cells["prob"] > 0]
    rgba = np.tile(to_rgba(color), (len(shown), 1))
    rgba[:, 3] = np.clip(shown["prob"].to_numpy() / opacity_max, 0.0, 1.0)
    collection = PolyCollection(
        list(_rectangles(shown)), facecolors=rgba, edgecolors="none", label=label, gid="cells"
    )
    ax.add_collection(collection)
    return collection


def _frame(ax, limits, axis_labels, title):
    (x0, x1), (y0, y1) = limits
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    finish(ax, title, axis_labels[0], axis_labels[1])


def plot_score_histogram(
    cells: pd.DataFrame | dict[Any, pd.DataFrame],
    limits: tuple[tuple[float, float], tuple[float, float]],
    *,
    axis_labels: tuple[str, str] = ("PC1", "PC2"),
    opacity_max: float | None = None,
    color: str = SCORE_COLOR,
    title: str | None = "DP score histogram",
    legend: bool = True,
    caption: str | None = None,
    ax: Any = None,
):
    """A 2-D histogram on its (square) frame: each cell's opacity is its probability.

    Parameters
    ----------
    cells : DataFrame or dict of label to DataFrame
        Columns ``xmin, xmax, ymin, ymax, prob``; a dict overlays one histogram per group in a
        colour-blind-safe palette with a legend. A result is refused with a ``TypeError``:
        :class:`~dppca.plotting.ScoreHistogramDisplay` draws one (its method and centring).
    limits : ((xmin, xmax), (ymin, ymax))
        The frame (for example ``result.frame.limits(center=True)``).
    opacity_max : float, optional
        The probability drawn fully opaque; default the largest shown. Pass the private value
        to a reference panel so both share one opacity scale.
    legend : bool, default True
        The groups' legend.
    caption : str, optional
        A note under the panel.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Drawing spends no privacy budget. An all-zero histogram is drawn empty with a note.

    Examples
    --------
    >>> from dppca.plotting import plot_score_histogram
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"xmin": [0.0, 1.0], "xmax": [1.0, 2.0], "ymin": [0.0, 0.0],
    ...                       "ymax": [1.0, 1.0], "prob": [0.25, 0.75]})
    >>> plot_score_histogram(cells, ((0.0, 2.0), (0.0, 1.0))).get_xlabel()
    'PC1'
    """
    from matplotlib.patches import Patch

    tables = cells if isinstance(cells, dict) else {None: cells}
    for label, table in tables.items():
        if not isinstance(table, pd.DataFrame):
            refuse(
                table,
                "cells" if label is None else f"cells[{label!r}]",
                "plot_score_histogram",
                "a DataFrame of cells or a dict of label to DataFrame",
                'ScoreHistogramDisplay.from_result(result) or result.plot("score") draws a '
                "DPPCAResult or ScoreResult (its method and centring chosen there)."
                if is_result(table)
                else "",
            )
    largest = max((float(t["prob"].max()) for t in tables.values()), default=0.0)
    opacity_max = opacity_max or largest
    ax = axes_or_new(ax)
    if largest <= 0:
        note(ax, EMPTY_NOTE)
    else:
        colors = group_colors(list(tables)) if len(tables) > 1 or None not in tables else {}
        texts = label_texts(list(tables))
        for label, table in tables.items():
            _add_cells(
                ax,
                table,
                colors.get(label, color),
                opacity_max,
                None if label is None else texts[label],
            )
        if colors and legend:
            handles = [Patch(color=colors[label], label=texts[label]) for label in tables]
            ax.legend(
                handles=handles,
                fontsize=8,
                frameon=False,
                loc="upper left",
                bbox_to_anchor=(1.0, 1.0),
            )
    _frame(ax, limits, axis_labels, title)
    if caption:
        caption_below(ax, caption)
    return ax


def plot_score_points(
    points: pd.DataFrame,
    limits: tuple[tuple[float, float], tuple[float, float]] | None = None,
    *,
    color: str = SCORE_COLOR,
    title: str | None = "DP synthetic scores",
    legend: bool = True,
    size: float = 5.0,
    alpha: float = 0.6,
    caption: str | None = None,
    ax: Any = None,
):
    """Score points (synthetic draws from a private histogram, or a reference scatter).

    ``points`` has two coordinate columns and, optionally, ``group`` (coloured with a
    colour-blind-safe palette and a legend); ``caption`` is a note under the panel. A result is
    refused with a ``TypeError``: its points are drawn at random, which
    :class:`~dppca.plotting.ScorePointsDisplay` does.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_score_points
    >>> import pandas as pd
    >>> points = pd.DataFrame({"PC1": [0.0, 1.0], "PC2": [1.0, 0.0], "group": ["a", "b"]})
    >>> plot_score_points(points).get_title()
    'DP synthetic scores'
    """
    if not isinstance(points, pd.DataFrame):
        refuse(
            points,
            "points",
            "plot_score_points",
            "a DataFrame of score points (for example from dppca.sample_scores)",
            'ScorePointsDisplay.from_result(result) or result.plot("sample", random_state=...) '
            "draws synthetic points of a DPPCAResult or ScoreResult."
            if is_result(points)
            else "",
        )
    coordinates = [c for c in points.columns if c != "group"][:2]
    ax = axes_or_new(ax)
    if len(points) == 0:
        note(ax, "No synthetic points: the histogram has no mass")
    elif "group" in points.columns:
        levels = (
            list(points["group"].cat.categories)
            if isinstance(points["group"].dtype, pd.CategoricalDtype)
            else list(pd.unique(points["group"]))
        )
        colors = group_colors(levels)
        texts = label_texts(levels)
        for level in levels:
            subset = points[points["group"] == level]
            ax.scatter(
                subset[coordinates[0]],
                subset[coordinates[1]],
                s=size,
                alpha=alpha,
                color=colors[level],
                label=texts[level],
                linewidths=0,
            )
        if legend:
            ax.legend(
                fontsize=8,
                frameon=False,
                loc="upper left",
                bbox_to_anchor=(1.0, 1.0),
                markerscale=2,
            )
    else:
        ax.scatter(
            points[coordinates[0]],
            points[coordinates[1]],
            s=size,
            alpha=alpha,
            color=color,
            linewidths=0,
        )
    if limits is not None:
        _frame(ax, limits, tuple(coordinates), title)
    else:
        finish(ax, title, coordinates[0], coordinates[1])
    if caption:
        caption_below(ax, caption)
    return ax
