"""Competitor private PCA methods for benchmarks, and the subspace error metric.

All take data ``X`` (n x d), a target dimension ``k`` and a budget, and return a
:class:`BaselineResult` with ``components`` of shape (d, k) (orthonormal columns). Neighbouring
data sets differ by the replacement of one row, as for g-DPPCA. Each method's public tuning
(clip norm, truncation level, eigen-gap, steps) is an argument: a user must supply it from
outside knowledge, and a wrong value either biases the result or breaks the guarantee (see each
docstring).

* :func:`analyze_gauss`: Dwork, Talwar, Thakurta and Zhang (2014), "Analyze Gauss".
* :func:`nsggd`: noisy geodesic gradient descent on the Grassmannian for the robust subspace
  recovery energy of sphere-normalised rows (after Maunu, Yu and Lerman 2022).
* :func:`sgpca`: the Gaussian mechanism on the spectral projector with a sensitivity from the
  spiked model's parameters (the form of Cai, Xia and Zha 2024): private only under that model,
  with oracle parameters.
* :func:`projector_pca`: the same mechanism with the worst-case sensitivity of a truncated
  covariance, private for any data once its eigen-gap guess holds.
* :func:`diffprivlib_pca`, :func:`opendp_pca`: adapters to the installed peer libraries.
* :func:`sklearn_pca`: ordinary PCA, the non-private ceiling.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from dppca._validation import (
    check_data,
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
    check_real,
)
from dppca.numerics.linalg import descending_eigh, from_upper, upper_entries
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import GaussianMechanism, Noise
from dppca.privacy.quantiles import DurfeeQuantile, GridQuantile, safe_level


@dataclass(frozen=True)
class BaselineResult:
    """A competitor's private subspace: ``components`` (d x k), the noise scale and the ledger."""

    components: np.ndarray
    sigma: float
    privacy: PrivacyLedger = field(repr=False)
    settings: dict[str, Any] = field(default_factory=dict, repr=False)


def sin_theta(A: np.ndarray, B: np.ndarray) -> float:
    """Sine of the largest principal angle between the column spaces of ``A`` and ``B``
    (orthonormal columns): ``sqrt(1 - sigma_min(A' B)^2)``."""
    singular = np.linalg.svd(np.asarray(A).T @ np.asarray(B), compute_uv=False)
    return math.sqrt(max(0.0, 1.0 - float(singular.min()) ** 2))


def _check(X: Any, k: Any, epsilon: Any, delta: Any):
    data, _ = check_data(X)
    k = check_positive_int(k, "k")
    if k > data.shape[1]:
        raise ValueError(f"k must be an integer in [1, p={data.shape[1]}]; got {k}.")
    return data, k, check_epsilon(epsilon), check_delta(delta)


def _ledger(name: str, mechanism: str, epsilon: float, delta: float) -> PrivacyLedger:
    ledger = PrivacyLedger()
    ledger.record(name, mechanism, Budget(epsilon, delta), "baseline")
    return ledger


def second_moment_release(
    moment: np.ndarray, mechanism: GaussianMechanism, noise: Noise
) -> np.ndarray:
    """AG's release: the same noise ``sigma`` on every entry on and above the diagonal (the
    Gaussian mechanism on those entries, L2 sensitivity ``sqrt 2``), mirrored below it."""
    return from_upper(mechanism.randomise(upper_entries(moment), noise), moment.shape[0])


#: The share of epsilon a private clip norm costs: what g-DPPCA's automatic radius gets.
CLIP_SHARE = 0.1
#: The share of epsilon private centring costs (each coordinate's median gets 1/d of it).
CENTER_SHARE = 0.5


def private_center(
    data: np.ndarray, epsilon: float, noise: Noise, ledger: PrivacyLedger, name: str
) -> np.ndarray:
    """Coordinate-wise private medians: Durfee's two-sided search (no bounds) on each of the
    ``d`` columns with ``epsilon / d`` each (pure DP; basic composition over the columns)."""
    d = data.shape[1]
    parts = split_epsilon(epsilon, [1.0 / d] * d)
    center = np.empty(d)
    for column, part in enumerate(parts):
        search = DurfeeQuantile(0.5, part, sampler=noise.sampler, description=f"column {column}")
        center[column] = search.release(data[:, column], noise)
        search.record(ledger, f"{name}: centre of column {column}", "baseline")
    return center


#: The share of epsilon (and of delta) a private mean within public bounds costs.
BOUNDED_CENTER_SHARE = 0.1


def bounded_center(
    data: np.ndarray,
    bounds: tuple[float, float],
    budget: Budget,
    noise: Noise,
    ledger: PrivacyLedger,
    name: str,
) -> np.ndarray:
    """Coordinate means within public ``bounds = (low, high)`` (values clamped into them): one
    Gaussian mechanism on the ``d`` means, each moving by at most ``(high - low) / n`` when a
    row is replaced (L2 sensitivity ``(high - low) sqrt(d) / n``)."""
    n, d = data.shape
    low, high = bounds
    mechanism = GaussianMechanism(
        (high - low) * math.sqrt(d) / n, d, budget.epsilon, budget.delta, noise.sampler
    )
    means = np.clip(data, low, high).mean(axis=0)
    mechanism.record(ledger, f"{name}: centre (means within public bounds)", "baseline")
    return mechanism.randomise(means, noise)


