"""Linear-algebra helpers: eigen-decompositions, orientation, projection (no privacy)."""

from __future__ import annotations

import math
from typing import cast

import numpy as np


def orient_columns(vectors: np.ndarray) -> np.ndarray:
    """Flip each column so that its largest-magnitude entry is positive (first one on ties)."""
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return cast("np.ndarray", vectors * signs)


def align_columns(vectors: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Flip each column of ``vectors`` to have a non-negative inner product with ``reference``."""
    signs = np.where(np.einsum("ij,ij->j", vectors, reference) < 0, -1.0, 1.0)
    return vectors * signs


def project(data: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Scores ``data @ directions`` of validated rows, each finite (see :func:`finite_scores`).

    A row's scores depend on that row alone, so replacing a row changes one row of scores.
    :func:`dppca.numerics.rows.projected` gives the scores of NumPy or Dask data.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return finite_scores(data @ directions)


def finite_scores(scores: np.ndarray) -> np.ndarray:
    """Scores with overflow mapped to the largest floats (NaN, from inf - inf, to 0).

    Validated data are finite, but projections of values near 1e308 can overflow; each row still
    gives one finite point, so the quantiles and counts keep their sensitivity.
    """
    largest = np.finfo(np.float64).max
    return cast("np.ndarray", np.nan_to_num(scores, nan=0.0, posinf=largest, neginf=-largest))


def array_sample_covariance(data: np.ndarray) -> np.ndarray:
    """The sample covariance (**not private**; for references only), computed on the data scaled
    by a power of two so that nothing overflows; entries beyond the largest float are clamped."""
    largest = float(np.max(np.abs(data)))
    exponent = math.frexp(largest)[1] if largest > 0 else 0
    p = data.shape[1]
    with np.errstate(under="ignore"):
        covariance = np.cov(np.ldexp(data, -exponent), rowvar=False).reshape(p, p)
    with np.errstate(over="ignore", under="ignore"):
        covariance = np.ldexp(covariance, 2 * exponent)
    largest_float = np.finfo(np.float64).max
    return np.clip(covariance, -largest_float, largest_float)


def descending_eigh(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) and oriented eigenvectors (columns) of a symmetric matrix."""
    values, vectors = np.linalg.eigh(matrix)
    return values[::-1].copy(), orient_columns(vectors[:, ::-1])


def to_vecd(matrix: np.ndarray) -> np.ndarray:
    """``(diag(Y), sqrt(2) offdiag_upper(Y))``: Frobenius norm becomes the Euclidean norm."""
    upper = np.triu_indices(matrix.shape[0], k=1)
    return np.concatenate([np.diag(matrix), math.sqrt(2.0) * matrix[upper]])


def from_vecd(vector: np.ndarray, p: int) -> np.ndarray:
    """The symmetric matrix of a ``vecd`` vector."""
    matrix = np.zeros((p, p))
    matrix[np.diag_indices(p)] = vector[:p]
    upper = np.triu_indices(p, k=1)
    matrix[upper] = vector[p:] / math.sqrt(2.0)
    matrix.T[upper] = matrix[upper]
    return matrix


def upper_entries(matrix: np.ndarray) -> np.ndarray:
    """The entries on and above the diagonal of a square matrix, row by row."""
    return matrix[np.triu_indices(matrix.shape[0])]


def from_upper(vector: np.ndarray, p: int) -> np.ndarray:
    """The symmetric ``p x p`` matrix whose entries on and above the diagonal are ``vector``
    (the inverse of :func:`upper_entries`).

    Examples
    --------
    >>> from_upper(upper_entries(np.array([[1.0, 2.0], [2.0, 3.0]])), 2).tolist()
    [[1.0, 2.0], [2.0, 3.0]]
    """
    matrix = np.zeros((p, p))
    matrix[np.triu_indices(p)] = vector
    return matrix + np.triu(matrix, 1).T


def pc_labels(count: int) -> list[str]:
    """``["PC1", ..., "PC<count>"]``: the names of principal components, numbered from 1.

    Examples
    --------
    >>> pc_labels(3)
    ['PC1', 'PC2', 'PC3']
    """
    return [f"PC{j + 1}" for j in range(count)]


def axis_labels(axes: tuple[int, int]) -> tuple[str, str]:
    """The names of two 1-based components, e.g. ``("PC1", "PC3")``."""
    return (f"PC{axes[0]}", f"PC{axes[1]}")


def covariance_pca(covariance: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues (descending, clipped at 0) and eigenvectors of a covariance matrix, each
    vector sign-aligned to the column of ``directions`` of the same rank."""
    eigenvalues, vectors = descending_eigh(covariance)
    return np.maximum(eigenvalues, 0.0), align_columns(vectors, directions)
