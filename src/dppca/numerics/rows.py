"""Validated rows, in one NumPy array or row-chunked in Dask, and the statistics computed on
either.

Each function here sends its rows to the in-memory code (:mod:`dppca.numerics.kendall`,
:mod:`dppca.numerics.linalg`, :class:`~dppca.numerics.row_values.ArrayValues`) or to the Dask
backend (:mod:`dppca.numerics.dask_rows`, which imports Dask only when Dask data arrive), and
neither of those knows of the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca._validation import check_bool, check_data, check_random_state, is_dask_collection
from dppca.numerics.dask_rows import (
    DaskRows,
    DaskValues,
    check_dask_data,
    dask_projected,
    dask_sample_covariance,
    dask_unit_kendall,
)
from dppca.numerics.kendall import check_pairs, unit_kendall
from dppca.numerics.linalg import array_sample_covariance, covariance_pca, project
from dppca.numerics.row_values import ArrayValues, RowValues
from dppca.numerics.signs import make_sign_transform

#: Validated rows: a NumPy array or row-chunked Dask data.
Rows = np.ndarray | DaskRows


def checked_rows(X: Any) -> tuple[Rows, list[str]]:
    """:func:`~dppca._validation.check_data` for NumPy data and data frames, and its Dask
    counterpart for row-chunked Dask data (computed chunk by chunk)."""
    if is_dask_collection(X):
        rows = check_dask_data(X)
        return rows, rows.names
    return check_data(X)


def row_values(data: Rows) -> RowValues:
    """Validated rows as :class:`~dppca.numerics.row_values.RowValues`: in one array, or left
    on the workers for Dask data."""
    return DaskValues(data.array) if isinstance(data, DaskRows) else ArrayValues(data)


def projected(data: Rows, directions: np.ndarray) -> RowValues:
    """The scores of :func:`~dppca.numerics.linalg.project`, left where the rows are: in one
    array for NumPy data, on the workers for Dask data
    (:class:`~dppca.numerics.dask_rows.DaskValues`)."""
    if isinstance(data, DaskRows):
        return dask_projected(data, directions)
    return ArrayValues(project(data, directions))


def sample_covariance(data: Rows) -> np.ndarray:
    """The sample covariance (**not private**; for references only) of NumPy or Dask data,
    scaled by a power of two so that nothing overflows; entries beyond the largest float are
    clamped."""
    if isinstance(data, DaskRows):
        return dask_sample_covariance(data)
    return array_sample_covariance(data)


def ordinary_pca(data: Rows, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ordinary PCA of validated data (**not private**; for references only): the eigenvalues
    of the sample covariance (descending, clipped at 0) and its eigenvectors, each
    sign-aligned to the column of ``directions`` of the same rank."""
    return covariance_pca(sample_covariance(data), directions)


def kendall_matrix(
    X: Any,
    transform: Any = "spherical",
    radius: Any = None,
    pairs: Any = "auto",
    random_state: Any = None,
    *,
    progress: bool = True,
) -> np.ndarray:
    """The generalized multivariate Kendall's tau matrix (non-private, for study).

    ``K = (1/N) sum_{pairs} g(z_ij) g(z_ij)^T`` with ``z_ij = (x_i - x_j) / sqrt(2)`` and
    ``g(t) = h(||t||) t / ||t||`` (Kim and Jung 2025, equation (3)).

    Parameters
    ----------
    X : array-like, DataFrame or Dask array of shape (n_samples, n_features)
        A Dask array (or Dask data frame) chunked by rows is computed chunk by chunk on the
        active Dask scheduler (:mod:`dppca.numerics.dask_rows`).
    transform : {"spherical", "winsorized"} or callable, default "spherical"
        ``h = 1`` (spatial signs), ``h(s) = min(radius, s)``, or a vectorised callable ``h`` whose
        values are capped at its declared bound ``radius`` (computed pair by pair,
        ``O(n^2 d^2)``).
    radius : float, optional
        The winsorization radius, or the declared bound of a callable ``h``.
    pairs : "auto", "all" or int, default "auto"
        ``"all"``: the U-statistic over all ``n(n-1)/2`` pairs, ``O(n^2 d + n d^2)`` time.
        An even integer: the incomplete U-statistic over a circulant regular graph of that
        degree on a random permutation of the rows (every row in exactly ``pairs`` pairs with
        random partners, ``N = n pairs / 2``, whatever the order of the file),
        ``O(n pairs d^2)`` time. ``"auto"``: all pairs up to 20,000 rows, ``pairs=64`` above.
    random_state : None, int, SeedSequence or Generator
        Draws the permutation of the incomplete design (data-independent).
    progress : bool, default True
        A progress bar on stderr for a computation that lasts more than two seconds.

    Returns
    -------
    ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite; for spherical signs without duplicate rows its trace
        is 1. This matrix is not private: see :func:`dppca.dp_loading` for its private release.

    Examples
    --------
    >>> from dppca import kendall_matrix
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((200, 3)) * [3.0, 1.0, 1.0]
    >>> K = kendall_matrix(X)
    >>> round(float(np.trace(K)), 12), bool(K[0, 0] > K[1, 1])
    (1.0, True)
    """
    data, _ = checked_rows(X)
    sign = make_sign_transform(transform, radius)
    degree = check_pairs(pairs, data.shape[0])
    progress = check_bool(progress, "progress")
    rng = check_random_state(random_state) if degree is not None else None
    if isinstance(data, DaskRows):
        return dask_unit_kendall(data, sign, degree, rng) * sign.bound**2
    return unit_kendall(data, sign, degree, rng, progress=progress) * sign.bound**2
