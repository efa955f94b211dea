"""Noisy geodesic gradient descent on the Grassmannian for the robust subspace recovery energy
of sphere-normalised rows (after Maunu, Yu and Lerman 2022)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_option, check_positive_int, check_random_state, check_real
from dppca.baselines.common import BaselineResult, check_inputs
from dppca.baselines.tuning import centered, check_tuning, tuning_shares
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.mechanisms import GaussianMechanism, Noise


def nsggd(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    steps: int = 50,
    step: str = "shrinking",
    step_size: float | None = None,
    center: str | None = None,
    bounds: tuple[float, float] | None = None,
    random_state: Any = None,
) -> BaselineResult:
    """Noisy geodesic gradient descent for robust subspace recovery (after Maunu, Yu and Lerman
    2022).

    Rows are (optionally privately centred and) normalised to the unit sphere (zero rows stay
    0). Starting from a random orthonormal ``V`` (d x k), each of ``steps`` iterations computes
    the descent direction of the energy ``sum_i ||(I - V V') x_i||``,
    ``G = (1/n) sum_i r_i (x_i' V) / ||r_i||`` with ``r_i = (I - V V') x_i``, adds Gaussian
    noise projected on the tangent space, and moves along the geodesic
    ``V W cos(A) W' + U sin(A) W'`` (``G = U S W'``).

    Parameters
    ----------
    step : {"shrinking", "normalised"}, default "shrinking"
        ``"shrinking"``: the step rule of Maunu's geodesic gradient descent code (``ggd.m``),
        angles ``A = eta_t S`` with ``eta_t = step_size`` divided by 10 after every
        ``steps / 2`` iterations (default ``step_size`` 1). ``"normalised"``: ``A = eta_t S /
        max(S)`` with ``eta_t = step_size / sqrt(t)`` (default 0.5): the largest angle moved per
        step is ``eta_t`` whatever the gradient's size, which leaves an error floor.
    center : None, "private" or "bounded"
        ``"private"``: subtract private coordinate-wise medians first (:func:`private_center`,
        ``CENTER_SHARE`` of epsilon); ``"bounded"``: private means within public ``bounds``
        (as for :func:`analyze_gauss`). Normalising about the origin is not translation
        invariant.
    bounds : (float, float), optional
        With ``center="bounded"``.

    Notes
    -----
    Each term has Frobenius norm ``||V' x_i|| <= 1``, so replacing a row moves ``G`` by at most
    ``2/n``. Every step uses all rows (no subsampling amplification is claimed), so the
    ``steps`` Gaussian releases compose in Gaussian DP: ``sigma = 2 sqrt(steps) / (n mu)``.
    """
    data, k, epsilon, delta = check_inputs(X, k, epsilon, delta)
    steps = check_positive_int(steps, "steps")
    step = check_option(step, "step", ["shrinking", "normalised"])
    default_size = 1.0 if step == "shrinking" else 0.5
    size = default_size if step_size is None else check_real(step_size, "step_size", low=0.0)
    _, center, bounds = check_tuning(1.0, center, bounds)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    _, center_share = tuning_shares(1.0, center)
    center_epsilon, descent_epsilon = split_epsilon(epsilon, [center_share, 1.0 - center_share])
    center_delta, descent_delta = (
        split_epsilon(delta, [center_share, 1.0 - center_share])
        if center == "bounded"
        else (0.0, delta)
    )
    n, d = data.shape
    ledger = PrivacyLedger()
    data = centered(
        data, center, bounds, Budget(center_epsilon, center_delta), noise, ledger, "NSGGD"
    )
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    unit = np.divide(data, norms, out=np.zeros_like(data), where=norms > 0)
    # Each step: L2 sensitivity 2/n, steps composed in GDP: sigma = 2 sqrt(steps) / (n mu).
    mechanism = GaussianMechanism(
        2.0 / n, d * k, descent_epsilon, descent_delta, compositions=steps
    )
    V, _ = np.linalg.qr(rng.standard_normal((d, k)))  # a data-independent random start
    shrink_every = max(steps // 2, 1)
    for t in range(1, steps + 1):
        projections = unit @ V
        residuals = unit - projections @ V.T
        lengths = np.maximum(np.linalg.norm(residuals, axis=1, keepdims=True), 1e-12)
        G = (residuals / lengths).T @ projections / n  # orthogonal to V: a tangent vector
        G = (np.eye(d) - V @ V.T) @ mechanism.randomise(G, noise)  # noise on the tangent space
        U, S, Wt = np.linalg.svd(G, full_matrices=False)
        if step == "shrinking":
            angles = size * 10.0 ** -((t - 1) // shrink_every) * S
        else:
            angles = size / math.sqrt(t) * S / max(float(S.max()), 1e-300)
        V = V @ Wt.T @ np.diag(np.cos(angles)) @ Wt + U @ np.diag(np.sin(angles)) @ Wt
        V, _ = np.linalg.qr(V)  # re-orthonormalise against rounding
    mechanism.record(ledger, f"NSGGD: noisy gradients ({steps} steps, GDP)", "baseline")
    return BaselineResult(
        V,
        mechanism.scale,
        ledger,
        {"steps": steps, "step": step, "step_size": size, "center": center},
    )