def private_clip(
    data: np.ndarray, epsilon: float, noise: Noise, ledger: PrivacyLedger, name: str
) -> float:
    """A private median of the row norms on the logarithmic grid: the same mechanism and the
    same share of epsilon as g-DPPCA's automatic winsorization radius."""
    norms = np.linalg.norm(data, axis=1)
    level = safe_level(0.5, len(norms), epsilon, "log")
    quantile = GridQuantile("log", level, epsilon, noise.sampler, description="row norms")
    clip = quantile.release(norms, noise)
    quantile.record(ledger, f"{name}: clip norm", "baseline")
    return clip


def _shares(clip: Any, center: Any) -> tuple[float, float]:
    """The shares of epsilon spent on a private clip norm and on private centring."""
    clip_share = CLIP_SHARE if isinstance(clip, str) else 0.0
    center_share = {None: 0.0, "private": CENTER_SHARE, "bounded": BOUNDED_CENTER_SHARE}[center]
    return clip_share, center_share


def _check_tuning(
    clip: Any, center: Any, bounds: Any = None
) -> tuple[float | str, str | None, tuple[float, float] | None]:
    if isinstance(clip, str):
        clip = check_option(clip, "clip", ["private"])
    else:
        clip = check_real(clip, "clip", low=0.0)
    if center is not None:
        center = check_option(center, "center", ["private", "bounded"])
    if (center == "bounded") != (bounds is not None):
        raise ValueError(
            'center="bounded" needs bounds=(low, high), the public range of every coordinate, '
            f"and bounds apply only to it; got center={center!r}, bounds={bounds!r}."
        )
    if bounds is not None:
        low = check_real(bounds[0], "bounds[0]")
        high = check_real(bounds[1], "bounds[1]", low=low)
        bounds = (low, high)
    return clip, center, bounds


def _centered(
    data: np.ndarray,
    center: str | None,
    bounds: tuple[float, float] | None,
    budget: Budget,
    noise: Noise,
    ledger: PrivacyLedger,
    name: str,
) -> np.ndarray:
    """The rows minus a private centre (``budget``): coordinate medians or bounded means."""
    if center is None:
        return data
    if center == "bounded":
        assert bounds is not None  # checked by _check_tuning
        return data - bounded_center(data, bounds, budget, noise, ledger, name)
    return data - private_center(data, budget.epsilon, noise, ledger, name)


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
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
    clip, center, bounds = _check_tuning(clip, center, bounds)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    clip_share, center_share = _shares(clip, center)
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
    data = _centered(
        data, center, bounds, Budget(center_epsilon, center_delta), noise, ledger, "AG"
    )
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
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
    steps = check_positive_int(steps, "steps")
    step = check_option(step, "step", ["shrinking", "normalised"])
    default_size = 1.0 if step == "shrinking" else 0.5
    size = default_size if step_size is None else check_real(step_size, "step_size", low=0.0)
    _, center, bounds = _check_tuning(1.0, center, bounds)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    _, center_share = _shares(1.0, center)
    center_epsilon, descent_epsilon = split_epsilon(epsilon, [center_share, 1.0 - center_share])
    center_delta, descent_delta = (
        split_epsilon(delta, [center_share, 1.0 - center_share])
        if center == "bounded"
        else (0.0, delta)
    )
    n, d = data.shape
    ledger = PrivacyLedger()
    data = _centered(
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
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
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
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20000, 10)) * np.r_[np.sqrt(11.0), np.sqrt(11.0), np.ones(8)]
    >>> result = sgpca(X, 2, 1.0, 1e-8, model=SpikedModel((10.0, 10.0)), random_state=0)
    >>> bool(sin_theta(result.components, np.eye(10)[:, :2]) < 0.2)
    True
    """
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
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
    _, center_share = _shares(1.0, center)
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


def sklearn_pca(X: Any, k: int) -> np.ndarray:
    """Ordinary PCA (scikit-learn), the non-private ceiling: components as columns (d x k)."""
    from sklearn.decomposition import PCA

    data, _ = check_data(X)
    return PCA(n_components=check_positive_int(k, "k")).fit(data).components_.T


def diffprivlib_pca(
    X: Any, k: int, epsilon: float, *, data_norm: float, bounds: tuple, random_state: int = 0
) -> np.ndarray:
    """IBM diffprivlib's ``models.PCA`` (pure epsilon-DP; needs scikit-learn < 1.9).

    ``data_norm`` and ``bounds`` must be public. diffprivlib modifies its input in place, so it
    receives a copy.
    """
    from diffprivlib.models import PCA

    data, _ = check_data(X)
    model = PCA(
        n_components=k,
        epsilon=epsilon,
        data_norm=data_norm,
        bounds=bounds,
        random_state=random_state,
    )
    return model.fit(data.copy()).components_.T


def opendp_pca(X: Any, k: int, epsilon: float, *, row_norm: float) -> np.ndarray:
    """OpenDP's scikit-learn style PCA (pure epsilon-DP; needs ``opendp[scikit-learn]``)."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "idealized-numerics", "honest-but-curious")
    data, _ = check_data(X)
    model = dp.sklearn.decomposition.PCA(
        epsilon=epsilon,
        row_norm=row_norm,
        n_samples=data.shape[0],
        n_features=data.shape[1],
        n_components=k,
    )
    return model.fit(data).components_.T
