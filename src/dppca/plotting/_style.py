"""Shared look of the plots (after the R package ``dppca``) and small helpers.

Matplotlib is imported only here and only when a plot is drawn.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

DP_COLOR = "#1F4E79"
NONPRIVATE_COLOR = "#000000"
SCORE_COLOR = "#6A5ACD"
BIPLOT_POINT_COLOR = "#B0B0B0"
BIPLOT_ARROW_COLOR = "#174A7E"
HEATMAP_LOW, HEATMAP_HIGH = "#2C5D8A", "#B44A4A"
#: Okabe-Ito colours (colour-blind safe), ordered for contrast on white.
GROUP_PALETTE = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#D55E00",
    "#56B4E9",
    "#000000",
    "#F0E442",
]
SCREE_STYLES = {
    "non_private": (NONPRIVATE_COLOR, "o", "Non-private"),
    "clipped": ("#D55E00", "^", "Clipped (DP)"),
    "pmwm": ("#009E73", "s", "PMWM (DP)"),
    "huber": ("#0072B2", "D", "Huber (DP)"),
}


def pyplot():
    """matplotlib.pyplot, imported on first use with a clear message when missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:  # pragma: no cover - matplotlib is a dependency
        raise ImportError("dppca.plotting requires matplotlib: pip install matplotlib") from error
    return plt


def axes_or_new(ax: Any, figsize: tuple[float, float] = (5.0, 5.0)):
    """``ax`` itself, or new Axes on a new figure."""
    if ax is not None:
        return ax
    _, ax = pyplot().subplots(figsize=figsize, layout="constrained")
    return ax


def finish(ax, title: str | None, xlabel: str | None = None, ylabel: str | None = None) -> None:
    """Bold centred title, axis labels and a thin black frame (R's ``theme_dp_base``)."""
    if title:
        ax.set_title(title, fontweight="bold", fontsize=11)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    for spine in ax.spines.values():
        spine.set_visible(True)
        spine.set_color("black")
        spine.set_linewidth(0.6)
    ax.grid(True, color="0.92", linewidth=0.6)
    ax.set_axisbelow(True)


def note(ax, text: str) -> None:
    """A short grey note in the panel (for example, an empty private histogram)."""
    ax.text(
        0.5,
        0.5,
        text,
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=9,
        color="0.35",
        wrap=True,
        gid="note",
    )


#: The font size of a caption under a panel, in points.
CAPTION_SIZE = 7


def caption_below(ax, text: str) -> None:
    """A small grey caption under the panel (outside the data area), wrapped to the panel's
    width when drawn (a caption wrapped only at drawing time is one long line to the layout
    engine, which then squeezes the panels to nothing)."""
    points = ax.get_position().width * ax.figure.get_figwidth() * 72.0
    characters = max(30, int(points / (CAPTION_SIZE * 0.5)))
    ax.annotate(
        textwrap.fill(text, characters),
        xy=(0.5, 0),
        xycoords="axes fraction",
        xytext=(0, -30),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=CAPTION_SIZE,
        color="0.35",
        gid="caption",
    )


def group_colors(levels: list[Any]) -> dict[Any, str]:
    return {level: GROUP_PALETTE[i % len(GROUP_PALETTE)] for i, level in enumerate(levels)}


#: Axes whose labels wait for one final placement (inside :func:`deferred_labels`).
_WAITING: ContextVar[list[Any] | None] = ContextVar("dppca_waiting_labels", default=None)


