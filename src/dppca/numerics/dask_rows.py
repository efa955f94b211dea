"""Data held by Dask, chunked by rows: the same statistics as the NumPy path, as tasks over
chunks whose small results are added on the client.

Dask is imported here only, and only when a Dask array reaches a function of the package; the
rest of the package never imports it. No row leaves its worker except as part of a task's
input, and no worker needs all rows:

* the U-statistic over all pairs is one task per pair of row chunks ``(a, b)``, ``a <= b``,
  each returning a ``p x p`` partial sum (:func:`dppca.numerics.kendall.block_pair_sum`);
* the incomplete design uses the same keyed permutation as the NumPy path; the workers move
  the rows into its order, each computing the positions of its own rows from the keys
  (:func:`dppca.numerics.dask_order.permuted`), and there is one task per chunk of the
  permuted rows with the first ``k / 2`` rows of the next positions
  (:func:`dppca.numerics.kendall.gathered_design_sum`);
* the values of disjoint random pairs (rows at positions ``2j`` and ``2j + 1`` of a keyed
  permutation) are computed chunk by chunk after the same move and stay on the workers, which
  count them on a grid;
* scores on ``k`` directions are computed chunk by chunk and stay on the workers
  (:class:`DaskValues`): the score and scree releases pair them, clip them and count them
  there, and only grid cell counts, histogram counts and exact column sums reach the client
  (:mod:`dppca.numerics.row_values`). Scores are gathered only for a non-private reference.

The partial sums of each chunk's tasks are added on a worker, and the chunks' sums on the client,
in a fixed order with compensated summation, so the result equals the NumPy path's to rounding
(the same pairs, summed in other groups). The client holds no array with one entry per row:
what it holds grows with the number of chunks, not with the rows in them (group labels, when
given, are the caller's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from dppca.numerics.dask_order import even_chunks, permuted, permuted_windows
from dppca.numerics.kendall import block_pair_sum, gathered_design_sum, pair_count
from dppca.numerics.linalg import project
from dppca.numerics.pair_sums import CHUNK_PAIRS, TILE_ROWS, CompensatedSum
from dppca.numerics.permutation import KeyedPermutation, random_permutation
from dppca.numerics.signs import SignTransform

#: Chunk results combined by one task of a reduction's tree.
COMBINE_FAN_IN = 8
#: Positions of the permuted order per design task on a cluster (about 0.3 s at d = 50 and
#: degree 64 on one core).
DESIGN_TASK_ROWS = 2**15


@dataclass(frozen=True)
class DaskRows:
    """A validated float64 Dask array of shape (n, p), chunked by rows only, with known chunk
    sizes, and its variable names."""

    array: Any
    names: list[str]

    @property
    def shape(self) -> tuple[int, int]:
        n, p = self.array.shape
        return int(n), int(p)


def chunk_starts(array: Any) -> np.ndarray:
    """The first row of each row chunk of a Dask array, and the number of rows at the end."""
    return np.concatenate([[0], np.cumsum(array.chunks[0])]).astype(np.int64)


def check_dask_data(X: Any, name: str = "X", *, min_rows: int = 2) -> DaskRows:
    """Validate a Dask array or data frame as :func:`dppca._validation.check_data` does a NumPy
    one: 2-D real data, at least ``min_rows`` rows, every value finite, before anything private
    is computed. Columns are gathered into one chunk per row chunk.

    The data are read once and persisted (held by the workers, or in memory without a
    cluster): every later pass reads the blocks that were checked, in the same row order,
    whatever the source (a shuffle or a query may return rows in another order each time).
    """
    import dask.array as da

    names: list[str] | None = None
    if not hasattr(X, "chunks"):  # a data frame: its partitions become row chunks
        bad = [str(c) for c, dtype in X.dtypes.items() if dtype.kind not in "biuf"]
        if bad:
            raise TypeError(f"All columns of {name} must be real numeric; not numeric: {bad[:5]}.")
        names = [str(column) for column in X.columns]
        X = X.to_dask_array()  # chunk sizes computed below (after any optimisation)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows = observations, columns = variables); got a Dask array "
            f"of shape {X.shape}."
        )
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got a Dask array of dtype {X.dtype}.")
    X = X.astype(np.float64).persist()
    if any(np.isnan(size) for size in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if 0 in X.chunks[0]:  # empty partitions (of a filtered frame, say): Dask cannot index them
        X = X.rechunk({0: tuple(size for size in X.chunks[0] if size > 0) or (0,)}).persist()
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1}).persist()
    n, p = X.shape
    if n < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows; got {n}.")
    if p < 1:
        raise ValueError(f"{name} must have at least 1 column; got {p}.")
    if not bool(da.isfinite(X).all().compute()):
        raise ValueError(f"{name} must contain only finite values; it has NaN or infinite entries.")
    return DaskRows(X, names or [f"X{j + 1}" for j in range(p)])


def _compute(*collections: Any) -> tuple[Any, ...]:
    from dask.base import compute

    return cast("tuple[Any, ...]", compute(*collections))  # type: ignore[no-untyped-call]


def dask_unit_kendall(
    rows: DaskRows,
    sign: SignTransform,
    degree: int | None = None,
    rng: np.random.Generator | None = None,
    *,
    tile_rows: int = TILE_ROWS,
    chunk_pairs: int = CHUNK_PAIRS,
) -> np.ndarray:
    """:func:`dppca.numerics.kendall.unit_kendall` on row-chunked Dask data, on the active
    scheduler (a ``dask.distributed.Client`` when one is set up)."""
    from dask.delayed import delayed

    n = rows.shape[0]
    chunk_total = delayed(compensated_total, pure=True)
    if degree is None:
        task = delayed(block_pair_sum, pure=True)
        blocks = rows.array.to_delayed().ravel().tolist()
        parts = [
            chunk_total(
                *(
                    task(blocks[a], None if a == b else blocks[b], sign, tile_rows, chunk_pairs)
                    for b in range(a, len(blocks))
                )
            )
            for a in range(len(blocks))
        ]
    else:
        if rng is None:
            raise ValueError("An incomplete design (an integer degree) needs a random generator.")
        permutation = random_permutation(n, rng)  # the NumPy path's draw: the same pairs
        half = degree // 2
        chunks = rows.array.chunks[0]
        windows = permuted_windows(rows.array, permutation, chunks, overlap=half)
        run_rows, design = delayed(_run_rows, pure=True), delayed(gathered_design_sum, pure=True)
        parts = [
            chunk_total(
                *(
                    design(
                        run_rows(window, start, stop + half), stop - start, half, sign, chunk_pairs
                    )
                    for start, stop in design_runs(size)
                )
            )
            for window, size in zip(windows, chunks, strict=True)
        ]
    total = compensated_total(*_compute(*parts))
    matrix = total / pair_count(n, degree)
    return (matrix + matrix.T) / 2.0


def compensated_total(*parts: np.ndarray) -> np.ndarray:
    """The compensated sum of equally shaped partial sums, in their order: on a worker, the
    partial sums of one chunk's tasks (so one ``p x p`` matrix per chunk reaches the client,
    however many tasks there are); on the client, those of the chunks."""
    total = CompensatedSum(parts[0].shape)
    for part in parts:
        total.add(part)
    return total.value()


def design_runs(size: int) -> list[tuple[int, int]]:
    """A chunk of the permuted order cut into runs of at most ``DESIGN_TASK_ROWS`` positions:
    one design task each, many more than workers, so that the cluster can balance them (a
    task moved to another worker takes its run's rows along, not the chunk).

    Examples
    --------
    >>> design_runs(70_000)
    [(0, 32768), (32768, 65536), (65536, 70000)]
    """
    return [
        (start, min(start + DESIGN_TASK_ROWS, size)) for start in range(0, size, DESIGN_TASK_ROWS)
    ]


def _run_rows(window: np.ndarray, start: int, stop: int) -> np.ndarray:
    return window[start:stop]


def dask_projected(rows: DaskRows, directions: np.ndarray) -> DaskValues:
    """:func:`dppca.numerics.rows.projected` on Dask data: the scores of each chunk, computed
    and held on its worker."""
    columns = np.asarray(directions, dtype=np.float64)
    scores = rows.array.map_blocks(
        project,
        columns,
        chunks=(rows.array.chunks[0], (columns.shape[1],)),
        dtype=np.float64,
    )
    return DaskValues(scores.persist())


def _combined(combine: Callable[[list[Any]], Any], *parts: Any) -> Any:
    return combine(list(parts))


def _apply(
    block: np.ndarray, function: Callable[..., np.ndarray], args: tuple[Any, ...]
) -> np.ndarray:
    return function(block, *args)


def _apply_adjacent(
    block: np.ndarray, function: Callable[..., np.ndarray], args: tuple[Any, ...]
) -> np.ndarray:
    half = block.shape[0] // 2
    return function(block[0 : 2 * half : 2], block[1 : 2 * half : 2], *args)


@dataclass(frozen=True)
class DaskValues:
    """:class:`~dppca.numerics.row_values.RowValues` held by Dask in row chunks: transforms
    run on the workers, pairs and halves are moved into a keyed permutation's order by the
    workers (:func:`dppca.numerics.dask_order.permuted`) and kept there (persisted), and
    :meth:`reduce` combines the chunks' results in a tree on the workers, so one result
    reaches the client."""

    array: Any

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(size) for size in self.array.shape)

    def _mapped(
        self,
        apply: Callable[..., Any],
        function: Callable[..., Any],
        args: tuple[Any, ...],
        array: Any,
        rows: tuple[int, ...],
    ) -> Any:
        # The output's columns from a zero-row call on the client (no data involved).
        tail = apply(np.empty((0, *array.shape[1:])), function, args).shape[1:]
        kept = array.ndim - 1
        dropped = {"drop_axis": 1} if kept and not tail else {}
        added = {"new_axis": 1} if tail and not kept else {}
        return array.map_blocks(
            apply,
            function=function,
            args=args,
            chunks=(rows, *((size,) for size in tail)),
            dtype=np.float64,
            **dropped,
            **added,
        )

    def map(self, function: Callable[..., np.ndarray], *args: Any) -> DaskValues:
        return DaskValues(self._mapped(_apply, function, args, self.array, self.array.chunks[0]))

    def paired(
        self, permutation: KeyedPermutation, function: Callable[..., np.ndarray], *args: Any
    ) -> Any:
        """The lazy Dask array of :meth:`pairs`: the rows moved into the permutation's order
        in chunks of an even size, and ``function`` of the rows at positions ``2j`` and
        ``2j + 1`` of each chunk."""
        chunks = even_chunks(self.shape[0], self.array.chunks[0])
        moved = permuted(self.array, permutation, chunks)
        rows = tuple(size // 2 for size in chunks)
        return self._mapped(_apply_adjacent, function, args, moved, rows)

    def pairs(
        self, permutation: KeyedPermutation, function: Callable[..., np.ndarray], *args: Any
    ) -> DaskValues:
        return DaskValues(self.paired(permutation, function, *args).persist())

    def halves(self, permutation: KeyedPermutation) -> tuple[DaskValues, DaskValues]:
        from dask.base import persist

        moved = permuted(self.array, permutation, self.array.chunks[0])
        cut = self.shape[0] // 2
        first, rest = persist(moved[:cut], moved[cut:])  # type: ignore[no-untyped-call]
        return DaskValues(first), DaskValues(rest)

    def reduce(
        self,
        function: Callable[..., Any],
        *args: Any,
        combine: Callable[[list[Any]], Any],
        aligned: np.ndarray | None = None,
    ) -> Any:
        from dask.delayed import delayed

        task = delayed(function, pure=True)
        blocks = self.array.to_delayed().ravel().tolist()
        if aligned is None:
            parts = [task(block, *args) for block in blocks]
        else:
            starts = chunk_starts(self.array)
            if len(aligned) != starts[-1] or (self.array.ndim > 1 and self.array.numblocks[1] > 1):
                raise ValueError(
                    f"aligned must hold one value per row of row-chunked values; got "
                    f"{len(aligned)} values for {starts[-1]} rows in {self.array.numblocks} "
                    "blocks."
                )
            parts = [
                task(block, aligned[starts[i] : starts[i + 1]], *args)
                for i, block in enumerate(blocks)
            ]
        merge = delayed(_combined, pure=True)
        while len(parts) > 1:  # a tree on the workers, COMBINE_FAN_IN results at a time
            parts = [
                merge(combine, *parts[i : i + COMBINE_FAN_IN])
                for i in range(0, len(parts), COMBINE_FAN_IN)
            ]
        (result,) = _compute(parts[0])
        return result

    def to_numpy(self) -> np.ndarray:
        (values,) = _compute(self.array)
        return np.asarray(values)


def map_rows(rows: DaskRows, function: Callable[..., np.ndarray], *args: Any) -> DaskRows:
    """``function(chunk, *args)`` on every row chunk, lazily, for a row-wise ``function`` that
    keeps the chunk's shape (the variables keep their names)."""
    return DaskRows(rows.array.map_blocks(function, *args, dtype=np.float64), rows.names)


def dask_sample_covariance(rows: DaskRows) -> np.ndarray:
    """The sample covariance (**not private**; for references only) of Dask data, scaled by a
    power of two from the largest absolute value so that nothing overflows, as the NumPy
    reference is."""
    import dask.array as da

    X = rows.array
    (largest,) = _compute(da.max(da.abs(X)))
    exponent = int(np.frexp(float(largest))[1]) if largest > 0 else 0
    with np.errstate(under="ignore"):
        scaled = X.map_blocks(np.ldexp, -exponent, dtype=np.float64)
        (mean,) = _compute(scaled.mean(axis=0))
        centred = scaled - mean
        (gram,) = _compute(centred.T @ centred)
    covariance = gram / (rows.shape[0] - 1)
    with np.errstate(over="ignore", under="ignore"):
        covariance = np.ldexp(covariance, 2 * exponent)
    largest_float = np.finfo(np.float64).max
    return cast(
        "np.ndarray", np.clip((covariance + covariance.T) / 2.0, -largest_float, largest_float)
    )
