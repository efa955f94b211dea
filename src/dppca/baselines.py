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
* :func:`projector_pca`: the Gaussian mechanism on the spectral projector of a truncated
  covariance (after Cai, Xia and Zha 2024), with a Davis-Kahan sensitivity bound.
* :func:`diffprivlib_pca`, :func:`opendp_pca`: adapters to the installed peer libraries.
* :func:`sklearn_pca`: ordinary PCA, the non-private ceiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
    return clip_share, CENTER_SHARE if center is not None else 0.0


def _check_tuning(clip: Any, center: Any) -> tuple[float | str, str | None]:
    if isinstance(clip, str):
        clip = check_option(clip, "clip", ["private"])
    else:
        clip = check_real(clip, "clip", low=0.0)
    if center is not None:
        center = check_option(center, "center", ["private"])
    return clip, center


def analyze_gauss(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    clip: float | str = "private",
    center: str | None = None,
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
    center : None or "private"
        ``"private"``: subtract private coordinate-wise medians first (:func:`private_center`,
        ``CENTER_SHARE`` of epsilon). AG is not translation invariant without it.

    Notes
    -----
    The Gaussian release gets the rest of epsilon and all of delta; the parts compose by
    basic composition and are each in the ledger.
    """
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
    clip, center = _check_tuning(clip, center)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    clip_share, center_share = _shares(clip, center)
    clip_epsilon, center_epsilon, gauss_epsilon = split_epsilon(
        epsilon, [clip_share, center_share, 1.0 - clip_share - center_share]
    )
    d = data.shape[1]
    mechanism = GaussianMechanism(
        math.sqrt(2.0), d * (d + 1) // 2, gauss_epsilon, delta, calibration=calibration
    )
    ledger = PrivacyLedger()
    if center is not None:
        data = data - private_center(data, center_epsilon, noise, ledger, "AG")
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
    center : None or "private"
        ``"private"``: subtract private coordinate-wise medians first (:func:`private_center`,
        ``CENTER_SHARE`` of epsilon); normalising about the origin is not translation invariant.

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
    _, center = _check_tuning(1.0, center)
    rng = check_random_state(random_state)
    noise = Noise("continuous", rng)
    _, center_share = _shares(1.0, center)
    center_epsilon, descent_epsilon = split_epsilon(epsilon, [center_share, 1.0 - center_share])
    n, d = data.shape
    ledger = PrivacyLedger()
    if center is not None:
        data = data - private_center(data, center_epsilon, noise, ledger, "NSGGD")
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    unit = np.divide(data, norms, out=np.zeros_like(data), where=norms > 0)
    # Each step: L2 sensitivity 2/n, steps composed in GDP: sigma = 2 sqrt(steps) / (n mu).
    mechanism = GaussianMechanism(2.0 / n, d * k, descent_epsilon, delta, compositions=steps)
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
    """Gaussian mechanism on the spectral projector of a truncated covariance (after Cai, Xia
    and Zha 2024, "Optimal differentially private PCA and estimation for spiked covariance
    matrices"), standing for the sub-Gaussian spiked-model methods ("SGPCA").

    Rows are clipped to norm ``truncation``; ``P = U U'`` from the top ``k`` eigenvectors of
    ``(1/n) X'X`` gets symmetric noise in the vecd convention (the Gaussian mechanism for the
    Frobenius norm, as in :func:`dppca.dp_loading`) and the result is the top ``k``
    eigenvectors of ``P + E``. Replacing a row ``y`` by ``x`` moves ``(1/n) X'X`` by
    ``E = (xx' - yy') / n``: its eigenvalues lie in ``[-T^2, T^2] / n`` (``T`` the truncation), so
    ``||E||_op <= T^2 / n`` and ``||E||_F <= sqrt(2) T^2 / n``. By Davis-Kahan (Yu, Wang and
    Samworth 2015, Theorem 2) ``||sin Theta||_F <= 2 min(sqrt(k) ||E||_op, ||E||_F) / eigengap``
    and ``||P - P'||_F = sqrt(2) ||sin Theta||_F``, so the sensitivity is
    ``2 sqrt(2) min(sqrt(k), sqrt(2)) T^2 / (n eigengap)`` (``4 T^2 / (n eigengap)`` for
    ``k >= 2``). This is our simplification of their sharper bound. It holds only if the sample
    eigen-gap
    ``lambda_k - lambda_(k+1)`` is at least ``eigengap``: a model parameter that must be known
    in advance (the critique of Kim and Jung 2025). A guess that is too large voids the
    guarantee; too small adds noise.
    """
    data, k, epsilon, delta = _check(X, k, epsilon, delta)
    truncation = check_real(truncation, "truncation", low=0.0)
    eigengap = check_real(eigengap, "eigengap", low=0.0)
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    rng = check_random_state(random_state)
    n, d = data.shape
    norms = np.linalg.norm(data, axis=1)
    clipped = data * np.minimum(1.0, truncation / np.maximum(norms, 1e-300))[:, None]
    _, vectors = descending_eigh(clipped.T @ clipped / n)
    projector = vectors[:, :k] @ vectors[:, :k].T
    sensitivity = 2.0 * math.sqrt(2.0) * min(math.sqrt(k), math.sqrt(2.0)) * truncation**2
    sensitivity /= n * eigengap
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
