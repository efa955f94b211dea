"""Public grids for private quantiles (no privacy: the exponential mechanism over them lives in
:mod:`dppca.privacy.quantiles`):

* ``"log"``: ``10^(j/1000)``, ``|j| <= 300000``, for positive values;
* ``"signed"``: the sign-and-magnitude grid ``0, +-10^(j/1000)``, for real values of any size
  and sign (index ``i``: ``0`` is 0, ``+-i`` is ``+-10^((i - 300001) / 1000)``);
* ``"linear"``: ``origin + j step``, ``|j| <= 2^14``, a window for refining a location
  found on the signed grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

LOG_GRID_STEPS = 1000
LOG_GRID_LIMIT = 300 * LOG_GRID_STEPS
#: The signed grid's indices run over ``|i| <= SIGNED_GRID_LIMIT``.
SIGNED_GRID_LIMIT = 2 * LOG_GRID_LIMIT + 1
#: The linear grid ``origin + j step``, ``|j| <= LINEAR_GRID_LIMIT``.
LINEAR_GRID_LIMIT = 2**14


@dataclass(frozen=True)
class CellCounts:
    """How many values fall on each occupied grid point: ``cells`` sorted and distinct,
    ``counts`` positive. Counts of parts of the data merge into the counts of the whole
    (:meth:`merge`), so chunked data give exactly what one array gives.

    Examples
    --------
    >>> parts = [CellCounts.of(np.array([3, -1, 3])), CellCounts.of(np.array([0, 3]))]
    >>> merged = CellCounts.merge(parts)
    >>> merged.cells.tolist(), merged.counts.tolist(), merged.total
    ([-1, 0, 3], [1, 1, 3], 5)
    """

    cells: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, cells: np.ndarray) -> CellCounts:
        """The counts of grid indices ``cells``."""
        values, multiplicity = np.unique(cells, return_counts=True)
        return cls(values, multiplicity.astype(np.int64))

    @classmethod
    def merge(cls, parts: list[CellCounts]) -> CellCounts:
        """The counts of the union of the parts' values."""
        if len(parts) == 1:
            return parts[0]
        values, inverse = np.unique(
            np.concatenate([part.cells for part in parts]), return_inverse=True
        )
        counts = np.zeros(values.size, dtype=np.int64)
        np.add.at(counts, inverse, np.concatenate([part.counts for part in parts]))
        return cls(values, counts)

    @property
    def total(self) -> int:
        """The number of values counted."""
        return int(self.counts.sum())


def grid_runs(
    counted: CellCounts, limit: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The runs of grid points ``-limit .. limit`` with the same counts below and at or below
    them, ``#{cell_i < j}`` and ``#{cell_i <= j}``: their first points, lengths and the two
    counts (every length positive). An occupied point is a run of its own; the points between
    two occupied ones share one run, whose two counts are equal."""
    cells, total = counted.cells, np.cumsum(counted.counts)
    before = np.concatenate([[0], total[:-1]])
    gap_starts = np.concatenate([[-limit], cells + 1])
    gap_ends = np.concatenate([cells, [limit + 1]])
    gap_counts = np.concatenate([[0], total])
    starts = np.empty(2 * cells.size + 1, dtype=np.int64)
    ends = np.empty_like(starts)
    below = np.empty_like(starts)
    at_or_below = np.empty_like(starts)
    starts[0::2], ends[0::2] = gap_starts, gap_ends
    below[0::2] = at_or_below[0::2] = gap_counts
    starts[1::2], ends[1::2] = cells, cells + 1
    below[1::2], at_or_below[1::2] = before, total
    keep = ends > starts
    return starts[keep], (ends - starts)[keep], below[keep], at_or_below[keep]


def log_cells(x: np.ndarray) -> np.ndarray:
    """The nearest point of the logarithmic grid to each value, clamped into the grid (values
    at or below 0 go to its first point, infinite and NaN ones to its last)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        positions = np.floor(LOG_GRID_STEPS * np.log10(x) + 0.5)
    positions[x <= 0] = -LOG_GRID_LIMIT  # NaN compares False: it stays NaN, then the last point
    positions = np.nan_to_num(positions, nan=LOG_GRID_LIMIT, posinf=LOG_GRID_LIMIT)
    return cast("np.ndarray", np.clip(positions, -LOG_GRID_LIMIT, LOG_GRID_LIMIT).astype(np.int64))


def signed_cells(x: np.ndarray) -> np.ndarray:
    """The index on the signed grid of each value: 0 for 0, ``+-(log_cells(|x|) + 300001)``
    otherwise, so that the order of the indices is the order of the values (magnitudes below
    ``1e-300`` go to the points nearest 0, beyond ``1e300`` and NaN to the ends).

    Examples
    --------
    >>> signed_cells(np.array([-1.0, 0.0, 1e-310, 1.0, 10.0])).tolist()
    [-300001, 0, 1, 300001, 301001]
    """
    magnitudes = log_cells(np.abs(x)) + (LOG_GRID_LIMIT + 1)
    signs = np.where(np.signbit(x) & (x != 0), -1, 1)
    return np.where(x == 0, 0, signs * magnitudes)


def signed_value(index: int) -> float:
    """The value of the signed grid's point ``index`` (the inverse of :func:`signed_cells`).

    Examples
    --------
    >>> signed_value(-300001), signed_value(0), signed_value(301001)
    (-1.0, 0.0, 10.0)
    """
    if index == 0:
        return 0.0
    magnitude = 10.0 ** ((abs(index) - LOG_GRID_LIMIT - 1) / LOG_GRID_STEPS)
    return cast("float", magnitude if index > 0 else -magnitude)


def linear_cells(x: np.ndarray, step: float, origin: float = 0.0) -> np.ndarray:
    """The nearest point ``j`` of the linear grid ``origin + j step`` to each value, clamped
    into the grid (NaN goes to 0, values beyond it, infinite ones too, to its ends).

    Examples
    --------
    >>> linear_cells(np.array([-1.2, 0.4, np.inf]), 0.5).tolist()
    [-2, 1, 16384]
    >>> linear_cells(np.array([1e6 - 1.2, 1e6 + 0.4]), 0.5, origin=1e6).tolist()
    [-2, 1]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        positions = np.floor((x - origin) / step + 0.5)
    positions = np.nan_to_num(positions, nan=0.0, posinf=LINEAR_GRID_LIMIT)
    return np.clip(positions, -LINEAR_GRID_LIMIT, LINEAR_GRID_LIMIT).astype(np.int64)


#: The grids' largest index, by name.
GRID_LIMITS = {"log": LOG_GRID_LIMIT, "signed": SIGNED_GRID_LIMIT, "linear": LINEAR_GRID_LIMIT}
#: The grids: ``"log"`` for positive values, ``"signed"`` for real values of any size,
#: ``"linear"`` for a window about a location.
GRIDS = tuple(GRID_LIMITS)


def grid_size(grid: str) -> int:
    """The number of points of a grid."""
    return 2 * GRID_LIMITS[grid] + 1
