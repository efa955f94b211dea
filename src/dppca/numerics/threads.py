"""The BLAS library's threads: how many it may use, and a one-thread limit that holds while any
computation needs it and is lifted when the last one ends.

``threadpoolctl.threadpool_limits`` saves the limits it finds and restores them on exit, so two
limits that overlap in time (threads, or the tasks of Dask's threaded scheduler) and end in the
wrong order leave the process with the limit the second one found: one thread, for good. Here
the limit is counted: the first computation to enter sets it, the last to leave restores what
the first found. The library scan behind ``threadpoolctl`` (a few milliseconds) is made once.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

_LOCK = threading.Lock()
#: The computations inside :func:`one_blas_thread` now, and the limit they share.
_HOLDERS = 0
_LIMIT: Any = None


@functools.cache
def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded (numpy's BLAS among them), scanned once."""
    return ThreadpoolController()


def blas_threads() -> int:
    """The threads the BLAS library may use now (the least over several; 1 when none is
    found), as its own limit says: ``OMP_NUM_THREADS``, ``threadpoolctl`` limits and
    :func:`one_blas_thread` are respected.

    Examples
    --------
    >>> with one_blas_thread():
    ...     blas_threads()
    1
    """
    counts = [info["num_threads"] for info in _controller().info() if info["user_api"] == "blas"]
    return max(1, min(counts, default=1))


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A one-thread BLAS while the block runs, shared by every block inside it at the time
    (whatever thread enters or leaves first); the limits found by the first are restored
    when the last leaves."""
    global _HOLDERS, _LIMIT
    with _LOCK:
        if _HOLDERS == 0:
            _LIMIT = _controller().limit(limits=1, user_api="blas")
        _HOLDERS += 1
    try:
        yield
    finally:
        with _LOCK:
            _HOLDERS -= 1
            if _HOLDERS == 0:
                _LIMIT.restore_original_limits()
                _LIMIT = None
