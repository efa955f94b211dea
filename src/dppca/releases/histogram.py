"""Two-dimensional histograms on a private frame (after the R package ``dppca``).

The frame is cut into ``m_x x m_y`` equal cells, ordered with x fastest within each y row (cell
``j = by * m_x + bx``). Cells are right-closed, the first closed, and a score outside the frame is
clamped into the boundary cell of each coordinate, so the counts always sum to ``n``. Under
replacement of one row one count drops by 1 and another rises by 1 (L1 sensitivity 2, L2
``sqrt 2``).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pandas as pd

from dppca._validation import check_positive_int
from dppca.exceptions import EmptyHistogramError
from dppca.numerics.row_values import RowValues, summed
from dppca.privacy.histograms import HistogramMechanism
from dppca.privacy.mechanisms import Noise
from dppca.results.frame import Frame

#: The default bins rule: an occupied cell should hold about ``BINS_COUNT_SDS`` noise sd on
#: average when the points cover ``BINS_COVER`` of the frame.
BINS_COUNT_SDS = 10.0
BINS_COVER = 0.3
BINS_RANGE = (4, 40)
#: The most cells a grid may have.
MAX_CELLS = 10**6
CELL_COLUMNS = ["xmin", "xmax", "ymin", "ymax"]


def default_bins(n: int, sigma: float) -> tuple[int, int]:
    """The default grid from public values: ``B = sqrt(n / (BINS_COVER BINS_COUNT_SDS sigma))``
    ``= sqrt(n / (3 sigma))`` cells per axis, rounded and clamped to ``[4, 40]``, with
    ``sigma`` the additive histogram's count noise sd.

    When the points cover about 30 % of the frame's ``B^2`` cells, an occupied cell then holds
    about ten noise sd on average, so thresholding at 3 sd keeps most of the mass.

    Examples
    --------
    >>> default_bins(2504, 8.4)
    (10, 10)
    """
    side = round(math.sqrt(n / (BINS_COVER * BINS_COUNT_SDS * sigma)))
    side = min(max(side, BINS_RANGE[0]), BINS_RANGE[1])
    return side, side


def check_bins(bins: Any, name: str = "bins") -> tuple[int, int]:
    """``bins``: a positive integer (both axes) or a pair of them, at most ``MAX_CELLS`` cells
    (errors call it ``name``)."""
    pair = (bins, bins) if isinstance(bins, int | np.integer) else bins
    if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise TypeError(f"{name} must be a positive integer or a pair of them; got {bins!r}.")
    m_x, m_y = (check_positive_int(value, name) for value in pair)
    if m_x * m_y > MAX_CELLS:
        raise ValueError(f"{name} must give at most {MAX_CELLS} cells; got {m_x} x {m_y}.")
    return m_x, m_y


def grid_cells(frame: Frame, bins: tuple[int, int]) -> pd.DataFrame:
    """The cells' bounds: columns xmin, xmax, ymin, ymax, x fastest."""
    x_breaks = np.linspace(*frame.xlim, bins[0] + 1)
    y_breaks = np.linspace(*frame.ylim, bins[1] + 1)
    grid_x, grid_y = np.meshgrid(np.arange(bins[0]), np.arange(bins[1]))
    bx, by = grid_x.ravel(), grid_y.ravel()
    return pd.DataFrame(
        {
            "xmin": x_breaks[bx],
            "xmax": x_breaks[bx + 1],
            "ymin": y_breaks[by],
            "ymax": y_breaks[by + 1],
        }
    )


def cell_index(scores: np.ndarray, frame: Frame, bins: tuple[int, int]) -> np.ndarray:
    """The cell of each score, clamping coordinates outside the frame into the boundary cells."""

    def axis_bin(values: np.ndarray, limits: tuple[float, float], m: int) -> np.ndarray:
        breaks = np.linspace(*limits, m + 1)
        return np.clip(np.searchsorted(breaks, values, side="left") - 1, 0, m - 1)

    bx = axis_bin(scores[:, 0], frame.xlim, bins[0])
    by = axis_bin(scores[:, 1], frame.ylim, bins[1])
    return cast("np.ndarray", by * bins[0] + bx)


def _pooled_counts(scores: np.ndarray, frame: Frame, bins: tuple[int, int]) -> np.ndarray:
    return np.bincount(cell_index(scores, frame, bins), minlength=bins[0] * bins[1])[None, :]


def _grouped_counts(
    scores: np.ndarray, codes: np.ndarray, frame: Frame, bins: tuple[int, int], groups: int
) -> np.ndarray:
    size = bins[0] * bins[1]
    keys = codes * size + cell_index(scores, frame, bins)
    return np.bincount(keys, minlength=groups * size).reshape(groups, size)


def histogram_counts(
    scores: RowValues, frame: Frame, bins: tuple[int, int], codes: np.ndarray | None, groups: int
) -> np.ndarray:
    """The ``(groups, cells)`` counts of the scores in each cell of the frame's grid by group
    code (one row, ``groups = 1``, when ``codes`` is None), counted chunk by chunk and added."""
    if codes is None:
        return cast("np.ndarray", summed(scores, _pooled_counts, frame, bins))
    return cast("np.ndarray", summed(scores, _grouped_counts, frame, bins, groups, aligned=codes))


def noise_parameters(mechanisms: tuple[HistogramMechanism, ...]) -> dict[str, float]:
    """The (public) noise parameters of every method, in counts, in one dictionary."""
    return {key: value for mechanism in mechanisms for key, value in mechanism.parameters.items()}


def private_probabilities(
    counts: np.ndarray,
    mechanism: HistogramMechanism,
    noise: Noise,
    *,
    where: str = "",
    compared: bool = False,
) -> tuple[np.ndarray, float]:
    """Release ``counts`` by ``mechanism``; return the proportions and the noisy total count
    (both post-processing of the noisy counts).

    ``"thresholded"``: the total is the kept mass (a little low: the cells below the threshold
    are dropped; the sum of all noisy counts would be unbiased but has sd ``sigma`` times the
    square root of the number of cells), and an all-zero result is returned as zeros. ``"add"``:
    an all-zero result raises :class:`EmptyHistogramError` (as the R package does; the error is
    a function of the release) unless the histogram is only ``compared`` with another method's
    (it is then returned as zeros, for its status to mark). ``"sparse"``: an all-zero result is
    returned as zeros (Section 4.2).
    """
    noisy = mechanism.randomise(counts, noise)
    total = float(noisy.sum())
    if total <= 0 and mechanism.method == "add" and not compared:
        raise EmptyHistogramError(
            f"The additive DP histogram{where} is all zero after noise and clipping; use a "
            "larger epsilon or fewer bins. (Its budget has been spent.)"
        )
    return (noisy / total if total > 0 else noisy), total


def with_probabilities(cells: pd.DataFrame, prob: np.ndarray) -> pd.DataFrame:
    """A histogram DataFrame: the cells' bounds and ``prob``."""
    table = cells.copy()
    table["prob"] = prob
    return table
