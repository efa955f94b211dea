"""Shared look of the plots (after the R package ``dppca``) and small helpers.

Matplotlib is imported only here and only when a plot is drawn.
"""

from __future__ import annotations

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
    _, ax = pyplot().subplots(figsize=figsize)
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


def group_colors(levels: list[Any]) -> dict[Any, str]:
    return {level: GROUP_PALETTE[i % len(GROUP_PALETTE)] for i, level in enumerate(levels)}


def repel(centres: np.ndarray, widths: np.ndarray, height: float, iterations: int = 200):
    """Move label boxes (given centres, widths and one height) vertically until no two overlap,
    or give up after ``iterations`` sweeps."""
    centres = centres.astype(float).copy()
    for _ in range(iterations):
        moved = False
        for i in range(len(centres)):
            for j in range(i + 1, len(centres)):
                dx, dy = centres[j] - centres[i]
                if abs(dx) < (widths[i] + widths[j]) / 2 and abs(dy) < height:
                    push = (height - abs(dy)) / 2 + 1e-9
                    sign = 1.0 if dy > 0 or (dy == 0 and j > i) else -1.0
                    centres[i, 1] -= sign * push
                    centres[j, 1] += sign * push
                    moved = True
        if not moved:
            break
    return centres


def label_points(ax, tips: np.ndarray, names: list[str], color: str, limit: float) -> None:
    """Labels just beyond each tip, moved apart so that they do not overlap.

    Text sizes are estimated for 8-point labels on a panel about 4 inches wide showing
    ``2 * limit`` data units.
    """
    if not len(tips):
        return
    norms = np.hypot(tips[:, 0], tips[:, 1])
    safe = np.where(norms > 0, norms, 1.0)
    outward = np.where(norms[:, None] > 0, tips / safe[:, None], 0.0)
    anchors = tips + 0.05 * limit * outward
    widths = np.array([0.034 * limit * len(name) for name in names])
    left = anchors[:, 0] >= 0
    centres = anchors.copy()
    centres[:, 0] += np.where(left, widths / 2, -widths / 2)
    centres = repel(centres, widths, height=0.075 * limit)
    for (x, y), width, is_left, name in zip(centres, widths, left, names, strict=True):
        ax.text(
            x - width / 2 if is_left else x + width / 2,
            y,
            name,
            color=color,
            fontsize=8,
            ha="left" if is_left else "right",
            va="center",
            gid="label",
        )


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
