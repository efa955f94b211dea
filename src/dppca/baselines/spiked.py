"""Sub-Gaussian spiked-model private PCA in the form of Cai, Xia and Zha (2024): the Gaussian
mechanism on the spectral projector, with its sensitivity from the model's parameters (private
only under the model, with oracle parameters)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from scipy import stats

from dppca._validation import check_option, check_random_state, check_real
from dppca.baselines.common import BaselineResult, check_inputs
from dppca.baselines.projector import projector_sensitivity
from dppca.baselines.tuning import private_center, tuning_shares
from dppca.numerics.linalg import descending_eigh
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import GaussianMechanism, Noise


@dataclass(frozen=True)
class SpikedModel:
    """The spiked covariance model ``Sigma = U diag(spikes) U' + noise_variance I`` with
    Gaussian rows about the origin: the parameters :func:`sgpca` must be told.

    Examples
    --------
    >>> SpikedModel(spikes=(10.0, 10.0), noise_variance=1.0).rank
    2
    """

    spikes: tuple[float, ...]
    noise_variance: float = 1.0

    @property
    def rank(self) -> int:
        """The number of spikes."""
        return len(self.spikes)


def _check_model(model: Any, k: int) -> SpikedModel:
    if not isinstance(model, SpikedModel):
        raise TypeError(f"model must be a SpikedModel; got {type(model).__name__}.")
    spikes = [check_real(value, "model.spikes", low=0.0) for value in model.spikes]
    if len(spikes) != k:
        raise ValueError(f"model must have k={k} spikes; got {len(spikes)}.")
    if any(later > earlier for earlier, later in itertools.pairwise(spikes)):
        raise ValueError(f"model.spikes must be in decreasing order; got {tuple(spikes)}.")
    noise_variance = check_real(model.noise_variance, "model.noise_variance", low=0.0)
    return SpikedModel(tuple(spikes), noise_variance)


def spiked_model_bounds(n: int, p: int, model: SpikedModel, failure: float) -> tuple[float, float]:
    """A bound ``T^2`` on every row's squared norm and a bound ``g`` below the sample eigen-gap
    ``l_r - l_(r+1)`` of ``(1/n) X'X`` that a sample of ``n`` rows from the Gaussian spiked
    model meets with probability at least ``1 - failure``.

    * ``||z||^2 <= (lambda_1 + sigma^2) chi2_r + sigma^2 chi2_(p - r)`` (independent parts
      along and across the spikes), each at its upper ``failure / (4 n)`` quantile;
    * by Courant-Fischer ``l_r >= lambda_min(U' S U)`` and ``l_(r+1) <= lambda_max((I - P) S
      (I - P))``, Wishart matrices whose extreme singular values obey Davidson and Szarek's
      (2001) bounds, each failing with probability ``failure / 4`` at ``t = sqrt(2 log(4 /
      failure) / n)``: ``g = (lambda_r + sigma^2) (1 - sqrt(r / n) - t)^2 - sigma^2 (1 +
      sqrt((p - r) / n) + t)^2``.

    Examples
    --------
    >>> bound, gap = spiked_model_bounds(2000, 10, SpikedModel((10.0, 10.0)), 1.25e-7)
    >>> round(bound), round(gap, 2)
    (615, 6.28)
    """
    variance = model.noise_variance
    first, last = model.spikes[0], model.spikes[-1]
    r = model.rank
    row_tail = failure / (4.0 * n)
    bound = (first + variance) * float(stats.chi2.isf(row_tail, r))
    bound += variance * float(stats.chi2.isf(row_tail, p - r))
    t = math.sqrt(2.0 * math.log(4.0 / failure) / n)
    low = max(1.0 - math.sqrt(r / n) - t, 0.0)
    gap = (last + variance) * low**2 - variance * (1.0 + math.sqrt((p - r) / n) + t) ** 2
    return bound, gap


def spiked_model_rate_sensitivity(n: int, p: int, model: SpikedModel) -> float:
    """The projector's sensitivity at the order of Cai, Xia and Zha's (2024) high-probability
    bound, with unit constants: **not a bound that holds for every sample**.

    Kato's first-order expansion (see :func:`projector_sensitivity`) gives ``||P' - P||_F``
    about ``sqrt(2) (||(I - P) x|| ||P x|| + ||(I - P) y|| ||P y||) / (n g)``. This form takes
    ``P`` as the population projector, ``g`` as the population gap ``lambda_r`` and the sizes a
    Gaussian row from the model exceeds with probability about ``1 / n`` (Gaussian norm
    concentration at deviation ``sqrt(2 log n)``): ``||P x|| <= a = sqrt(lambda_1 + sigma^2)
    (sqrt(r) + sqrt(2 log n))`` and ``||(I - P) x|| <= b = sigma (sqrt(p - r) + sqrt(2 log
    n))``, so ``Delta = 2 sqrt(2) a b / (n lambda_r)``.

    Examples
    --------
    >>> round(spiked_model_rate_sensitivity(2000, 10, SpikedModel((10.0, 10.0))), 4)
    0.0168
    """
    r = model.rank
    deviation = math.sqrt(2.0 * math.log(n))
    along = math.sqrt(model.spikes[0] + model.noise_variance) * (math.sqrt(r) + deviation)
    across = math.sqrt(model.noise_variance) * (math.sqrt(p - r) + deviation)
    return 2.0 * math.sqrt(2.0) * along * across / (n * model.spikes[-1])


#: How :func:`sgpca` bounds its sensitivity.
SGPCA_BOUNDS = ("guaranteed", "rate")


def sgpca(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    model: SpikedModel,
    bounds: str = "guaranteed",
    center: str | None = None,
    calibration: str = "analytic",
    random_state: Any = None,
) -> BaselineResult:
    """Sub-Gaussian spiked-model private PCA in the form of Cai, Xia and Zha (2024): the
    Gaussian mechanism on the spectral projector, with its sensitivity from the model's
    parameters. **Private only under the assumed model, with oracle parameters** (and with
    ``bounds="rate"`` not even then).

    ``P = U U'`` from the top ``k`` eigenvectors of ``(1/n) X'X`` gets symmetric Gaussian
    noise (the mechanism for the Frobenius norm, as in :func:`dppca.dp_loading`) at
    ``delta / 2``; the result is the top ``k`` eigenvectors of the noisy projector. The form is
    theirs; the constants are derived here, not taken from their theorems.

    Parameters
    ----------
    model : SpikedModel
        The spikes and noise variance, which a real user does not know: the benchmarks give the
        true values (oracle parameters). On data outside the model (heavy tails, outliers, a
        shifted mean without ``center``) the stated guarantee does not hold.
    bounds : {"guaranteed", "rate"}, default "guaranteed"
        ``"guaranteed"``: the sensitivity :func:`projector_sensitivity` at the row bound and
        eigen-gap of :func:`spiked_model_bounds` with ``failure = delta / 2``, so the
        guarantee holds exactly on the samples that meet the bounds, which a sample from the
        model does with probability at least ``1 - delta / 2``. ``"rate"``: the first-order
        sensitivity :func:`spiked_model_rate_sensitivity`, the order of the authors' bound with
        unit constants; 4.3 times smaller at n = 2000, p = 10, and with **no privacy
        guarantee established**: a benchmark of what the method could reach if its constants
        were that small.
    center : None or "private"
        ``"private"``: subtract private coordinate-wise medians first (:func:`private_center`,
        ``CENTER_SHARE`` of epsilon). The rows are then centred at the noisy median, not the
        model's mean, which the bounds do not allow for.

    Notes
    -----
    With ``bounds="guaranteed"`` the guarantee is ``(epsilon, delta / 2)``-DP between
    neighbouring data sets that meet the bounds (every row's squared norm at most ``T^2``,
    eigen-gap at least ``g``); the other half of ``delta`` covers the chance that a sample
    from the model does not.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.baselines import sin_theta
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20000, 10)) * np.r_[np.sqrt(11.0), np.sqrt(11.0), np.ones(8)]
    >>> result = sgpca(X, 2, 1.0, 1e-8, model=SpikedModel((10.0, 10.0)), random_state=0)
    >>> bool(sin_theta(result.components, np.eye(10)[:, :2]) < 0.2)
    True
    """
    data, k, epsilon, delta = check_inputs(X, k, epsilon, delta)
    model = _check_model(model, k)
    bounds = check_option(bounds, "bounds", SGPCA_BOUNDS)
    if center is not None:
        center = check_option(center, "center", ["private"])
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    n, d = data.shape
    if k == d:
        raise ValueError(f"k must be below p={d} for sgpca (the projector would be I); got {k}.")
    if bounds == "guaranteed":
        row_bound, gap = spiked_model_bounds(n, d, model, delta / 2.0)
        if not gap > 2.0 * row_bound / n:
            raise ValueError(
                f"model's weakest spike {model.spikes[-1]} is too weak for n={n}, p={d}: the "
                f"sample eigen-gap bound {gap:.4g} does not exceed 2 T^2 / n = "
                f"{2.0 * row_bound / n:.4g}, so there is no eigen-gap to protect."
            )
        sensitivity = projector_sensitivity(row_bound, n, gap)
        claim = "private only under the model, oracle parameters"
        mechanism_name = f"Gaussian ({calibration}) with model failure probability delta/2"
    else:
        sensitivity = spiked_model_rate_sensitivity(n, d, model)
        claim = "rate constants: no privacy guarantee established"
        mechanism_name = f"Gaussian ({calibration}) at a first-order sensitivity, delta/2"
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    _, center_share = tuning_shares(1.0, center)
    center_epsilon, projector_epsilon = split_epsilon(epsilon, [center_share, 1.0 - center_share])
    mechanism = GaussianMechanism(
        sensitivity, d * (d + 1) // 2, projector_epsilon, delta / 2.0, calibration=calibration
    )
    ledger = PrivacyLedger()
    if center is not None:
        data = data - private_center(data, center_epsilon, noise, ledger, "SGPCA")
    _, vectors = descending_eigh(data.T @ data / n)
    noisy = mechanism.randomise_symmetric(vectors[:, :k] @ vectors[:, :k].T, noise)
    ledger.record(
        f"SGPCA: spectral projector ({claim})",
        mechanism_name,
        Budget(projector_epsilon, delta),
        "baseline",
    )
    _, noisy_vectors = descending_eigh(noisy)
    return BaselineResult(
        noisy_vectors[:, :k],
        mechanism.scale,
        ledger,
        {"model": model, "bounds": bounds, "sensitivity": sensitivity},
    )
