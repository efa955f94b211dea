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
record it next to the ledger entry. The private histograms of counts, built on these, are in
:mod:`dppca.privacy.histograms`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import numpy as np

from dppca._validation import (
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_real,
)
from dppca.numerics.linalg import from_vecd, to_vecd
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.calibration import (
    CALIBRATIONS,
    gdp_mu_kernel,
    multiplier_kernel,
    zcdp_rho_kernel,
)
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.discrete import (
    SecureBits,
    one_sided_geometric,
    rational_at_least,
    rational_at_most,
    uniform_below,
)
from dppca.privacy.discrete_batch import gaussian_integers, laplace_integers

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
        return sampler_label(mechanism, self.sampler)


def check_sampler(sampler: str, noise: Noise) -> None:
    """Refuse a noise source of another sampler than the mechanism was calibrated for."""
    if noise.sampler != sampler:
        raise ValueError(f"this mechanism samples {sampler!r}; got {noise.sampler!r}.")


def sampler_label(mechanism: str, sampler: str) -> str:
    """A ledger description of ``mechanism`` under ``sampler``."""
    return f"{mechanism} [discrete, secure]" if sampler == "discrete" else mechanism


def check_mechanism_settings(epsilon: float, delta: float, sampler: str, calibration: str) -> None:
    """The invariants of a mechanism object: epsilon > 0, delta in (0, 1), a known sampler and
    calibration (a mechanism is a public building block; the releases build theirs from
    validated values)."""
    check_epsilon(epsilon)
    check_delta(delta)
    check_option(sampler, "sampler", SAMPLERS)
    check_option(calibration, "calibration", CALIBRATIONS)


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
    return cast("str", sampler)


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
    share: float = 1.0,
) -> float:
    """The noise standard deviation (in the statistic's units) of :class:`GaussianMechanism`.

    Continuous: ``Delta sqrt(T / f) / mu(epsilon, delta)`` for ``T`` compositions of a share
    ``f`` of the budget's ``mu^2`` (Gaussian DP), or ``Delta multiplier(epsilon, delta)`` under
    ``calibration`` when ``T = f = 1``. Discrete: ``Delta_grid grid / sqrt(2 rho f / T)`` with
    ``rho`` from (epsilon, delta) and ``Delta_grid`` the sensitivity in grid steps plus the
    rounding (no grid for ``integer`` statistics).
    """
    if sampler == "continuous":
        if compositions == 1 and share == 1.0:
            return l2_sensitivity * multiplier_kernel(epsilon, delta, calibration)
        return l2_sensitivity * math.sqrt(compositions / share) / gdp_mu_kernel(epsilon, delta)
    grid, steps = _grid(l2_sensitivity, dimension, integer)
    rho = zcdp_rho_kernel(epsilon, delta) * share / compositions
    sigma_steps = steps / math.sqrt(2.0 * rho)
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


def add_gaussian(
    values: np.ndarray, scale: float, l2_sensitivity: float, integer: bool, noise: Noise
) -> np.ndarray:
    """``values`` plus Gaussian noise of sd ``scale`` from ``noise``: numpy's normal draws, or
    (discrete) the values rounded to the public grid of their sensitivity plus exact discrete
    Gaussian integers of at least that variance."""
    values = np.asarray(values, dtype=np.float64)
    if not noise.discrete:
        return values + noise.rng.standard_normal(values.shape) * scale
    grid, _ = _grid(l2_sensitivity, values.size, integer)
    variance = rational_at_least((scale / grid) ** 2 * _VARIANCE_MARGIN)
    # Clipping to a public range is 1-Lipschitz in every coordinate: it keeps the sensitivity.
    rounded = np.rint(np.clip(values / grid, -GRID_LIMIT, GRID_LIMIT))
    draws = gaussian_integers(noise.secure, variance, values.size).reshape(values.shape)
    return cast("np.ndarray", (rounded + draws) * grid)


