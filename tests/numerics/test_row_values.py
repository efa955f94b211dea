"""Reductions of row values: exact column sums against math.fsum, counts against direct loops,
and chunked reductions equal to the whole array's bit for bit."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dppca.numerics.grids import CellCounts, linear_cells, log_cells
from dppca.numerics.row_values import (
    ArrayValues,
    cell_counts,
    column_means,
    counts_below,
    exact_column_sums,
    summed,
)


@dataclass(frozen=True)
class SplitValues(ArrayValues):
    """An array reduced in given row chunks: an independent stand-in for chunked data."""

    cuts: tuple[int, ...] = ()

    def reduce(self, function, *args, combine, aligned=None):
        edges = [0, *self.cuts, self.values.shape[0]]
        parts = []
        for start, stop in itertools.pairwise(edges):
            extra = () if aligned is None else (aligned[start:stop],)
            parts.append(function(self.values[start:stop], *extra, *args))
        return combine(parts)


#: Every finite float64, subnormals and the extremes included.
FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=300)
@given(arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 3)), elements=FINITE))
def test_exact_means_are_the_correctly_rounded_fsum_means(values):
    try:
        expected = np.array([math.fsum(column) for column in values.T]) / values.shape[0]
    except OverflowError:  # the exact sum is beyond the largest float: no rounded value exists
        return
    assert np.array_equal(column_means(values), expected)


def test_exact_sums_survive_cancellation_and_subnormals():
    tiny = np.ldexp(1.0, -1074)
    values = np.array([[1e308, tiny], [-1e308, tiny], [1.0, -tiny], [2.0**-60, 0.0]])
    sums = exact_column_sums(values)
    assert sums[0] == (2**60 + 1) * 2 ** (1126 - 60)  # 1 + 2^-60 exactly
    assert sums[1] == 2 ** (1126 - 1074)  # one smallest subnormal
    assert column_means(values)[0] == (1.0 + 2.0**-60) / 4  # rounded once, to 1/4


def test_chunked_reductions_equal_the_whole_arrays_bit_for_bit():
    rng = np.random.default_rng(3)
    values = rng.standard_t(2, size=(1001, 3)) * 10.0 ** rng.integers(-5, 5, size=(1001, 1))
    whole, split = ArrayValues(values), SplitValues(values, (0, 1, 2, 2, 500, 999))  # 2 empty
    assert np.array_equal(column_means(split), column_means(whole))
    assert np.array_equal(column_means(split), [math.fsum(c) / 1001 for c in values.T])
    for cells_of, args in ((log_cells, ()), (linear_cells, (0.01,))):
        column = np.abs(values[:, 0])
        got = cell_counts(SplitValues(column, (1, 2, 500, 999)), cells_of, *args)
        expected = CellCounts.of(cells_of(column, *args))
        assert np.array_equal(got.cells, expected.cells)
        assert np.array_equal(got.counts, expected.counts) and got.total == 1001
    points = np.sort(rng.normal(size=50))
    got = counts_below(SplitValues(values[:, 1], (7,)), points, np.negative)
    assert got.tolist() == [int(np.sum(-values[:, 1] < t)) for t in points]
    codes = rng.integers(0, 4, 1001)
    counted = summed(split, lambda chunk, part: np.bincount(part, minlength=4), aligned=codes)
    assert counted.tolist() == np.bincount(codes, minlength=4).tolist()


def test_cell_counts_merge_like_the_union():
    rng = np.random.default_rng(0)
    parts = [rng.integers(-5, 5, size) for size in (0, 1, 30, 7)]
    merged = CellCounts.merge([CellCounts.of(part) for part in parts])
    expected = CellCounts.of(np.concatenate(parts))
    assert merged.cells.tolist() == expected.cells.tolist()
    assert merged.counts.tolist() == expected.counts.tolist()
