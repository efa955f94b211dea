"""Each column's occupied bins on a shifted grid of a given width: the counts behind a private
coarse location (no privacy here).

Column ``j``'s bin of ``x_ij`` is ``k = floor(x_ij / w - o_j)``, the cell
``[(k + o_j) w, (k + 1 + o_j) w)``, for a width ``w > 0`` and an offset ``o_j`` in ``[0, 1)``.
Each row falls in exactly one bin of each column, whatever its values (a quotient beyond the
largest float is an infinite key), so replacing one row moves one count down and one up by 1
in each column at most.
"""

from __future__ import annotations

import numpy as np


def random_offsets(columns: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform offsets in ``[0, 1)``, one per column: the grid's data-independent shift, which
    makes where the bins' edges fall relative to the data random.

    Examples
    --------
    >>> offsets = random_offsets(3, np.random.default_rng(0))
    >>> offsets.shape, bool(((0 <= offsets) & (offsets < 1)).all())
    ((3,), True)
    """
    return np.asarray(rng.random(size=columns))


def column_bins(
    X: np.ndarray, width: float, offsets: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The keys of each column's occupied bins and their counts (see the module docstring).

    Examples
    --------
    >>> X = np.array([[0.2, 5.0], [0.7, 5.5], [1.4, -3.0]])
    >>> [(keys.tolist(), counts.tolist()) for keys, counts in column_bins(X, 1.0, np.zeros(2))]
    [([0.0, 1.0], [2, 1]), ([-3.0, 5.0], [1, 2])]
    """
    binned = []
    with np.errstate(over="ignore", under="ignore"):
        for column, offset in zip(X.T, offsets, strict=True):
            keys, counts = np.unique(np.floor(column / width - offset), return_counts=True)
            binned.append((keys, counts))
    return binned


def bin_centres(keys: np.ndarray, width: float, offsets: np.ndarray) -> np.ndarray:
    """The middles ``(k_j + o_j + 1/2) w`` of one bin per column.

    Examples
    --------
    >>> bin_centres(np.array([0.0, -3.0]), 2.0, np.array([0.0, 0.5])).tolist()
    [1.0, -4.0]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        centres: np.ndarray = (keys + offsets + 0.5) * width
    return centres
