"""Noise-adding mechanisms.

Only post-processing of a mechanism's output may reach a release; each mechanism here returns the
noise scale it used so that callers can record it next to the ledger entry.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from dppca._validation import check_delta, check_epsilon, check_positive_int, check_real
from dppca.privacy.calibration import gaussian_multiplier

#: L2 and L1 sensitivity of a histogram's count vector under replacement of one row: one count
#: goes down by 1 and another up by 1.
HISTOGRAM_L2_SENSITIVITY = math.sqrt(2.0)
HISTOGRAM_L1_SENSITIVITY = 2.0


def check_noise_scale(scale: float, what: str) -> float:
    """Refuse a noise scale that is not a positive, finite, normal float.

    A zero, subnormal or infinite scale would release the data (almost) exactly or nothing at
    all, and subnormal arithmetic loses the noise's precision. Called with public values only,
    before any budget is charged.
    """
    if not (math.isfinite(scale) and scale >= sys.float_info.min):
        raise ValueError(
            f"The noise scale of {what} would be {scale!r}, which is not a positive normal float "
            f"(between {sys.float_info.min:.3g} and {sys.float_info.max:.3g}). Change epsilon, "
            "delta or the bounds, or rescale the data by a public constant."
        )
    return scale


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


def histogram_gaussian_sigma(epsilon: float, delta: float, calibration: str = "analytic") -> float:
    """``sigma_H = sqrt(2) s(epsilon, delta)``: the additive histogram's noise on each count
    (L2 sensitivity ``sqrt 2`` of the count vector under replacement)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return HISTOGRAM_L2_SENSITIVITY * gaussian_multiplier(epsilon, delta, calibration)


def stability_parameters(epsilon: float, delta: float) -> tuple[float, float]:
    """The sparse histogram's Laplace scale ``2 / epsilon`` (L1 sensitivity 2) and threshold
    ``1 + 2 ln(2 / delta) / epsilon``, in counts."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return HISTOGRAM_L1_SENSITIVITY / epsilon, 1.0 + 2.0 * math.log(2.0 / delta) / epsilon


def gaussian_histogram(counts: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Additive Gaussian histogram (Wasserman and Zhou 2010): ``max(c_j + N(0, sigma^2), 0)`` on
    every cell, empty or not, with ``sigma`` from :func:`histogram_gaussian_sigma`."""
    return np.maximum(counts + rng.normal(0.0, sigma, size=counts.shape), 0.0)


def stability_histogram(
    counts: np.ndarray, scale: float, threshold: float, rng: np.random.Generator
) -> np.ndarray:
    """Sparse, stability-based histogram (Karwa and Vadhan 2018).

    Only occupied cells get noise, ``c_j + Laplace(scale)``, clipped at 0 and set to 0 below
    ``threshold``; empty cells stay 0. With :func:`stability_parameters`, a cell that is empty in
    one neighbour and holds one row in the other passes the threshold with probability
    ``delta / 4``, and at most two cells differ, so the release is (epsilon, delta)-DP. In
    proportions this is seed 002's ``Laplace(2 / (n epsilon))`` with threshold
    ``1/n + 2 ln(2/delta) / (n epsilon)``.
    """
    noisy = np.zeros(counts.shape)
    occupied = counts > 0
    noisy[occupied] = np.maximum(
        counts[occupied] + rng.laplace(0.0, scale, size=int(occupied.sum())), 0.0
    )
    noisy[noisy < threshold] = 0.0
    return noisy
