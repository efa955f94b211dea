"""Row-wise values held in one array or in row chunks, and the reductions of them that the
private releases use (no privacy).

A release written against :class:`RowValues` runs unchanged on a NumPy array
(:class:`ArrayValues`) and on Dask data (:class:`dppca.numerics.dask_rows.DaskValues`):
per-row transforms (:meth:`~RowValues.map`), values of random row pairs
(:meth:`~RowValues.pairs`) and random halves (:meth:`~RowValues.halves`) stay where the rows
are, and only the reductions travel:
grid cell counts (:func:`cell_counts`), counts below public points (:func:`counts_below`),
bin counts (:func:`summed`) and exactly rounded column means (:func:`column_means`). Each
reduction of chunked values equals the reduction of the whole array, bit for bit: counts add
exactly, and column sums are accumulated as exact integers and rounded once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from dppca.numerics.grids import CellCounts
from dppca.numerics.permutation import KeyedPermutation

#: ``2^-EXACT_UNIT_EXPONENT`` divides every float64 (the smallest subnormal is ``2^-1074``, and
#: :func:`numpy.frexp` writes it as ``2^52`` times ``2^-1126``).
EXACT_UNIT_EXPONENT = 1126
#: Exponent slots per column in :func:`exact_column_sums` (frexp exponents run from -1073 to
#: 1024, shifted by ``EXACT_UNIT_EXPONENT - 53``).
_SLOTS = 2200
#: Values summed per float64 bincount: the halves of a 53-bit mantissa have at most 27 bits,
#: so sums of ``2^20`` of them stay below ``2^53`` (and the block's arrays stay small).
_EXACT_BLOCK_VALUES = 2**20


@runtime_checkable
class RowValues(Protocol):
    """Values with one row per data row (or per pair of rows), in one place or in chunks."""

    @property
    def shape(self) -> tuple[int, ...]:
        """``(rows,)`` or ``(rows, columns)``."""
        ...

    def map(self, function: Callable[..., np.ndarray], *args: Any) -> RowValues:
        """``function(rows, *args)`` on the rows, for a ``function`` that maps each row on its
        own (so it may run chunk by chunk)."""
        ...

    def pairs(
        self, permutation: KeyedPermutation, function: Callable[..., np.ndarray], *args: Any
    ) -> RowValues:
        """``function(rows[first], rows[second], *args)`` for the disjoint pairs
        ``first, second = permutation.pairs()``: one value row per pair."""
        ...

    def halves(self, permutation: KeyedPermutation) -> tuple[RowValues, RowValues]:
        """The rows ``permutation.halves()``, each in the permutation's order."""
        ...

    def reduce(
        self,
        function: Callable[..., Any],
        *args: Any,
        combine: Callable[[list[Any]], Any],
        aligned: np.ndarray | None = None,
    ) -> Any:
        """``function(chunk, *args)`` for every chunk (``function(chunk, aligned_chunk, *args)``
        with an array ``aligned`` cut at the same rows), combined by ``combine``, which takes a
        list of results in row order and must be associative (chunked values combine on the
        workers, a few at a time, and only the combined result reaches the caller)."""
        ...

    def to_numpy(self) -> np.ndarray:
        """All the values in one array."""
        ...


@dataclass(frozen=True)
class ArrayValues:
    """:class:`RowValues` held in one NumPy array (a single chunk).

    Examples
    --------
    >>> values = ArrayValues(np.array([[1.0, 2.0], [3.0, 5.0]]))
    >>> column_means(values.map(np.multiply, 2.0)).tolist()
    [4.0, 7.0]
    """

    values: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(size) for size in self.values.shape)

    def map(self, function: Callable[..., np.ndarray], *args: Any) -> ArrayValues:
        return ArrayValues(function(self.values, *args))

    def pairs(
        self, permutation: KeyedPermutation, function: Callable[..., np.ndarray], *args: Any
    ) -> ArrayValues:
        first, second = permutation.pairs()
        return ArrayValues(function(self.values[first], self.values[second], *args))

    def halves(self, permutation: KeyedPermutation) -> tuple[ArrayValues, ArrayValues]:
        first, rest = permutation.halves()
        return ArrayValues(self.values[first]), ArrayValues(self.values[rest])

    def reduce(
        self,
        function: Callable[..., Any],
        *args: Any,
        combine: Callable[[list[Any]], Any],
        aligned: np.ndarray | None = None,
    ) -> Any:
        if aligned is None:
            return function(self.values, *args)
        return function(self.values, aligned, *args)

    def to_numpy(self) -> np.ndarray:
        return self.values


def as_values(values: np.ndarray | RowValues) -> RowValues:
    """``values`` as :class:`RowValues` (a NumPy array becomes :class:`ArrayValues`)."""
    return ArrayValues(values) if isinstance(values, np.ndarray) else values


def column_of(values: np.ndarray, column: int) -> np.ndarray:
    """One column of two-dimensional values (a per-row transform for :meth:`RowValues.map`)."""
    return values[:, column]


def _cell_counts_of(chunk: np.ndarray, cells_of: Callable[..., np.ndarray], *args: Any) -> Any:
    return CellCounts.of(cells_of(chunk, *args))


