"""The one-thread BLAS limit is shared by overlapping computations and lifted by the last one:
the process keeps its threads after threads and Dask's tasks overlap."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import dppca
from dppca.numerics.threads import blas_threads, one_blas_thread


@pytest.fixture
def two_blas_threads():
    """A BLAS at two threads for the test (skipped where the library has one only)."""
    with threadpool_limits(2, user_api="blas"):
        if blas_threads() != 2:
            pytest.skip("this BLAS runs one thread only")
        yield


def test_overlapping_limits_that_end_out_of_order_restore_the_threads(two_blas_threads):
    """Two computations' limits, the first left before the second (as threads and Dask's tasks
    do): the one still inside keeps one thread, and the process gets its two back after."""
    first, second = one_blas_thread(), one_blas_thread()
    first.__enter__()
    second.__enter__()
    assert blas_threads() == 1
    first.__exit__(None, None, None)
    assert blas_threads() == 1
    second.__exit__(None, None, None)
    assert blas_threads() == 2


def test_threadpoolctls_own_limits_would_leave_one_thread(two_blas_threads):
    """What the shared limit avoids: ``threadpool_limits`` restores what it found, so the same
    out-of-order exits leave the process at one thread (the failure this module fixes)."""
    first = threadpool_limits(1, user_api="blas")
    second = threadpool_limits(1, user_api="blas")
    first.restore_original_limits()
    second.restore_original_limits()
    assert blas_threads() == 1  # the fixture's exit restores two


def test_a_dask_release_leaves_the_process_its_blas_threads(two_blas_threads):
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).standard_normal((12_000, 10))
    rows = da.from_array(X, chunks=(1_500, 10))
    dppca.dp_loading(rows, 1.0, 1e-6, random_state=0, progress=False)
    assert blas_threads() == 2
    dppca.kendall_matrix(X[:3000])
    assert blas_threads() == 2
