"""Public grids for private quantiles: the logarithmic grid ``10^(j/1000)``, ``|j| <= 300000``,
for positive values and the linear grid ``j step``, ``|j| <= 2^24``, for signed ones (no
privacy: the exponential mechanism over them lives in :mod:`dppca.privacy.quantiles`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LOG_GRID_STEPS = 1000
LOG_GRID_LIMIT = 300 * LOG_GRID_STEPS
#: The linear grid ``j step``, ``|j| <= LINEAR_GRID_LIMIT``.
LINEAR_GRID_LIMIT = 2**24


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


def grid_runs(counted: CellCounts, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of grid points ``-limit .. limit`` of equal count ``c_j = #{cell_i <= j}``: their
    first points, lengths and counts (every length positive)."""
    starts = np.concatenate([[-limit], counted.cells])
    ends = np.concatenate([counted.cells, [limit + 1]])
    counts = np.concatenate([[0], np.cumsum(counted.counts)])
    keep = ends > starts
    return starts[keep], (ends - starts)[keep], counts[keep]


def log_cells(x: np.ndarray) -> np.ndarray:
    """The nearest point of the logarithmic grid to each value, clamped into the grid (values
    at or below 0 go to its first point, infinite and NaN ones to its last)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        positions = np.floor(LOG_GRID_STEPS * np.log10(x) + 0.5)
    positions[x <= 0] = -LOG_GRID_LIMIT  # NaN compares False: it stays NaN, then the last point
    positions = np.nan_to_num(positions, nan=LOG_GRID_LIMIT, posinf=LOG_GRID_LIMIT)
    return np.clip(positions, -LOG_GRID_LIMIT, LOG_GRID_LIMIT).astype(np.int64)


def linear_cells(x: np.ndarray, step: float) -> np.ndarray:
    """The nearest point ``j`` of the linear grid ``j step`` to each value, clamped into the grid
    (NaN goes to 0, infinite values to the ends).

    Examples
    --------
    >>> linear_cells(np.array([-1.2, 0.4, np.inf]), 0.5).tolist()
    [-2, 1, 16777216]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        positions = np.floor(x / step + 0.5)
    positions = np.nan_to_num(positions, nan=0.0, posinf=LINEAR_GRID_LIMIT)
    return np.clip(positions, -LINEAR_GRID_LIMIT, LINEAR_GRID_LIMIT).astype(np.int64)


#: The grids: ``"log"`` for positive values, ``"linear"`` for signed ones.
GRIDS = ("log", "linear")


def grid_size(grid: str) -> int:
    """The number of points of the ``"log"`` or ``"linear"`` grid."""
    return 2 * (LOG_GRID_LIMIT if grid == "log" else LINEAR_GRID_LIMIT) + 1
