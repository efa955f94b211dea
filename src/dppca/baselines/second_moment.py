"""Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014): the Gaussian mechanism on the
second-moment matrix of clipped rows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_option, check_random_state
from dppca.baselines.common import BaselineResult, check_inputs
from dppca.baselines.tuning import centered, check_tuning, private_clip, tuning_shares
from dppca.numerics.linalg import descending_eigh, from_upper, upper_entries
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import GaussianMechanism, Noise


def second_moment_release(
    moment: np.ndarray, mechanism: GaussianMechanism, noise: Noise
) -> np.ndarray:
    """AG's release: the same noise ``sigma`` on every entry on and above the diagonal (the
    Gaussian mechanism on those entries, L2 sensitivity ``sqrt 2``), mirrored below it."""
    return from_upper(mechanism.randomise(upper_entries(moment), noise), moment.shape[0])


def analyze_gauss(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    clip: float | str = "private",
    center: str | None = None,
    bounds: tuple[float, float] | None = None,
    calibration: str = "analytic",
    random_state: Any = None,
) -> BaselineResult:
    """Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014), tuned as a knowledgeable user
    would.

    Rows are (optionally) centred, clipped to norm ``clip`` and divided by it (unit ball); the
    uncentred second-moment matrix ``A = X'X`` gets symmetric Gaussian noise with the same
    ``sigma`` on every entry on and above the diagonal; the result is the top ``k``
    eigenvectors. Under replacement ``||xx' - yy'||_F <= sqrt(2)`` for ``||x||, ||y|| <= 1``, so
    ``sigma = sqrt(2) s(epsilon, delta)``.

    Parameters
    ----------
    clip : float or "private", default "private"
        A public clip norm, or ``"private"``: the private median of the row norms
        (:func:`private_clip`, ``CLIP_SHARE`` of epsilon, the share g-DPPCA's automatic radius
        gets). The error grows with the clip squared, so the median is the fair choice.
    center : None, "private" or "bounded"
        ``"private"``: subtract private coordinate-wise medians first (:func:`private_center`,
        ``CENTER_SHARE`` of epsilon). ``"bounded"``: private means within the public
        ``bounds`` of every coordinate (:func:`bounded_center`, ``BOUNDED_CENTER_SHARE`` of
        epsilon and of delta), what a user who knows the data's range (allele counts in
        ``[0, 2]``) would do. AG is not translation invariant without centring.
    bounds : (float, float), optional
        With ``center="bounded"``.

    Notes
    -----
    The Gaussian release gets the rest of epsilon and of delta; the parts compose by basic
    composition and are each in the ledger.
    """
    data, k, epsilon, delta = check_inputs(X, k, epsilon, delta)
    clip, center, bounds = check_tuning(clip, center, bounds)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    clip_share, center_share = tuning_shares(clip, center)
    clip_epsilon, center_epsilon, gauss_epsilon = split_epsilon(
        epsilon, [clip_share, center_share, 1.0 - clip_share - center_share]
    )
    center_delta, gauss_delta = (
        split_epsilon(delta, [center_share, 1.0 - center_share])
        if center == "bounded"
        else (0.0, delta)
    )
    d = data.shape[1]
    mechanism = GaussianMechanism(
        math.sqrt(2.0), d * (d + 1) // 2, gauss_epsilon, gauss_delta, calibration=calibration
    )
    ledger = PrivacyLedger()
    data = centered(data, center, bounds, Budget(center_epsilon, center_delta), noise, ledger, "AG")
    clip_norm = private_clip(data, clip_epsilon, noise, ledger, "AG") if clip == "private" else clip
    norms = np.linalg.norm(data, axis=1)
    scaled = data * (np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300)) / clip_norm)[:, None]
    noisy = second_moment_release(scaled.T @ scaled, mechanism, noise)
    mechanism.record(ledger, "AG: second-moment matrix", "baseline")
    _, vectors = descending_eigh(noisy)
    return BaselineResult(
        vectors[:, :k],
        mechanism.scale,
        ledger,
        {"clip_norm": clip_norm, "clip": clip, "center": center},
    )