@dataclass(frozen=True)
class GaussianMechanism:
    """The Gaussian mechanism on a real vector of L2 sensitivity ``l2_sensitivity``.

    It owns its calibration (:attr:`scale`), its draw (:meth:`randomise`) and its ledger entry
    (:meth:`record`). It is one of ``compositions`` equal steps that together spend
    ``(epsilon, delta)``.

    Continuous sampler: ``values + N(0, scale^2 I)``, ``scale = Delta s(epsilon, delta)`` for one
    step (Balle and Wang 2018 under ``calibration="analytic"``, Dwork and Roth 2014 under
    ``"classical"``) or ``Delta sqrt(T) / mu(epsilon, delta)`` for ``T`` steps (Gaussian DP,
    Dong, Roth and Su 2022, Corollary 3.3). Discrete sampler: the values rounded to a public grid
    (``integer``: already integers) plus discrete Gaussian noise, accounted by zero-concentrated
    DP (Canonne, Kamath and Steinke 2020).

    Parameters
    ----------
    l2_sensitivity : float
        The largest L2 distance between the vectors of two neighbouring data sets.
    dimension : int
        The vector's length (the discrete sampler's grid depends on it).
    epsilon, delta : float
        What the ``compositions`` steps spend together.
    sampler : {"continuous", "discrete"}
    calibration : {"analytic", "classical"}
    compositions : int
    integer : bool
        Integer statistics (counts) need no grid.
    description : str
        The mechanism's name in the ledger.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.mechanisms import GaussianMechanism, Noise
    >>> from dppca.privacy.budget import PrivacyLedger
    >>> mechanism = GaussianMechanism(1.0, 3, 1.0, 1e-6, calibration="classical")
    >>> round(mechanism.scale, 4)  # sqrt(2 ln(1.25 / delta)) / epsilon
    5.2988
    >>> noise = Noise("continuous", np.random.default_rng(0))
    >>> mechanism.randomise(np.zeros(3), noise).shape
    (3,)
    >>> ledger = PrivacyLedger()
    >>> mechanism.record(ledger, "means", "scree").budget
    Budget(epsilon=1, delta=1e-06)
    """

    l2_sensitivity: float
    dimension: int
    epsilon: float
    delta: float
    sampler: str = "continuous"
    calibration: str = "analytic"
    compositions: int = 1
    integer: bool = False
    description: str = "Gaussian"

    def __post_init__(self) -> None:
        # The checked values (Python floats and ints) replace the given ones.
        check_mechanism_settings(self.epsilon, self.delta, self.sampler, self.calibration)
        checked = {
            "epsilon": check_epsilon(self.epsilon),
            "delta": check_delta(self.delta),
            "l2_sensitivity": check_real(self.l2_sensitivity, "l2_sensitivity", low=0.0),
            "dimension": check_positive_int(self.dimension, "dimension"),
            "compositions": check_positive_int(self.compositions, "compositions"),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @cached_property
    def scale(self) -> float:
        """The noise standard deviation, in the statistic's units (public values only)."""
        return gaussian_scale(
            self.l2_sensitivity,
            self.dimension,
            self.epsilon,
            self.delta,
            self.sampler,
            calibration=self.calibration,
            compositions=self.compositions,
            integer=self.integer,
        )

    @property
    def budget(self) -> Budget:
        """What the release spends, all its steps together."""
        return Budget(self.epsilon, self.delta)

    def randomise(self, values: np.ndarray, noise: Noise) -> np.ndarray:
        """One noisy step: ``values`` plus noise of :attr:`scale` from ``noise``."""
        check_sampler(self.sampler, noise)
        return add_gaussian(values, self.scale, self.l2_sensitivity, self.integer, noise)

    def randomise_symmetric(self, matrix: np.ndarray, noise: Noise) -> np.ndarray:
        """A symmetric matrix released through ``vecd``.

        ``vecd(Y) = (diag(Y), sqrt(2) offdiag_upper(Y))`` is an isometry from the Frobenius norm
        to the Euclidean one, so the noise ``E`` has ``E_jj ~ N(0, scale^2)`` and
        ``E_jl = E_lj ~ N(0, scale^2 / 2)`` (Kim and Jung 2025, Section 3).
        """
        return from_vecd(self.randomise(to_vecd(matrix), noise), matrix.shape[0])

    @property
    def loss(self) -> PrivacyLoss:
        """How the release composes (all steps): continuous noise is ``mu``-GDP with
        ``mu = Delta sqrt(T) / scale``; discrete noise is ``rho``-zCDP with the ``rho`` it was
        calibrated to."""
        if self.sampler == "continuous":
            mu = self.l2_sensitivity * math.sqrt(self.compositions) / self.scale
            return PrivacyLoss("gaussian", mu=mu)
        return PrivacyLoss("zcdp", rho=zcdp_rho_kernel(self.epsilon, self.delta))

    def record(self, ledger: PrivacyLedger, name: str, component: Component) -> LedgerEntry:
        """Enter the release (all ``compositions`` steps) in ``ledger``."""
        label = sampler_label(self.description, self.sampler)
        return ledger.record(name, label, self.budget, component, (self.loss,))


def laplace_counts(counts: np.ndarray, scale: float, noise: Noise) -> np.ndarray:
    """Counts plus Laplace noise of ``scale``: continuous Laplace, or the discrete Laplace with
    ``P(y) ∝ exp(-|y| / scale')``, ``scale' >= scale`` (the same pure epsilon or better)."""
    counts = np.asarray(counts, dtype=np.float64)
    if not noise.discrete:
        return counts + noise.rng.laplace(0.0, scale, size=counts.shape)
    draws = laplace_integers(noise.secure, rational_at_least(scale), counts.size)
    return cast("np.ndarray", counts + draws.reshape(counts.shape))


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
