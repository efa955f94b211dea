"""Noise-adding mechanisms, with a continuous and a discrete (secure) sampler.

Every noise draw of the package happens here, from a :class:`Noise` source:

* ``"continuous"`` (default): numpy's floating-point samplers on the caller's ``random_state``
  (seedable, fast). Its guarantees are those of the idealised real-valued mechanisms.
* ``"discrete"``: exact integer samplers on a cryptographically secure stream keyed from the
  release's generator, which ``random_state=None`` seeds from the operating system's entropy
  (:mod:`dppca.privacy.discrete`). A real-valued statistic is first rounded to a public grid
  (``GRID_STEPS`` points per unit of sensitivity per coordinate), whose rounding is added to the
  sensitivity; counts need no grid. Gaussian noise is the discrete Gaussian, accounted by its
  zero-concentrated DP guarantee (Canonne, Kamath and Steinke 2020, Theorem 14: ``rho =
  Delta^2 / (2 sigma^2)``, converted to (epsilon, delta) by their Proposition 12); Laplace and
  exponential noise become the discrete Laplace and the one-sided geometric distribution, with
  the same pure epsilon. Nothing about the output depends on floating-point noise.

Each mechanism returns the noise scale it used (in the units of its output) so that callers can
record it next to the ledger entry.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from dppca._validation import (
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
    check_real,
)
from dppca.privacy.calibration import gaussian_multiplier, gdp_mu, zcdp_rho
from dppca.privacy.discrete import (
    SecureBits,
    gaussian_integers,
    laplace_integers,
    one_sided_geometric,
    rational_at_least,
    rational_at_most,
    uniform_below,
)

SAMPLERS = ("continuous", "discrete")
#: The largest noise scale accepted: its draws, and sums of them, stay finite floats.
MAX_NOISE_SCALE = 2.0**900
#: Real-valued statistics are clipped to this many grid steps (a public bound) before rounding,
#: so that their division by the grid step is exact to a quarter step.
GRID_LIMIT = 2.0**50
#: Relative margin on the discrete Gaussian's variance for the rounding of its computation.
_VARIANCE_MARGIN = 1.0 + 2.0**-40
#: Grid points per unit of L2 sensitivity per coordinate, for the discrete sampler: rounding (and
#: the rounding of the division by the grid step) adds at most ``2 sqrt(D)`` grid steps to a
#: ``D``-vector's sensitivity of ``GRID_STEPS sqrt(D)`` steps, so the noise grows by
#: ``2 / GRID_STEPS``.
GRID_STEPS = 2**10

#: L2 and L1 sensitivity of a histogram's count vector under replacement of one row: one count
#: goes down by 1 and another up by 1.
HISTOGRAM_L2_SENSITIVITY = math.sqrt(2.0)
HISTOGRAM_L1_SENSITIVITY = 2.0


class Noise:
    """The source of a release's noise.

    Parameters
    ----------
    sampler : {"continuous", "discrete"}
    rng : numpy.random.Generator
        The continuous sampler's noise, and every data-independent random choice (pairings,
        permutations) in either mode.

    Notes
    -----
    The discrete sampler's stream is keyed with 256 bits drawn from ``rng`` when the source is
    made: with ``random_state=None`` they come from the operating system's entropy; with a seed
    the noise is reproducible, as with the continuous sampler.
    """

    def __init__(self, sampler: str, rng: np.random.Generator) -> None:
        self.sampler = check_option(sampler, "sampler", SAMPLERS)
        self.rng = rng
        self._secure = SecureBits(rng.bytes(32)) if self.discrete else None

    @property
    def discrete(self) -> bool:
        return self.sampler == "discrete"

    @property
    def secure(self) -> SecureBits:
        if self._secure is None:
            raise RuntimeError("the continuous sampler has no secure source")
        return self._secure

    def bits(self, k: int) -> int:
        """``k`` uniform random bits as an integer in ``[0, 2^k)``: from the secure stream with
        the discrete sampler, from ``rng`` with the continuous one."""
        if self.discrete:
            return self.secure.bits(k)
        return int.from_bytes(self.rng.bytes((k + 7) >> 3), "little") & ((1 << k) - 1)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (``n >= 1``), exact by rejection on :meth:`bits`."""
        return uniform_below(self.bits, n)

    def label(self, mechanism: str) -> str:
        """A ledger description of ``mechanism`` under this sampler."""
        return f"{mechanism} [discrete, secure]" if self.discrete else mechanism


def resolve_sampler(sampler: Any, calibration: str = "analytic") -> str:
    """The sampler of a release: ``None`` (the default) is ``"discrete"``, except with the
    classical calibration (the paper's floating-point Gaussian), which is ``"continuous"`` by
    definition; an explicit ``"discrete"`` with the classical calibration is refused."""
    if sampler is None:
        return "continuous" if calibration == "classical" else "discrete"
    sampler = check_option(sampler, "sampler", SAMPLERS)
    if sampler == "discrete" and calibration == "classical":
        raise ValueError(
            "calibration='classical' (the paper's floating-point Gaussian) applies to "
            "sampler='continuous'; the discrete sampler is calibrated by zero-concentrated DP. "
            "Pass sampler='continuous' or calibration='analytic'."
        )
    return sampler


