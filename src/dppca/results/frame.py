"""The frame of a score plot: the square its histogram's cells tile, private or public (limits
known without the data, :meth:`Frame.public`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dppca._validation import check_real
from dppca.privacy.budget import PrivacyLedger

#: Public clamps of the frame (post-processing): every coordinate of the square stays within
#: ``1e151``, so distances and areas of points in it are finite floats.
RADIAL_LEVEL = 0.99

FRAME_LIMIT = 1e150


@dataclass(frozen=True)
class Frame:
    """A square private frame.

    Attributes
    ----------
    center : ndarray of shape (2,)
        Private coordinate medians.
    half_width : float
        ``(1 + inflate) * distance_quantile * sqrt(ln 100 / -ln(1 - distance_level))``,
        at most ``MAX_SCALES = 50`` private scales and ``1e150`` (the centre's coordinates too).
    distance_quantile : float
        The private ``distance_level`` quantile of the distances from the centre.
    inflate : float
    privacy : PrivacyLedger
        The four quantile releases.
    distance_level : float
        The level of ``distance_quantile`` (0.99 unless the budget was too small for it).
    scale : float
        The private scale: the median distance between random disjoint pairs of points (NaN
        for frames read from an older file).

    Examples
    --------
    >>> import numpy as np, dppca
    >>> frame = dppca.dp_frame(np.random.default_rng(0).normal(size=(2000, 2)), 1.0, random_state=1)
    >>> (xlow, xhigh), (ylow, yhigh) = frame.limits()
    >>> bool(xhigh - xlow == yhigh - ylow == 2 * frame.half_width)
    True
    """

    center: np.ndarray
    half_width: float
    distance_quantile: float
    inflate: float
    privacy: PrivacyLedger = field(repr=False)
    distance_level: float = RADIAL_LEVEL
    scale: float = math.nan

    @classmethod
    def public(cls, limits: Any, inflate: float = 0.0) -> Frame:
        """A public frame: the smallest square that contains ``limits = ((xmin, xmax), (ymin,
        ymax))`` (known without the data: units, design, an earlier release), at no cost.

        Examples
        --------
        >>> frame = Frame.public(((-2.0, 2.0), (-1.0, 3.0)))
        >>> frame.center.tolist(), frame.half_width, len(frame.privacy.entries)
        ([0.0, 1.0], 2.0, 0)
        """
        center, half_width = check_limits(limits)
        return cls(
            center=center,
            half_width=half_width,
            distance_quantile=math.nan,
            inflate=inflate,
            privacy=PrivacyLedger(),
            distance_level=math.nan,
        )

    @property
    def is_public(self) -> bool:
        """Whether the frame was given (no quantile was released for it)."""
        return not self.privacy.entries and math.isnan(self.distance_quantile)

    @property
    def xlim(self) -> tuple[float, float]:
        """The frame's horizontal limits."""
        return (float(self.center[0] - self.half_width), float(self.center[0] + self.half_width))

    @property
    def ylim(self) -> tuple[float, float]:
        """The frame's vertical limits."""
        return (float(self.center[1] - self.half_width), float(self.center[1] + self.half_width))

    def limits(self, center: bool = False) -> tuple[tuple[float, float], tuple[float, float]]:
        """``(xlim, ylim)``; with ``center=True`` shifted by the private centre (display only)."""
        if not center:
            return self.xlim, self.ylim
        return (-self.half_width, self.half_width), (-self.half_width, self.half_width)


def check_limits(limits: Any) -> tuple[np.ndarray, float]:
    """Public frame limits ``((xmin, xmax), (ymin, ymax))``, finite with ``min < max`` and at
    most 1e150 in size: the centre and half-width of the smallest square that contains them."""
    values = np.asarray(limits, dtype=object)
    if values.shape != (2, 2):
        raise ValueError(
            f"frame must be None or limits ((xmin, xmax), (ymin, ymax)); got {limits!r}."
        )
    bounds = np.array(
        [
            [check_real(value, "frame", low=-FRAME_LIMIT, high=FRAME_LIMIT) for value in row]
            for row in values
        ],
        dtype=np.float64,
    )
    if np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"frame's limits must be increasing pairs (min < max); got {limits!r}.")
    center = bounds.mean(axis=1)
    return center, float(np.max(bounds[:, 1] - center))
