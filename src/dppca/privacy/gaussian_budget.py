"""One Gaussian budget spent by several Gaussian mechanisms chosen as the release goes.

Gaussian mechanisms with noise multipliers ``mu_t`` compose adaptively to
``sqrt(sum mu_t^2)``-GDP (Dong, Roth and Su 2022, Corollary 3.3), and zero-concentrated ones to
``sum rho_t``-zCDP (Bun and Steinke 2016, Lemma 2.3), whatever the earlier outputs chose about
the later mechanisms, as long as the shares of ``mu^2`` (or ``rho``) add up to at most 1. A
:class:`GaussianBudget` is that total, calibrated once from (epsilon, delta); its
:meth:`~GaussianBudget.part` gives the mechanism of one share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dppca.numerics.linalg import from_vecd, to_vecd
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.calibration import gdp_mu_kernel, zcdp_rho_kernel
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.mechanisms import (
    Noise,
    add_gaussian,
    check_mechanism_settings,
    check_sampler,
    gaussian_scale,
    sampler_label,
)

#: Every share is used this much smaller (the noise ``2^-41`` relatively larger), a margin for
#: the rounding of the shares' arithmetic.
SHARE_MARGIN = 1.0 - 2.0**-40


@dataclass(frozen=True)
class GaussianPart:
    """The Gaussian mechanism of one share of a :class:`GaussianBudget`: noise of sd
    :attr:`scale` on a vector of L2 sensitivity ``l2_sensitivity``."""

    l2_sensitivity: float
    dimension: int
    share: float
    scale: float
    sampler: str
    #: Integer values (counts): the discrete sampler adds integers to them, on no grid, and
    #: their number is free (the scale does not depend on it).
    integer: bool = False

    def randomise(self, values: np.ndarray, noise: Noise) -> np.ndarray:
        """``values`` plus the share's noise."""
        check_sampler(self.sampler, noise)
        if not self.integer and np.size(values) != self.dimension:  # the grid assumes it
            raise ValueError(f"this part releases {self.dimension} values; got {np.size(values)}.")
        return add_gaussian(values, self.scale, self.l2_sensitivity, self.integer, noise)

    def randomise_symmetric(self, matrix: np.ndarray, noise: Noise) -> np.ndarray:
        """A symmetric matrix through ``vecd`` (an isometry from the Frobenius norm):
        ``E_jj ~ N(0, scale^2)``, ``E_jl ~ N(0, scale^2 / 2)``."""
        return from_vecd(self.randomise(to_vecd(matrix), noise), matrix.shape[0])


@dataclass(frozen=True)
class GaussianBudget:
    """(epsilon, delta) spent by adaptively composed Gaussian mechanisms, each a share of it.

    Continuous sampler: a share ``f`` is ``mu sqrt(f)``-GDP with ``mu = mu(epsilon, delta)``,
    the exact Gaussian-DP multiplier of (epsilon, delta), so shares adding up to 1 are ``mu``-GDP
    together. Discrete sampler: a share is ``f rho``-zCDP with ``rho`` from (epsilon, delta)
    (Canonne, Kamath and Steinke 2020, Proposition 12), on the public grid of its sensitivity.

    Parameters
    ----------
    epsilon, delta : float
    sampler : {"continuous", "discrete"}
    description : str
        The mechanisms' name in the ledger.

    Examples
    --------
    >>> budget = GaussianBudget(1.0, 1e-6, "continuous")
    >>> whole = budget.part(1.0, 3, 1.0).scale
    >>> round(budget.part(1.0, 3, 0.25).scale / whole, 12)  # a quarter of mu^2: twice the noise
    2.0
    """

    epsilon: float
    delta: float
    sampler: str = "continuous"
    description: str = "Gaussian"

    def __post_init__(self) -> None:
        check_mechanism_settings(self.epsilon, self.delta, self.sampler, "analytic")

    @property
    def strength(self) -> float:
        """The noise multiplier of the whole budget: ``mu`` (continuous), or ``sqrt(2 rho)``
        (discrete, the multiplier of the same zCDP guarantee); a share ``f`` has ``sqrt(f)``
        times it."""
        if self.sampler == "continuous":
            return gdp_mu_kernel(self.epsilon, self.delta)
        return math.sqrt(2.0 * zcdp_rho_kernel(self.epsilon, self.delta))

    def part(
        self, l2_sensitivity: float, dimension: int, share: float, *, integer: bool = False
    ) -> GaussianPart:
        """The mechanism of a ``share`` (in ``(0, 1]``) of the budget on a ``dimension``-vector
        of L2 sensitivity ``l2_sensitivity`` (public values), or on ``integer`` values of any
        number. Each share is taken ``SHARE_MARGIN`` smaller, so that shares whose
        floating-point sum exceeds 1 by a few units in the last place still compose within the
        budget."""
        scale = gaussian_scale(
            l2_sensitivity,
            dimension,
            self.epsilon,
            self.delta,
            self.sampler,
            share=share * SHARE_MARGIN,
            integer=integer,
        )
        return GaussianPart(l2_sensitivity, dimension, share, scale, self.sampler, integer)

    @property
    def budget(self) -> Budget:
        return Budget(self.epsilon, self.delta)

    @property
    def loss(self) -> PrivacyLoss:
        """How the parts compose, all shares together: ``mu``-GDP or ``rho``-zCDP."""
        if self.sampler == "continuous":
            return PrivacyLoss("gaussian", mu=self.strength)
        return PrivacyLoss("zcdp", rho=zcdp_rho_kernel(self.epsilon, self.delta))

    def record(self, ledger: PrivacyLedger, name: str, component: Component) -> LedgerEntry:
        """Enter every part (the whole budget) in ``ledger``."""
        label = sampler_label(f"{self.description} (adaptive shares of one budget)", self.sampler)
        return ledger.record(name, label, self.budget, component, (self.loss,))
