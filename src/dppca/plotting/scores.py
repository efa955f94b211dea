"""Score plots: private histograms (cell opacity by probability), synthetic points, groups."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import label_texts
from dppca._validation import check_option
from dppca.plotting._display import (
    Display,
    budget_title,
    reference_of,
    status_caption,
    unusable,
    version_titles,
)
from dppca.plotting._results import check_result, is_result, refuse
from dppca.plotting._style import (
    SCORE_COLOR,
    axes_or_new,
    caption_below,
    finish,
    group_colors,
    note,
)
from dppca.results.sampling import SAMPLING_METHODS, NoMassWarning, sample_scores
from dppca.results.scores import shift_cells

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


@dataclass(eq=False)
class ScoreHistogramDisplay(Display):
    """A private 2-D histogram of scores: cells shaded by probability, one colour per group.

    Parameters
    ----------
    tables : DataFrame or dict of label to DataFrame
        Cells (``xmin, xmax, ymin, ymax, prob``), or one table per group.
    limits : ((float, float), (float, float))
        The frame's x and y limits.
    axis_labels : (str, str), default ("PC1", "PC2")
    opacity_max : float, optional
        The probability drawn fully opaque (share it between panels that should compare).
    title : str, optional
    legend : bool, default True
        The groups' legend.
    caption : str, optional

    Examples
    --------
    >>> from dppca.plotting import ScoreHistogramDisplay
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"xmin": [0.0, 1.0], "xmax": [1.0, 2.0], "ymin": [0.0, 0.0],
    ...                       "ymax": [1.0, 1.0], "prob": [0.25, 0.75]})
    >>> display = ScoreHistogramDisplay(cells, ((0.0, 2.0), (0.0, 1.0))).plot()
    >>> [float(limit) for limit in display.ax_.get_xlim()]
    [0.0, 2.0]
    """

    tables: pd.DataFrame | dict[Any, pd.DataFrame]
    limits: tuple[tuple[float, float], tuple[float, float]]
    axis_labels: tuple[str, str] = ("PC1", "PC2")
    opacity_max: float | None = None
    title: str | None = "DP score histogram"
    legend: bool = True
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_score_histogram(
            self.tables,
            self.limits,
            axis_labels=self.axis_labels,
            opacity_max=self.opacity_max,
            title=self.title,
            legend=self.legend,
            caption=self.caption,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        method: str | None = None,
        non_private: bool = False,
        center: bool = True,
        legend: bool = True,
        ax: Any = None,
    ) -> ScoreHistogramDisplay:
        """The score histogram of a :class:`~dppca.DPPCAResult` or a :class:`~dppca.ScoreResult`
        (``method``: which of its histograms, default the first), centred on the private frame's
        centre (``center=True``, no budget). ``non_private=True`` draws the empirical histogram
        on the same frame, with the private opacity scale."""
        check_result(result, "ScoreHistogramDisplay", "DPPCAResult", "ScoreResult")
        prefix, suffix = version_titles(non_private)
        title = f"{prefix} score histogram{suffix}"
        if not non_private:
            name = method or histogram_methods(result)[0]
            spent = ""
            if is_result(result, "DPPCAResult"):
                count = len(histogram_methods(result))
                shared = f"1 of {count} sharing " if count > 1 else ""
                spent = f", {shared}score {budget_title(result, 'score')}"
            title += f"\n({name}{spent})"
        parts = score_parts(result, None if non_private else method)
        marked = unusable(result, parts, title, ax)
        if marked is not None:
            return marked
        private = _private_tables(result, method)
        tables = private
        if non_private:
            reference = reference_of(result)
            tables = reference.groups if reference.groups is not None else reference.histogram
        if center:
            tables = _shift(tables, result.frame.center)
        return cls(
            tables,
            result.frame.limits(center=center),
            axis_labels=result.axis_labels,
            opacity_max=_largest(private) or None,
            title=title,
            legend=legend,
            caption=frame_caption(result, method),
        ).plot(ax)


@dataclass(eq=False)
class ScorePointsDisplay(Display):
    """Score points: synthetic draws from a private histogram (or, as the reference, the
    observed scores), coloured by group.

    Parameters
    ----------
    points : DataFrame
        Two coordinate columns and optionally ``group``.
    limits : ((float, float), (float, float)), optional
    title : str, optional
    legend : bool, default True
    caption : str, optional

    Examples
    --------
    >>> from dppca.plotting import ScorePointsDisplay
    >>> import pandas as pd
    >>> points = pd.DataFrame({"PC1": [0.0, 1.0], "PC2": [1.0, 0.0]})
    >>> ScorePointsDisplay(points).plot().ax_.get_title()
    'DP synthetic scores'
    """

    points: pd.DataFrame
    limits: tuple[tuple[float, float], tuple[float, float]] | None = None
    title: str | None = "DP synthetic scores"
    legend: bool = True
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_score_points(
            self.points,
            self.limits,
            title=self.title,
            legend=self.legend,
            caption=self.caption,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        method: str | None = None,
        non_private: bool = False,
        sampling: str = "uniform",
        n_points: int | None = None,
        bandwidth_scale: float | None = None,
        center: bool = True,
        random_state: Any = None,
        legend: bool = True,
        ax: Any = None,
    ) -> ScorePointsDisplay:
        """Synthetic points drawn from the private histogram of a :class:`~dppca.DPPCAResult`
        or :class:`~dppca.ScoreResult` (``sampling``: ``"uniform"`` or ``"center"``,
        post-processing with ``random_state``); ``non_private=True`` draws the observed scores
        (the reference scatter)."""
        check_result(result, "ScorePointsDisplay", "DPPCAResult", "ScoreResult")
        sampling = check_option(sampling, "sampling", SAMPLING_METHODS)
        title = "Non-private scatter (reference)" if non_private else "DP synthetic scores"
        parts = score_parts(result, None if non_private else method)
        marked = unusable(result, parts, title, ax)
        if marked is not None:
            return marked
        if non_private:
            points = reference_of(result).scores.copy()
            if center:
                points[list(result.axis_labels)] -= result.frame.center
            title = "Non-private scatter (reference)"
        else:
            with warnings.catch_warnings():  # an empty histogram is shown by the panel's note
                warnings.simplefilter("ignore", NoMassWarning)
                points = sample_scores(
                    result,
                    n=n_points,
                    method=sampling,
                    bandwidth_scale=bandwidth_scale,
                    random_state=random_state,
                    histogram=method,
                    center=center,
                )
            source = method or histogram_methods(result)[0]
            title = f"DP synthetic scores\n({source} histogram, {sampling} sampling)"
        return cls(
            points,
            result.frame.limits(center=center),
            title=title,
            legend=legend,
            caption=frame_caption(result, method),
        ).plot(ax)


def frame_caption(result: Any, method: str | None = None) -> str | None:
    """The caption of a score panel: a warning when the frame or the histogram (``method``'s,
    default the first) is flagged."""
    return status_caption(result, score_parts(result, method))


def score_parts(result: Any, method: str | None) -> tuple[str, str]:
    """The releases a score panel of ``method``'s histogram rests on, as a pipeline's status
    names them: the frame and the histogram (``"histogram (<method>)"`` for a method after the
    first)."""
    if method is None or is_result(result, "ScoreResult") or method == histogram_methods(result)[0]:
        return ("frame", "histogram")
    return ("frame", f"histogram ({method})")


def histogram_methods(result: Any) -> tuple[str, ...]:
    """The histogram methods a pipeline or score result released, the first the default."""
    if is_result(result, "ScoreResult"):
        return tuple(result.methods)
    return tuple(result.histogram_methods)


def _private_tables(result: Any, method: str | None) -> Any:
    """The private histogram (or per-group histograms) of a pipeline or score result."""
    methods = histogram_methods(result)
    name = methods[0] if method is None else check_option(method, "method", methods)
    if is_result(result, "ScoreResult"):  # one histogram per method
        if result.groups is not None:
            return {level: tables[name] for level, tables in result.groups.items()}
        return result.histograms[name]
    _, histogram, groups = result.histogram_tables(name)
    return groups if groups is not None else histogram


def _largest(tables: Any) -> float:
    if isinstance(tables, dict):
        return max(float(t["prob"].max()) for t in tables.values())
    return float(tables["prob"].max())


def _shift(tables: Any, center: np.ndarray) -> Any:
    if isinstance(tables, dict):
        return {label: shift_cells(table, center) for label, table in tables.items()}
    return shift_cells(tables, center)