def make_noise(sampler: Any, random_state: Any) -> Noise:
    """Validate ``sampler`` (None: discrete) and ``random_state`` and build the noise source."""
    return Noise(resolve_sampler(sampler), check_random_state(random_state))


def as_noise(source: Noise | np.random.Generator) -> Noise:
    """A noise source: a :class:`Noise` as is, a Generator as the continuous sampler."""
    return source if isinstance(source, Noise) else Noise("continuous", source)


def check_noise_scale(scale: float, what: str) -> float:
    """Refuse a noise scale that is not a positive, finite, normal float.

    A zero, subnormal or infinite scale would release the data (almost) exactly or nothing at
    all, and subnormal arithmetic loses the noise's precision. Called with public values only,
    before any budget is charged.
    """
    if not (math.isfinite(scale) and sys.float_info.min <= scale <= MAX_NOISE_SCALE):
        raise ValueError(
            f"The noise scale of {what} would be {scale!r}, which is not a positive normal float "
            f"between {sys.float_info.min:.3g} and {MAX_NOISE_SCALE:.3g} (larger ones overflow "
            "their draws). Change epsilon, delta or the bounds, or rescale the data by a public "
            "constant."
        )
    return scale


def gaussian_scale(
    l2_sensitivity: float,
    dimension: int,
    epsilon: float,
    delta: float,
    sampler: str,
    *,
    calibration: str = "analytic",
    compositions: int = 1,
    integer: bool = False,
) -> float:
    """The noise standard deviation (in the statistic's units) of :func:`gaussian_vector`.

    Continuous: ``Delta sqrt(T) / mu(epsilon, delta)`` for ``T`` compositions (Gaussian DP), or
    ``Delta multiplier(epsilon, delta)`` under ``calibration`` when ``T = 1``. Discrete:
    ``Delta_grid grid / sqrt(2 rho / T)`` with ``rho`` from (epsilon, delta) and ``Delta_grid``
    the sensitivity in grid steps plus the rounding (no grid for ``integer`` statistics).
    """
    if sampler == "continuous":
        if compositions == 1:
            return l2_sensitivity * gaussian_multiplier(epsilon, delta, calibration)
        return l2_sensitivity * math.sqrt(compositions) / gdp_mu(epsilon, delta)
    grid, steps = _grid(l2_sensitivity, dimension, integer)
    sigma_steps = steps / math.sqrt(2.0 * zcdp_rho(epsilon, delta) / compositions)
    if not math.isfinite(sigma_steps**2 * _VARIANCE_MARGIN) or sigma_steps > MAX_NOISE_SCALE:
        raise ValueError(
            f"epsilon={epsilon:g} and delta={delta:g} need more noise than the discrete sampler "
            "can represent; use a larger budget."
        )
    return float(sigma_steps) * grid


def _grid(l2_sensitivity: float, dimension: int, integer: bool) -> tuple[float, float]:
    """The grid step and the sensitivity in grid steps: ``Delta / step`` plus up to one step per
    coordinate from rounding and up to half a step from rounding the division (the values are
    within ``GRID_LIMIT`` steps)."""
    if integer:
        return 1.0, l2_sensitivity
    root = math.sqrt(dimension)
    return l2_sensitivity / (GRID_STEPS * root), (GRID_STEPS + 2) * root


def gaussian_vector(
    values: np.ndarray,
    l2_sensitivity: float,
    epsilon: float,
    delta: float,
    noise: Noise,
    *,
    calibration: str = "analytic",
    compositions: int = 1,
    integer: bool = False,
) -> tuple[np.ndarray, float]:
    """The Gaussian mechanism on a vector of L2 sensitivity ``l2_sensitivity``.

    One of ``compositions`` equal steps that together spend (epsilon, delta). Continuous:
    ``values + N(0, sd^2)``. Discrete: ``values`` rounded to the grid (``integer``: already
    integers) plus discrete Gaussian noise, in the grid's units. Returns the release and ``sd``.
    """
    values = np.asarray(values, dtype=np.float64)
    sd = gaussian_scale(
        l2_sensitivity,
        values.size,
        epsilon,
        delta,
        noise.sampler,
        calibration=calibration,
        compositions=compositions,
        integer=integer,
    )
    if not noise.discrete:
        return values + noise.rng.standard_normal(values.shape) * sd, sd
    grid, _ = _grid(l2_sensitivity, values.size, integer)
    variance = rational_at_least((sd / grid) ** 2 * _VARIANCE_MARGIN)
    # Clipping to a public range is 1-Lipschitz in every coordinate: it keeps the sensitivity.
    rounded = np.rint(np.clip(values / grid, -GRID_LIMIT, GRID_LIMIT))
    draws = gaussian_integers(noise.secure, variance, values.size).reshape(values.shape)
    return (rounded + draws) * grid, sd


