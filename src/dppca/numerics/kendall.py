"""The generalized multivariate Kendall's tau matrix, computed fast and with a proven error bound.

``K = (1/N) sum_{pairs (i, j)} g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)``, over all
``N = n(n-1)/2`` pairs (a U-statistic) or over a regular design of ``N = n degree / 2`` pairs (an
incomplete U-statistic) (Kim and Jung 2025, Section 3). Everything here works in unit space,
``g / h_max``, so that every pair contributes a positive semi-definite matrix of trace at most 1.

The incomplete design is circulant on a random permutation of the rows: the row at position
``v`` of the permutation meets the rows at positions ``v +- c`` (mod n), ``c = 1 .. k / 2``. Every
row is in exactly ``k`` pairs, all distinct (``c <= k / 2 <= (n - 1) / 2``, so ``+c`` and ``-c``
of different offsets never coincide), and each row's partners are random rows of the whole
file, so the result's accuracy does not depend on how the file is sorted (a circulant design on
the file's own order would pair rows of one group with each other in a sorted file). Each task
gathers ``CHUNK_PAIRS + k / 2`` consecutive positions of the permutation once and forms their
pairs.

The work is cut into tasks (a tile, a run of design pairs) whose partial sums are added in a
fixed order with Neumaier's compensated summation; tasks run side by side on as many threads
as BLAS may use, each with a one-thread BLAS, and the result does not depend on the number of
threads.

A task's pairs are summed, in tiles of ``TILE_ROWS`` rows against ``TILE_ROWS`` rows or
explicitly, by :mod:`dppca.numerics.pair_sums`, which also proves the error bound
(:func:`unit_error_bound`). Nothing here knows of Dask: :mod:`dppca.numerics.dask_rows` sums
the same pairs chunk by chunk, and :mod:`dppca.numerics.rows` sends data to one or the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np

from dppca._progress import ProgressBar
from dppca.numerics.pair_sums import (
    CHUNK_PAIRS,
    TILE_ROWS,
    CompensatedSum,
    block_shift,
    explicit_tile_sum,
    kendall_error_bound,
    laplacian_tile_sum,
    pair_sum,
)
from dppca.numerics.permutation import random_permutation
from dppca.numerics.signs import SignTransform
from dppca.numerics.threads import blas_threads, one_blas_thread

#: ``pairs="auto"``: all pairs up to this many rows (about a second at d = 50 on two cores),
#: the circulant design of degree ``AUTO_DEGREE`` above (benchmarks/results/scale_pairs.md).
AUTO_ALL_PAIRS_ROWS = 20_000
AUTO_DEGREE = 64


def _blocks(n: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def pair_block_tasks(
    first: np.ndarray,
    second: np.ndarray | None,
    sign: SignTransform,
    tile_rows: int,
    chunk_pairs: int,
) -> list[Callable[[], np.ndarray]]:
    """The pairs of row block ``first`` with row block ``second`` (``None``: the pairs within
    ``first``) as tiles of ``tile_rows`` rows against ``tile_rows`` rows, in a fixed order."""
    tasks: list[Callable[[], np.ndarray]] = []
    first_tiles = _blocks(first.shape[0], tile_rows)
    for index, (a0, a1) in enumerate(first_tiles):
        rows = first[a0:a1]
        shift = block_shift(rows) if sign.laplacian else None
        partners: list[np.ndarray | None]
        if second is None:
            partners = [None if b0 == a0 else first[b0:b1] for b0, b1 in first_tiles[index:]]
        else:
            partners = [second[b0:b1] for b0, b1 in _blocks(second.shape[0], tile_rows)]
        for partner in partners:
            if shift is not None:
                tasks.append(partial(laplacian_tile_sum, rows, partner, shift, sign, chunk_pairs))
            else:
                tasks.append(partial(explicit_tile_sum, rows, partner, sign, chunk_pairs))
    return tasks


def block_pair_sum(
    first: np.ndarray,
    second: np.ndarray | None,
    sign: SignTransform,
    tile_rows: int = TILE_ROWS,
    chunk_pairs: int = CHUNK_PAIRS,
) -> np.ndarray:
    """``sum h_unit^2 u u^T`` over the pairs of two row blocks (or within one), on one thread:
    the task of a pair of chunks on a cluster."""
    return sum_tasks(pair_block_tasks(first, second, sign, tile_rows, chunk_pairs), first.shape[1])


def gathered_design_sum(
    rows: np.ndarray, count: int, half: int, sign: SignTransform, chunk_pairs: int = CHUNK_PAIRS
) -> np.ndarray:
    """The design's pairs that start in one run of the permuted order: ``rows`` holds the rows
    at positions ``v .. v + count + half - 1`` of the order (mod n), and position ``v + t``
    meets ``v + t + c`` for ``c = 1 .. half``, summed ``chunk_pairs`` starts at a time."""
    total = CompensatedSum((rows.shape[1], rows.shape[1]))
    buffer = np.empty((min(count, chunk_pairs), rows.shape[1]))
    for start, stop in _blocks(count, chunk_pairs):
        for offset in range(1, half + 1):
            first, second = rows[start:stop], rows[start + offset : stop + offset]
            total.add(pair_sum(first, second, sign, buffer))
    return total.value()


def _design_block_sum(
    X: np.ndarray, rows: np.ndarray, count: int, half: int, sign: SignTransform
) -> np.ndarray:
    return gathered_design_sum(X[rows], count, half, sign)


def design_tasks(
    X: np.ndarray, sign: SignTransform, order: np.ndarray, degree: int, block_rows: int
) -> list[Callable[[], np.ndarray]]:
    """The circulant design on ``order`` as tasks: each takes ``block_rows`` consecutive
    positions of the order and their pairs at offsets ``1 .. degree / 2`` (one gather of
    ``block_rows + degree / 2`` rows per task)."""
    n, half = len(order), degree // 2
    tasks: list[Callable[[], np.ndarray]] = []
    for start, stop in _blocks(n, block_rows):
        rows = order[np.arange(start, stop + half) % n]
        tasks.append(partial(_design_block_sum, X, rows, stop - start, half, sign))
    return tasks


def worker_threads(sign: SignTransform) -> int:
    """Threads for the kernel's tasks: as many as the BLAS library may use (its own limit, so
    ``OMP_NUM_THREADS`` and ``threadpoolctl`` limits are respected), one for a callable ``h``
    (user code need not be thread-safe)."""
    return blas_threads() if sign.thread_safe else 1


def sum_tasks(
    tasks: Sequence[Callable[[], np.ndarray]],
    p: int,
    *,
    threads: int = 1,
    progress: bool = False,
    label: str = "Kendall matrix",
) -> np.ndarray:
    """The compensated sum of the tasks' partial sums, in the tasks' order.

    Every task runs with a one-thread BLAS (for the whole process while the sum runs), on
    ``threads`` threads side by side; the partial sums are added in the same fixed order, so
    the result does not depend on the number of threads, bit for bit.
    """
    total = CompensatedSum((p, p))
    bar = ProgressBar(len(tasks), label, enabled=progress)
    try:
        with one_blas_thread():
            if threads > 1 and len(tasks) > 1:
                with ThreadPoolExecutor(threads) as pool:
                    for part in pool.map(lambda task: task(), tasks):
                        total.add(part)
                        bar.advance()
            else:
                for task in tasks:
                    total.add(task())
                    bar.advance()
    finally:
        bar.close()
    return total.value()


def auto_degree(n: int) -> int | None:
    """``pairs="auto"``: all pairs up to ``AUTO_ALL_PAIRS_ROWS`` rows, the circulant design of
    degree ``AUTO_DEGREE`` above (a rule on the public n alone).

    Examples
    --------
    >>> auto_degree(5_000), auto_degree(1_000_000)
    (None, 64)
    """
    return None if n <= AUTO_ALL_PAIRS_ROWS else AUTO_DEGREE


def check_pairs(pairs: Any, n: int) -> int | None:
    """Validate ``pairs``: ``"all"`` (returns None), ``"auto"`` (:func:`auto_degree`) or an
    even integer in ``[2, n - 1]``, the degree of the design (each row in that many pairs)."""
    if isinstance(pairs, str) and pairs in ("all", "auto"):
        return None if pairs == "all" else auto_degree(n)
    if isinstance(pairs, bool | np.bool_) or not isinstance(pairs, int | np.integer):
        raise TypeError(f'pairs must be "auto", "all" or an even integer; got {pairs!r}.')
    if pairs < 2 or pairs % 2 or pairs > n - 1:
        raise ValueError(
            f'pairs must be "auto", "all" or an even integer with 2 <= pairs <= n - 1 = {n - 1}; '
            f"got {pairs!r}."
        )
    return int(pairs)


def pair_count(n: int, degree: int | None) -> int:
    """``N``: ``n(n-1)/2`` for all pairs, ``n degree / 2`` for the ``degree``-regular design."""
    return n * (n - 1) // 2 if degree is None else n * degree // 2


def unit_error_bound(p: int, sign: SignTransform, degree: int | None) -> float:
    """:func:`kendall_error_bound` for the paths :func:`unit_kendall` uses with these settings."""
    return kendall_error_bound(p, laplacian=sign.laplacian and degree is None)


def unit_kendall(
    X: np.ndarray,
    sign: SignTransform,
    degree: int | None = None,
    rng: np.random.Generator | None = None,
    *,
    tile_rows: int = TILE_ROWS,
    chunk_pairs: int = CHUNK_PAIRS,
    threads: int | None = None,
    progress: bool = False,
) -> np.ndarray:
    """The Kendall matrix of ``g / h_max`` for validated float64 data (unit space).

    Within :func:`unit_error_bound` of the exact matrix in Frobenius norm, for any finite input.
    Multiply by ``sign.bound**2`` for the caller's units. ``degree`` selects the circulant
    design on a keyed random permutation of the rows drawn from ``rng``
    (:func:`~dppca.numerics.permutation.random_permutation`).
    """
    n, p = X.shape
    if degree is None:
        tasks = pair_block_tasks(X, None, sign, tile_rows, chunk_pairs)
    else:
        if rng is None:
            raise ValueError("An incomplete design (an integer degree) needs a random generator.")
        order = random_permutation(n, rng).order()
        tasks = design_tasks(X, sign, order, degree, chunk_pairs)
    threads = worker_threads(sign) if threads is None or not sign.thread_safe else threads
    matrix = sum_tasks(tasks, p, threads=threads, progress=progress) / pair_count(n, degree)
    return (matrix + matrix.T) / 2.0