def cell_counts(
    values: np.ndarray | RowValues, cells_of: Callable[..., np.ndarray], *args: Any
) -> CellCounts:
    """The counts of the grid indices ``cells_of(values, *args)`` of 1-D values, merged over
    chunks.

    Examples
    --------
    >>> from dppca.numerics.grids import linear_cells
    >>> counted = cell_counts(np.array([0.2, 0.9, 1.1]), linear_cells, 1.0)
    >>> counted.cells.tolist(), counted.counts.tolist()
    ([0, 1], [1, 2])
    """
    return cast(
        "CellCounts",
        as_values(values).reduce(_cell_counts_of, cells_of, *args, combine=CellCounts.merge),
    )


def _counts_below(
    chunk: np.ndarray, points: np.ndarray, transform: Callable[..., Any], *args: Any
) -> Any:
    return np.searchsorted(np.sort(transform(chunk, *args)), points, side="left")


def counts_below(
    values: np.ndarray | RowValues,
    points: np.ndarray,
    transform: Callable[..., np.ndarray],
    *args: Any,
) -> np.ndarray:
    """``#{i : transform(values, *args)_i < t}`` for each public point ``t`` of ``points``
    (sorted), for 1-D values and an elementwise ``transform``.

    Examples
    --------
    >>> counts_below(np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.5, 9.0]), np.negative).tolist()
    [3, 3, 3]
    """
    return cast(
        "np.ndarray",
        as_values(values).reduce(_counts_below, points, transform, *args, combine=added),
    )


def summed(
    values: np.ndarray | RowValues,
    function: Callable[..., Any],
    *args: Any,
    aligned: np.ndarray | None = None,
) -> Any:
    """The sum over chunks of ``function(chunk, *args)`` (of ``function(chunk, aligned_chunk,
    *args)`` with ``aligned``): for counts, exactly the counts of the whole."""
    return as_values(values).reduce(function, *args, combine=added, aligned=aligned)


def added(parts: list[Any]) -> Any:
    """``parts[0] + parts[1] + ...``, in order (arrays, numbers, or lists of integers added
    entry by entry).

    Examples
    --------
    >>> added([np.array([1, 2]), np.array([3, 4])]).tolist(), added([[1, 2**80], [3, 4]])
    ([4, 6], [4, 1208925819614629174706180])
    """
    if isinstance(parts[0], list):
        return [sum(column) for column in zip(*parts, strict=True)]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def exact_column_sums(values: np.ndarray) -> list[int]:
    """Each column's exact sum, as an integer multiple of ``2^-1126`` (which divides every
    float64), for finite values of shape ``(rows, columns)``.

    Every value is ``M 2^e`` with an integer ``|M| < 2^53`` (:func:`numpy.frexp`); the halves
    ``M >> 26`` and ``M & (2^26 - 1)`` are added per exponent by float64 bincounts, which are
    exact for at most ``2^20`` values at a time.

    Examples
    --------
    >>> total = exact_column_sums(np.array([[1e300], [1.0], [-1e300]]))[0]
    >>> total == 2**EXACT_UNIT_EXPONENT
    True
    """
    rows, columns = values.shape
    if not np.isfinite(values).all():  # the releases pass clipped values: never reached
        raise ValueError("exact column sums need finite values.")
    totals = [0] * columns
    if rows == 0:
        return totals
    slots = _SLOTS * np.arange(columns)
    block = max(1, _EXACT_BLOCK_VALUES // max(columns, 1))
    for start in range(0, rows, block):
        mantissas, exponents = np.frexp(values[start : start + block])
        integers = np.ldexp(mantissas, 53).astype(np.int64)
        where = (exponents + (EXACT_UNIT_EXPONENT - 53) + slots).ravel()
        size = _SLOTS * columns
        high = np.bincount(where, weights=(integers >> 26).ravel(), minlength=size)
        low = np.bincount(where, weights=(integers & (2**26 - 1)).ravel(), minlength=size)
        for slot in np.flatnonzero((high != 0) | (low != 0)):
            column, shift = divmod(int(slot), _SLOTS)
            totals[column] += ((int(high[slot]) << 26) + int(low[slot])) << shift
    return totals


def _exact_sums(chunk: np.ndarray) -> list[int]:
    columns = int(np.prod(chunk.shape[1:], dtype=np.int64))
    return exact_column_sums(chunk.reshape(chunk.shape[0], columns))


def column_means(values: np.ndarray | RowValues) -> np.ndarray:
    """Column means with exactly rounded sums: each sum is the exact sum rounded once to the
    nearest float (as :func:`math.fsum` gives), so the mean is within ``2u`` of the exact mean,
    ``u = 2^-53``, however many rows and chunks there are. The values must be finite.

    Examples
    --------
    >>> column_means(np.array([[1e300, 1.0], [1.0, 1.0], [-1e300, 1.0]])).tolist()
    [0.3333333333333333, 1.0]
    """
    source = as_values(values)
    totals = source.reduce(_exact_sums, combine=added)
    sums = np.array([total / 2**EXACT_UNIT_EXPONENT for total in totals], dtype=np.float64)
    return sums / source.shape[0]
