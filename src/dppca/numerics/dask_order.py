"""Rows of a row-chunked Dask array moved into the order of a keyed permutation, by tasks that
compute the permutation themselves: the client sends the permutation's keys and the chunk
bounds, never an index per row.

Each input chunk ``i`` is one task that computes the positions of its rows in the order
(:meth:`~dppca.numerics.permutation.KeyedPermutation.positions_of`) and cuts the rows into one
piece per output chunk; each output chunk ``o`` is one task that writes the pieces meant for it
at their positions. The graph has ``K_in + K_in K_out + K_out`` tasks (the middle ones select a
piece), whatever the number of rows. An output chunk may also hold the rows of the next few
positions (an overlap), so that a task of the incomplete design finds all its pairs in one
chunk.

Dask is imported here only when a Dask array arrives (by :mod:`dppca.numerics.dask_rows`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca.numerics.permutation import KeyedPermutation


def even_chunks(n: int, like: tuple[int, ...]) -> tuple[int, ...]:
    """Row chunks for ``n`` permuted rows, so that positions ``2j`` and ``2j + 1`` share a
    chunk and every chunk holds a pair: chunks of one even size, the largest of ``like`` or
    the next even number (at least 2), and the rest at the end (a single row left over joins
    the last chunk).

    Examples
    --------
    >>> even_chunks(11, (4, 3, 4))
    (4, 4, 3)
    >>> even_chunks(9, (4, 3, 2))
    (4, 5)
    >>> even_chunks(3, (1, 1, 1))
    (3,)
    """
    size = max(2, max(like) + max(like) % 2)
    full, rest = divmod(n, size)
    if rest == 1 and full:
        return (size,) * (full - 1) + (size + 1,)
    return (size,) * full + ((rest,) if rest else ())


def _route(
    block: np.ndarray,
    start: int,
    permutation: KeyedPermutation,
    out_starts: np.ndarray,
    overlap: int,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The rows of one input chunk (rows ``start ..``) as one piece per output window: the
    slots of the rows in that window, and the rows. Window ``o`` holds positions
    ``out_starts[o] + j`` (mod n) for ``j < size_o + overlap``."""
    n, stop = permutation.n, start + block.shape[0]
    positions = permutation.positions_of(np.arange(start, stop))
    target = np.searchsorted(out_starts, positions, side="right") - 1
    by_target = np.argsort(target, kind="stable")
    cuts = np.searchsorted(target[by_target], np.arange(len(out_starts)))
    pieces = []
    for window in range(len(out_starts) - 1):
        selected = by_target[cuts[window] : cuts[window + 1]]
        slots, rows = positions[selected] - out_starts[window], block[selected]
        if overlap:  # the rows at the ``overlap`` positions after the window's own
            after = permutation.rows_at((out_starts[window + 1] + np.arange(overlap)) % n)
            mine = np.flatnonzero((after >= start) & (after < stop))
            size = out_starts[window + 1] - out_starts[window]
            slots = np.concatenate([slots, size + mine])
            rows = np.concatenate([rows, block[after[mine] - start]])
        pieces.append((slots, rows))
    return pieces


def _piece(pieces: list[tuple[np.ndarray, np.ndarray]], window: int) -> tuple[np.ndarray, ...]:
    return pieces[window]


def _gather(shape: tuple[int, ...], *pieces: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    out = np.empty(shape)
    for slots, rows in pieces:
        out[slots] = rows
    return out


def permuted_windows(
    array: Any, permutation: KeyedPermutation, chunks: tuple[int, ...], overlap: int = 0
) -> list[Any]:
    """Delayed windows of ``array[permutation.order()]``: window ``o`` holds the rows at
    positions ``s_o .. s_o + chunks[o] + overlap - 1`` (mod n), ``s_o = sum(chunks[:o])``, for
    a float64 Dask array chunked by rows only and row chunks ``chunks`` that add up to ``n``.

    Each window is one task of its own (no array optimisation renames or repeats the tasks
    that route the rows), so the windows can be computed together or in Dask arrays."""
    from dask.delayed import delayed

    n = int(array.shape[0])
    if permutation.n != n or sum(chunks) != n or overlap < 0:
        raise ValueError(
            f"the permutation ({permutation.n} rows) and the chunks ({sum(chunks)} rows) must "
            f"cover the array's {n} rows, with a nonnegative overlap (got {overlap})."
        )
    in_starts = np.concatenate([[0], np.cumsum(array.chunks[0])]).astype(np.int64)
    out_starts = np.concatenate([[0], np.cumsum(chunks)]).astype(np.int64)
    tail = tuple(int(size) for size in array.shape[1:])
    route, piece, gather = (delayed(f, pure=True) for f in (_route, _piece, _gather))
    routed = [
        route(block, int(in_starts[i]), permutation, out_starts, overlap)
        for i, block in enumerate(array.to_delayed().ravel().tolist())
    ]
    return [
        gather((int(size) + overlap, *tail), *(piece(pieces, window) for pieces in routed))
        for window, size in enumerate(chunks)
    ]


def permuted(array: Any, permutation: KeyedPermutation, chunks: tuple[int, ...]) -> Any:
    """``array[permutation.order()]`` as a lazy Dask array with row chunks ``chunks``
    (:func:`permuted_windows` without overlap).

    Examples
    --------
    >>> import dask.array as da
    >>> from dppca.numerics.permutation import random_permutation
    >>> values = np.arange(7.0)
    >>> permutation = random_permutation(7, np.random.default_rng(0))
    >>> moved = permuted(da.from_array(values, chunks=3), permutation, (4, 3))
    >>> bool((moved.compute() == values[permutation.order()]).all())
    True
    """
    import dask.array as da

    tail = tuple(int(size) for size in array.shape[1:])
    windows = permuted_windows(array, permutation, chunks)
    parts = [
        da.from_delayed(window, shape=(int(size), *tail), dtype=np.float64)  # type: ignore[no-untyped-call]
        for window, size in zip(windows, chunks, strict=True)
    ]
    return da.concatenate(parts, axis=0)  # type: ignore[no-untyped-call]
