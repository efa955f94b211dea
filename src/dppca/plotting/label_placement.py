"""Labels placed apart from each other and from the points they must not cover, as the R
package's plots do with ggrepel: each label, in turn, takes the nearest free position to where
it starts among candidate positions on rings around it (greedy point-feature label placement;
Christensen, Marks and Shieber, An empirical study of algorithms for point-feature label
placement, ACM Transactions on Graphics 14, 1995).

Each label is a box of its own size in display pixels (measured once: moving a label does not
change its size). The candidates lie on :data:`RINGS` rings :data:`RING_STEP` pixels apart, in
:data:`DIRECTIONS` directions, kept :data:`MARGIN` points inside the Axes; the first whose box
covers no point (a disc of :data:`POINT_RADIUS` pixels) and no label placed before it (with
:data:`SPACING` of room) is taken, the one that overlaps least when none is free. Nothing
depends on a clock or on a random draw, so a figure is the same at every run. A label that ends
away from its point is joined to it by a thin leader line from the edge of its box.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.lines import Line2D  # this module is imported when labels are placed

#: Candidate rings around a label's start, this many pixels apart, in this many directions.
RINGS, RING_STEP, DIRECTIONS = 40, 4.0, 16
#: A label box counts this much wider and taller when it meets another (room between labels).
SPACING = (1.1, 1.2)
#: Points count as discs of this radius, in pixels.
POINT_RADIUS = 5.0
#: The least distance, in points, between a label and the edge of its Axes.
MARGIN = 4.0
#: A leader line is drawn when its label's box is at least this far from the point, in pixels.
LEADER_LENGTH = 8.0


def _candidates(start: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The start, then the rings around it, nearest first, each kept inside [low, high]."""
    angles = 2 * np.pi * np.arange(DIRECTIONS) / DIRECTIONS
    ring = np.column_stack([np.cos(angles), np.sin(angles)])
    radii = RING_STEP * np.arange(1, RINGS + 1)
    around = start + (radii[:, None, None] * ring[None]).reshape(-1, 2)
    return np.clip(np.vstack([start, around]), low, high)


def _overlap(candidates: np.ndarray, others: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """For each candidate centre of a box: the summed area of its overlap with the boxes (or
    the squares around discs) centred at ``others``, which meet it within ``reach`` (the half
    sizes added) on each axis."""
    if not len(others):
        return np.zeros(len(candidates))
    depth = reach[None] - np.abs(candidates[:, None, :] - others[None])
    return np.prod(np.clip(depth, 0.0, None), axis=-1).sum(axis=1)


def place(
    centres: np.ndarray,
    halves: np.ndarray,
    points: np.ndarray,
    limits: tuple[float, float, float, float],
) -> np.ndarray:
    """The label boxes' centres (display pixels), placed one after another.

    ``centres`` and ``halves`` (n, 2): the boxes' starting centres and half sizes; ``points``
    (m, 2): what no box may cover (non-finite ones are ignored); ``limits``: (x0, x1, y0, y1)
    that every box stays inside (a box wider than them is put against their low edge).

    Examples
    --------
    Two labels on one spot: the first stays, the second takes the nearest free place.

    >>> boxes = place(np.array([[50.0, 50.0], [50.0, 50.0]]), np.array([[10.0, 4.0]] * 2),
    ...               np.empty((0, 2)), (0.0, 100.0, 0.0, 100.0))
    >>> boxes[0].tolist(), bool(abs(boxes[0, 1] - boxes[1, 1]) >= 2 * 4.0)
    ([50.0, 50.0], True)
    """
    centres, halves = np.reshape(centres, (-1, 2)), np.reshape(halves, (-1, 2))
    points = np.reshape(points, (-1, 2))
    points = points[np.isfinite(points).all(axis=1)]  # a point not drawn is no obstacle
    low = np.array([limits[0], limits[2]]) + halves
    high = np.maximum(np.array([limits[1], limits[3]]) - halves, low)
    spaced = halves * np.asarray(SPACING)
    placed = np.empty_like(centres, dtype=float)
    for i, start in enumerate(centres.astype(float)):
        candidates = _candidates(start, low[i], high[i])
        covering = _overlap(candidates, points, halves[i] + POINT_RADIUS)
        crowding = _overlap(candidates, placed[:i], spaced[i] + spaced[:i])
        cost = covering + crowding
        free = np.flatnonzero(cost == 0)
        placed[i] = candidates[free[0] if len(free) else np.argmin(cost)]
    return placed


def _leader_start(centre: np.ndarray, half: np.ndarray, tip: np.ndarray) -> np.ndarray | None:
    """Where the segment from the box's centre to ``tip`` leaves the box (``None``: the tip is
    within :data:`LEADER_LENGTH` of the box)."""
    offset = tip - centre
    outside = np.abs(offset) - half
    if np.hypot(*np.maximum(outside, 0.0)) < LEADER_LENGTH:
        return None
    with np.errstate(divide="ignore"):
        scale = np.min(np.where(offset != 0, half / np.abs(offset), np.inf))
    return centre + scale * offset


class Leader(Line2D):
    """A line from the edge of a label's box to the point it names (``tip``, data units), its
    start found again at every draw: the box keeps its size in pixels when the figure is
    resized or saved at another resolution, the data do not."""

    def __init__(self, text: Any, tip: np.ndarray, **style: Any) -> None:
        super().__init__([tip[0], tip[0]], [tip[1], tip[1]], **style)
        self.text, self.tip = text, tip

    def draw(self, renderer: Any) -> None:
        ax = self.axes
        if ax is None:
            return
        extent = self.text.get_window_extent(renderer)
        centre = np.array([(extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2])
        half = np.array([extent.width / 2, extent.height / 2])
        start = _leader_start(centre, half, ax.transData.transform(self.tip))
        if start is not None:  # the label may now cover its point: no leader then
            x, y = ax.transData.inverted().transform(start)
            self.set_data([x, self.tip[0]], [y, self.tip[1]])
            super().draw(renderer)


def place_texts(ax: Any, texts: list[Any], tips: np.ndarray, points: np.ndarray) -> list[Any]:
    """Move the ``texts`` of ``ax`` (each naming the tip in the same row of ``tips``, data
    units) apart from each other and from ``points`` (data units), keep them :data:`MARGIN`
    points inside the Axes, and join each that ends far from its tip to it by a leader line;
    return the lines. The figure must be laid out (its final size and limits)."""
    renderer = ax.figure.canvas.get_renderer()
    to_display = ax.transData
    extents = [text.get_window_extent(renderer) for text in texts]
    centres = np.array([[(e.x0 + e.x1) / 2, (e.y0 + e.y1) / 2] for e in extents])
    halves = np.array([[e.width / 2, e.height / 2] for e in extents])
    pad = MARGIN * ax.figure.dpi / 72.0
    box = ax.bbox
    limits = (box.x0 + pad, box.x1 - pad, box.y0 + pad, box.y1 - pad)
    tips_display = to_display.transform(tips)
    placed = place(centres, halves, to_display.transform(points), limits)
    to_data = to_display.inverted()
    leaders = []
    for text, centre, half, tip, target in zip(
        texts, placed, halves, tips_display, tips, strict=True
    ):
        text.set_horizontalalignment("center")
        text.set_verticalalignment("center")
        text.set_position(to_data.transform(centre))
        if _leader_start(centre, half, tip) is not None:
            line = Leader(text, target, color="0.5", lw=0.6, gid="leader")
            leaders.append(ax.add_artist(line))  # not a line of the data: the limits stay
    return leaders