def label_points(ax, tips: np.ndarray, names: list[str], color: str, limit: float) -> None:
    """A label for each tip, just beyond it, then moved apart from the other labels and the
    tips, with a thin leader line where it moved far (:mod:`.label_placement`).

    ``limit`` is the panel's half-range in data units (the outward offset is 5 % of it).
    The labels are placed by :func:`labels_ready` once the panel's limits are set.
    """
    if not len(tips):
        return
    norms = np.hypot(tips[:, 0], tips[:, 1])
    safe = np.where(norms > 0, norms, 1.0)
    outward = np.where(norms[:, None] > 0, tips / safe[:, None], 0.0)
    anchors = _stacked(tips + 0.05 * limit * outward, 0.07 * limit)
    texts = [
        ax.text(
            x,
            y,
            name,
            color=color,
            fontsize=8,
            ha="left" if x >= 0 else "right",
            va="center",
            gid="label",
        )
        for (x, y), name in zip(anchors, names, strict=True)
    ]
    placements = ax.__dict__.setdefault("_dppca_labels", [])
    placements.append((texts, np.asarray(tips, dtype=float)))


def _stacked(anchors: np.ndarray, step: float) -> np.ndarray:
    """Anchors with near neighbours stacked ``step`` apart vertically (top to bottom), so that
    no two labels start on one spot (the repulsion has no direction between coincident ones)."""
    stacked = anchors.astype(float).copy()
    order = np.argsort(-stacked[:, 1], kind="stable")
    for previous, current in itertools.pairwise(order):
        close = abs(stacked[current, 0] - stacked[previous, 0]) < 4 * step
        if close and stacked[previous, 1] - stacked[current, 1] < step:
            stacked[current, 1] = stacked[previous, 1] - step
    return stacked


def labels_ready(ax) -> None:
    """The panel is drawn (limits set): place its labels now, or, inside
    :func:`deferred_labels`, once the figure is laid out."""
    waiting = _WAITING.get()
    if waiting is None:
        ax.figure.figure.draw_without_rendering()  # the root figure's layout: the final sizes
        place_labels(ax)
    elif ax not in waiting:
        waiting.append(ax)


def place_labels(ax) -> None:
    """Move the labels of ``ax`` (from :func:`label_points`) apart from each other, from the
    points they name and from the outer part of each arrow's shaft
    (:mod:`.label_placement`), once the figure is laid out."""
    from dppca.plotting.label_placement import place_texts

    for texts, tips in ax.__dict__.pop("_dppca_labels", []):
        along = np.linspace(0.6, 1.0, 5)[:, None, None] * tips[None]
        place_texts(ax, texts, tips, along.reshape(-1, 2))


@contextmanager
def deferred_labels(figure) -> Iterator[None]:
    """Place every label drawn inside the block once, after the figure is laid out (labels
    placed panel by panel would overlap again when later panels shrink the earlier ones); a
    figure without a layout engine is not drawn, its Axes' limits are all the labels need."""
    waiting: list[Any] = []
    token = _WAITING.set(waiting)
    try:
        yield
    finally:
        _WAITING.reset(token)
    root = figure.figure  # a page may be a SubFigure: the root figure is laid out
    engine = root.get_layout_engine()
    if engine is None:  # nothing to lay out: the Axes' final limits and shape are enough
        for ax in waiting:
            ax.autoscale_view()
            ax.apply_aspect()
            place_labels(ax)
        return
    root.draw_without_rendering()  # the final layout
    root.set_layout_engine("none")  # labels move inside their Axes: the layout stands meanwhile
    try:
        for ax in waiting:
            place_labels(ax)
    finally:
        root.set_layout_engine(engine)


def draw_arrows(ax, tips: np.ndarray, color: str) -> None:
    """Arrows from the origin to each tip."""
    from matplotlib.patches import FancyArrowPatch

    for x, y in tips:
        ax.add_patch(
            FancyArrowPatch(
                (0, 0),
                (x, y),
                arrowstyle="-|>",
                mutation_scale=9,
                color=color,
                linewidth=1.1,
                gid="arrow",
            )
        )


def finish_square(
    ax,
    tips: np.ndarray,
    names: list[str],
    color: str,
    limit: float,
    title: str | None,
    labels: list[str],
) -> None:
    """Label the tips, set square limits ``+-limit`` with equal aspect, and finish the panel."""
    label_points(ax, tips, names, color, limit)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    finish(ax, title, labels[0], labels[1])
    labels_ready(ax)