def laplace_counts(counts: np.ndarray, scale: float, noise: Noise) -> np.ndarray:
    """Counts plus Laplace noise of ``scale``: continuous Laplace, or the discrete Laplace with
    ``P(y) ∝ exp(-|y| / scale')``, ``scale' >= scale`` (the same pure epsilon or better)."""
    counts = np.asarray(counts, dtype=np.float64)
    if not noise.discrete:
        return counts + noise.rng.laplace(0.0, scale, size=counts.shape)
    draws = laplace_integers(noise.secure, rational_at_least(scale), counts.size)
    return counts + draws.reshape(counts.shape)


def exponential_noise(scale: float, size: int, noise: Noise) -> np.ndarray:
    """One-sided noise of ``scale`` for AboveThreshold: the exponential distribution, or the
    one-sided geometric with ``P(y) ∝ exp(-y / scale')``, ``scale' >= scale``."""
    if not noise.discrete:
        return noise.rng.exponential(scale, size=size)
    rate = rational_at_most(1.0 / scale)
    return np.array(
        [one_sided_geometric(noise.secure, rate.numerator, rate.denominator) for _ in range(size)],
        dtype=np.float64,
    )


def symmetric_gaussian_noise(p: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """A symmetric ``p x p`` Gaussian noise matrix in the ``vecd`` convention (continuous).

    ``vecd(Y) = (diag(Y), sqrt(2) offdiag_upper(Y))`` is an isometry from symmetric matrices with
    the Frobenius norm to ``R^{p(p+1)/2}`` with the Euclidean norm. Adding ``N(0, sigma^2 I)`` to
    ``vecd(K)`` and mapping back gives ``E`` with ``E_jj ~ N(0, sigma^2)`` and
    ``E_jl = E_lj ~ N(0, sigma^2 / 2)``, all independent on and above the diagonal
    (Kim and Jung 2025, Section 3).
    """
    p = check_positive_int(p, "p")
    sigma = check_real(sigma, "sigma", low=0.0, low_inclusive=True)
    draws = rng.standard_normal(p * (p + 1) // 2) * sigma
    return from_vecd(draws, p)


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


def stability_parameters(epsilon: float, delta: float) -> tuple[float, float]:
    """The sparse histogram's Laplace scale ``2 / epsilon`` (L1 sensitivity 2) and threshold
    ``1 + 2 ln(2 / delta) / epsilon``, in counts."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return HISTOGRAM_L1_SENSITIVITY / epsilon, 1.0 + 2.0 * math.log(2.0 / delta) / epsilon


def histogram_gaussian_sigma(
    epsilon: float, delta: float, calibration: str = "analytic", sampler: str = "continuous"
) -> float:
    """The additive histogram's noise on each count (L2 sensitivity ``sqrt 2`` of the count
    vector under replacement): ``sqrt(2) s(epsilon, delta)`` continuous, or the discrete
    Gaussian's ``sqrt(2) / sqrt(2 rho)``."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return gaussian_scale(
        HISTOGRAM_L2_SENSITIVITY, 1, epsilon, delta, sampler, calibration=calibration, integer=True
    )


def gaussian_counts(counts: np.ndarray, sigma: float, noise: Noise) -> np.ndarray:
    """Integer counts plus Gaussian noise of standard deviation ``sigma``: continuous, or the
    discrete Gaussian with variance parameter at least ``sigma^2``."""
    counts = np.asarray(counts, dtype=np.float64)
    if not noise.discrete:
        return counts + noise.rng.standard_normal(counts.shape) * sigma
    variance = rational_at_least(sigma**2 * _VARIANCE_MARGIN)
    draws = gaussian_integers(noise.secure, variance, counts.size)
    return counts + draws.reshape(counts.shape)


def gaussian_histogram(counts: np.ndarray, sigma: float, noise: Noise) -> np.ndarray:
    """Additive Gaussian histogram (Wasserman and Zhou 2010): ``max(c_j + N(0, sigma^2), 0)`` on
    every cell, empty or not, with ``sigma`` from :func:`histogram_gaussian_sigma`."""
    return np.maximum(gaussian_counts(counts, sigma, as_noise(noise)), 0.0)


def stability_histogram(
    counts: np.ndarray, scale: float, threshold: float, noise: Noise
) -> np.ndarray:
    """Sparse, stability-based histogram (Karwa and Vadhan 2018).

    Only occupied cells get noise, ``c_j + Laplace(scale)``, clipped at 0 and set to 0 below
    ``threshold``; empty cells stay 0. With :func:`stability_parameters`, a cell that is empty in
    one neighbour and holds one row in the other passes the threshold with probability at most
    ``delta / 4`` (continuous) or ``delta / 2`` (discrete Laplace, ``P(Y >= m) = r^m / (1 + r)``),
    and at most two cells differ, so the release is (epsilon, delta)-DP. In proportions this is
    seed 002's ``Laplace(2 / (n epsilon))`` with threshold ``1/n + 2 ln(2/delta) / (n epsilon)``.
    """
    noisy = np.zeros(counts.shape)
    occupied = counts > 0
    noisy[occupied] = np.maximum(laplace_counts(counts[occupied], scale, as_noise(noise)), 0.0)
    noisy[noisy < threshold] = 0.0
    return noisy
