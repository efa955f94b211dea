"""The Gaussian mechanism on the spectral projector of a truncated covariance, with the
worst-case sensitivity of the projector given an eigen-gap."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_option, check_random_state, check_real
from dppca.baselines.common import BaselineResult, check_inputs
from dppca.numerics.linalg import descending_eigh
from dppca.privacy.budget import Budget, PrivacyLedger
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import GaussianMechanism, Noise


def _ledger(name: str, mechanism: str, epsilon: float, delta: float) -> PrivacyLedger:
    ledger = PrivacyLedger()
    ledger.record(name, mechanism, Budget(epsilon, delta), "baseline")
    return ledger


def projector_pca(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    truncation: float,
    eigengap: float,
    calibration: str = "analytic",
    random_state: Any = None,
) -> BaselineResult:
    """Gaussian mechanism on the spectral projector of a truncated covariance, with the
    worst-case sensitivity (the mechanism of Cai, Xia and Zha 2024, without their model:
    compare :func:`sgpca`).

    Rows are clipped to norm ``truncation``; ``P = U U'`` from the top ``k`` eigenvectors of
    ``(1/n) X'X`` gets symmetric noise in the vecd convention (the Gaussian mechanism for the
    Frobenius norm, as in :func:`dppca.dp_loading`) and the result is the top ``k``
    eigenvectors of ``P + E``. The sensitivity is :func:`projector_sensitivity` with
    ``T = truncation``, about ``sqrt(2) T^2 / (n eigengap)``. It holds only if the sample
    eigen-gap ``lambda_k - lambda_(k+1)`` is at least ``eigengap``: a model parameter that must
    be known in advance (the critique of Kim and Jung 2025). A guess that is too large voids
    the guarantee; too small adds noise.
    """
    data, k, epsilon, delta = check_inputs(X, k, epsilon, delta)
    truncation = check_real(truncation, "truncation", low=0.0)
    eigengap = check_real(eigengap, "eigengap", low=0.0)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    n, d = data.shape
    if not eigengap > 2.0 * truncation**2 / n:
        raise ValueError(
            f"eigengap must exceed 2 truncation^2 / n = {2.0 * truncation**2 / n:.6g}; "
            f"got {eigengap}."
        )
    rng = check_random_state(random_state)
    norms = np.linalg.norm(data, axis=1)
    clipped = data * np.minimum(1.0, truncation / np.maximum(norms, 1e-300))[:, None]
    _, vectors = descending_eigh(clipped.T @ clipped / n)
    projector = vectors[:, :k] @ vectors[:, :k].T
    sensitivity = projector_sensitivity(truncation**2, n, eigengap)
    mechanism = GaussianMechanism(
        sensitivity, d * (d + 1) // 2, epsilon, delta, calibration=calibration
    )
    noisy = mechanism.randomise_symmetric(projector, Noise("continuous", rng))
    _, noisy_vectors = descending_eigh(noisy)
    return BaselineResult(
        noisy_vectors[:, :k],
        mechanism.scale,
        _ledger("projector PCA: spectral projector", f"Gaussian ({calibration})", epsilon, delta),
        {"truncation": truncation, "eigengap": eigengap, "sensitivity": sensitivity},
    )


def projector_sensitivity(row_norm_sq: float, n: int, gap: float) -> float:
    """Frobenius sensitivity of the top-``k`` spectral projector of ``S = (1/n) X'X`` when one
    row is replaced, for rows with ``||x||^2 <= T^2`` and an eigen-gap ``l_k - l_(k+1) >= g``.

    Replacing ``y`` by ``x`` moves ``S`` along ``S + tE``, ``E = (xx' - yy') / n``. The
    projector's derivative (Kato's expansion, exact wherever the gap is open) is
    ``sum_{i <= k < j} c_ij (u_i u_j' + u_j u_i')`` with ``c_ij = u_j' E u_i / (l_i - l_j)``, so
    ``||dP/dt||_F <= sqrt(2) ||(I - P) E P||_F / g_t <= sqrt(2) T^2 / (n g_t)`` (each rank-one
    term has ``||(I - P) x|| ||P x|| <= ||x||^2 / 2``). By Weyl's inequality for the positive
    parts ``xx' / n`` and ``yy' / n``, ``g_t >= g - 2 t T^2 / n``; integrating over ``t`` in
    ``[0, 1]`` gives ``||P' - P||_F <= log(g / (g - 2 T^2 / n)) / sqrt(2)``, about
    ``sqrt(2) T^2 / (n g)``. The bound is attained to first order by ``x, y = T (u_k +- w) /
    sqrt(2)`` with ``w`` the ``(k+1)``-th eigenvector.

    Examples
    --------
    >>> round(projector_sensitivity(1.0, 100, 1.0), 5)  # about sqrt(2) / 100
    0.01429
    """
    shift = 2.0 * row_norm_sq / n
    if not gap > shift:
        raise ValueError(f"the eigen-gap {gap:.6g} must exceed 2 T^2 / n = {shift:.6g}.")
    return -math.log1p(-shift / gap) / math.sqrt(2.0)
