"""Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014): the Gaussian mechanism on the
second-moment matrix of clipped rows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dppca._validation import check_bool, check_option, check_random_state
from dppca.baselines.common import BaselineResult, check_inputs
from dppca.baselines.tuning import (
    BOUNDED_CENTER_SHARE,
    CLIP_SHARE,
    bounded_center,
    check_tuning,
    clip_quantile,
    private_clip,
)
from dppca.numerics.linalg import descending_eigh
from dppca.numerics.sscm import gamma, offsets, sscm_sensitivity
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.gaussian_budget import GaussianBudget, GaussianPart
from dppca.privacy.mechanisms import GaussianMechanism, Noise, check_noise_scale
from dppca.releases.loading.centre import locate_centre, plan_centre

#: ``clip="scale"`` clips at this multiple of the centre's pair scale (a median half-distance
#: between rows, about 0.7 times the median distance to the centre).
CLIP_OF_SCALE = 0.5


def sensitivity(n: int, d: int) -> float:
    """The L2 sensitivity of the computed ``vecd(sum_i y_i y_i')`` for rows ``y_i = m_i a_i``
    (``a_i`` a unit direction, ``m_i = min(1, r_i / clip)``): ``sqrt 2`` for the exact sum
    (``||yy' - zz'||_F <= sqrt 2`` in the unit ball), plus its floating-point error, bounded as
    for the SSCM's terms (:func:`~dppca.numerics.sscm.sscm_sensitivity`, times ``n`` for a sum
    instead of a mean) with two more roundings for the product ``m_i a_i``."""
    return n * sscm_sensitivity(n, d) * (1.0 + gamma(4))


def analyze_gauss(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    clip: float | str = "private",
    center: str | None = None,
    bounds: tuple[float, float] | None = None,
    travel: bool = True,
    calibration: str = "analytic",
    random_state: Any = None,
) -> BaselineResult:
    """Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014), tuned as a knowledgeable user
    would.

    Rows are (optionally) centred, clipped to norm ``clip`` and divided by it (unit ball); the
    uncentred second-moment matrix ``A = X'X`` is released through ``vecd`` (diagonal, and
    ``sqrt 2`` times the entries above it: an isometry from the Frobenius norm) with the
    Gaussian mechanism, so the noise has sd ``sigma`` on the diagonal and ``sigma / sqrt 2`` off
    it, as g-DPPCA's own matrix; the result is the top ``k`` eigenvectors. Under replacement
    ``||xx' - yy'||_F <= sqrt(2)`` for ``||x||, ||y|| <= 1``, so
    ``sigma = sqrt(2) s(epsilon, delta)`` (plus the floating-point error of the computed sum:
    :func:`sensitivity`).

    Parameters
    ----------
    clip : float, "private" or "scale", default "private"
        A public clip norm; ``"private"``: the private median of the row norms (after
        centring) on the logarithmic grid (:func:`private_clip`, ``CLIP_SHARE`` of epsilon,
        the share g-DPPCA's automatic radius gets); or ``"scale"`` (with
        ``center="private"``): ``CLIP_OF_SCALE`` times the pair scale the centre has released,
        at no further cost. The sensitivity is the same at any clip (rows are divided by it), so
        a smaller clip keeps more of each row's direction and less of its length: at a clip
        below most rows' norms AG approaches the spatial sign covariance, which is more
        accurate on heavy tails; the median keeps the lengths of half the rows.
    center : None, "private" or "bounded"
        ``"private"``: subtract the private robust centre that the library's SSCM statistic
        uses (:func:`~dppca.releases.loading.centre.locate_centre`: two log-grid medians, then
        clipped mean steps whose Gaussian noise shares one budget with the matrix), found at
        any scale and, within the steps' reach, at any location. ``"bounded"``: private means
        within the public ``bounds`` of every coordinate (:func:`bounded_center`,
        ``BOUNDED_CENTER_SHARE`` of epsilon and of delta), what a user who knows the data's
        range (allele counts in ``[0, 2]``) would do. AG is not translation invariant without
        centring.
    bounds : (float, float), optional
        With ``center="bounded"``.
    travel : bool, default True
        With ``center="private"``: pay the centre's steps that travel to data far from the
        origin on top of its share, as the SSCM does
        (:func:`~dppca.releases.loading.schedule.with_travel`: a more precise centre, less budget
        for the matrix), or keep them within it (False).

    Notes
    -----
    With ``center="private"``, the clip gets ``CLIP_SHARE`` of epsilon, the centre's medians
    their shares of the rest, and the centre's steps and the matrix one Gaussian budget of
    what is left (all of delta but the centre's 1 % for its thresholds), composed adaptively
    (Dong, Roth and Su 2022). Otherwise the clip and the centre get their shares and the matrix
    the rest of epsilon and of delta. Each part is in the ledger; the parts compose by basic
    composition. ``calibration`` applies to the matrix alone; the shared budget is calibrated
    exactly (Gaussian DP).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((4000, 3)) * [5.0, 1.0, 1.0] + 1e3
    >>> fit = analyze_gauss(X, 1, 4.0, 1e-6, center="private", random_state=1)
    >>> bool(abs(fit.components[0, 0]) > 0.95)
    True
    """
    data, k, epsilon, delta = check_inputs(X, k, epsilon, delta)
    clip, center, bounds = check_tuning(clip, center, bounds)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    travel = check_bool(travel, "travel")
    if center == "private" and calibration != "analytic":
        raise ValueError(
            'center="private" shares one exactly calibrated Gaussian budget between the '
            f'centre and the matrix: calibration must be "analytic"; got {calibration!r}.'
        )
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    ledger = PrivacyLedger()
    n, d = data.shape
    entries = d * (d + 1) // 2
    clip_share = CLIP_SHARE if clip == "private" else 0.0
    mechanism: GaussianMechanism | GaussianPart
    shared: GaussianBudget | None = None
    # Every mechanism is built, and its noise checked, before anything is released.
    if center == "private":
        clip_epsilon, rest = split_epsilon(epsilon, [clip_share, 1.0 - clip_share])
        plan = plan_centre(
            data.shape,
            rest,
            delta,
            "continuous",
            "AG: centre steps and matrix",
            release_epsilon=epsilon,
        )
        shared = plan.gaussian
        for extra_share in (plan.most_extra, 0.0):  # the most noise and the least
            mechanism = shared.part(sensitivity(n, d), entries, plan.caller_share(extra_share))
            check_noise_scale(mechanism.scale, "AG's matrix")
    else:
        center_share = 0.0 if center is None else BOUNDED_CENTER_SHARE
        clip_epsilon, center_epsilon, gauss_epsilon = split_epsilon(
            epsilon, [clip_share, center_share, 1.0 - clip_share - center_share]
        )
        center_delta, gauss_delta = split_epsilon(delta, [center_share, 1.0 - center_share])
        mechanism = GaussianMechanism(
            sensitivity(n, d), entries, gauss_epsilon, gauss_delta, calibration=calibration
        )
    check_noise_scale(mechanism.scale, "AG's matrix")
    quantile = clip_quantile(n, clip_epsilon, noise) if clip == "private" else None
    clip_norm = math.nan if isinstance(clip, str) else clip
    reached, travelled = True, 0.0
    if center == "private":
        centre = locate_centre(
            data, plan, noise, rng, ledger, "AG: centre", "baseline", travel=travel
        )
        assert shared is not None
        mechanism = shared.part(sensitivity(n, d), entries, plan.caller_share(centre.extra_share))
        data = data - centre.location
        reached, travelled = centre.reached, centre.travel_share
        if clip == "scale":
            clip_norm = CLIP_OF_SCALE * centre.pair_scale
    elif center == "bounded":
        assert bounds is not None  # checked by check_tuning
        budget = Budget(center_epsilon, center_delta)
        data = data - bounded_center(data, bounds, budget, noise, ledger, "AG")
    if quantile is not None:
        clip_norm = private_clip(data, quantile, noise, ledger, "AG")
    directions, norms = offsets(data, np.zeros(d))
    with np.errstate(over="ignore", under="ignore"):
        lengths = np.minimum(1.0, norms / clip_norm)  # at most 1 in floating point too
    scaled = directions * lengths[:, None]
    noisy = mechanism.randomise_symmetric(scaled.T @ scaled, noise)
    if shared is not None:
        shared.record(ledger, "AG: centre steps and second-moment matrix", "baseline")
    else:
        assert isinstance(mechanism, GaussianMechanism)
        mechanism.record(ledger, "AG: second-moment matrix", "baseline")
    _, vectors = descending_eigh(noisy)
    return BaselineResult(
        vectors[:, :k],
        mechanism.scale,
        ledger,
        {
            "clip_norm": clip_norm,
            "clip": clip,
            "center": center,
            "centre_reached": reached,
            "travel_share": travelled,
        },
    )
