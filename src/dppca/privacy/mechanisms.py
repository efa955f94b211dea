"""Noise-adding mechanisms.

Only post-processing of a mechanism's output may reach a release; each mechanism here returns the
noise scale it used so that callers can record it next to the ledger entry.
"""

from __future__ import annotations

import math

import numpy as np

from dppca._validation import check_positive_int, check_real


def symmetric_gaussian_noise(p: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """A symmetric ``p x p`` Gaussian noise matrix in the ``vecd`` convention.

    ``vecd(Y) = (diag(Y), sqrt(2) offdiag_upper(Y))`` is an isometry from symmetric matrices with
    the Frobenius norm to ``R^{p(p+1)/2}`` with the Euclidean norm. Adding ``N(0, sigma^2 I)`` to
    ``vecd(K)`` and mapping back gives ``E`` with ``E_jj ~ N(0, sigma^2)`` and
    ``E_jl = E_lj ~ N(0, sigma^2 / 2)``, all independent on and above the diagonal
    (Kim and Jung 2025, Section 3). With ``sigma`` calibrated to the Frobenius sensitivity of ``K``
    this is the Gaussian mechanism on ``vecd(K)``.
    """
    p = check_positive_int(p, "p")
    sigma = check_real(sigma, "sigma", low=0.0, low_inclusive=True)
    draws = rng.standard_normal(p * (p + 1) // 2) * sigma
    noise = np.zeros((p, p))
    noise[np.diag_indices(p)] = draws[:p]
    upper = np.triu_indices(p, k=1)
    noise[upper] = draws[p:] / math.sqrt(2.0)
    noise.T[upper] = noise[upper]
    return noise
