"""Each column's most frequent bin, released from Gaussian noise on the occupied bins' counts
kept above a public threshold: a location at any distance from the origin.

For ``d`` columns binned as in :mod:`dppca.numerics.bins`, replacing one row moves at most one
count down and one up by 1 in each column: the counts of all columns together have L2
sensitivity ``sqrt(2 d)``. Only occupied bins get noise (the domain of keys is unbounded), and a
noisy count is kept when it reaches the threshold ``T``; each column's mode is its largest kept
count (none: NaN).

Privacy (the stability histogram with Gaussian noise; Karwa and Vadhan 2018, Lebeda and
Retschmeier 2025). Let ``H`` be the same mechanism with noise on every bin occupied in either
neighbour, a Gaussian mechanism of sensitivity ``sqrt(2 d)``, accounted with the others in one
Gaussian budget. ``M(X)`` and ``H(X)`` share their noise and differ only when one of the at
most ``d`` bins occupied in ``X'`` but not in ``X`` passes ``T``; with ``T = sigma
sqrt(2 ln(d / delta_c))`` and Gaussian tails ``P[Z >= T] <= exp(-T^2 / (2 sigma^2))`` (the
discrete Gaussian is ``sigma^2``-subgaussian, Canonne, Kamath and Steinke 2020) that happens
with probability at most ``delta_c``, under either neighbour. This is the ``"coupling"`` loss
of :mod:`dppca.privacy.composition`: it adds ``(1 + e^epsilon) delta_c`` to the delta of the
composition.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.gaussian_budget import GaussianPart
from dppca.privacy.mechanisms import Noise

#: The share of a release's delta the library sets aside for its thresholds.
COUPLING_SHARE = 0.01
#: The threshold is computed from the noise sd this much larger: the discrete sampler's
#: parameter is rounded up by at most ``2^-39`` relatively.
THRESHOLD_MARGIN = 1.0 + 2.0**-30


@dataclass(frozen=True)
class ColumnModes:
    """Each of ``columns`` columns' most frequent bin (see the module docstring), within a
    release whose total epsilon is ``epsilon``: its thresholds spend ``delta``, a part of the
    release's delta set aside for them (``COUPLING_SHARE`` of it in the library's releases).
    ``epsilon`` must be at least the epsilon of everything released with it.

    Examples
    --------
    >>> modes = ColumnModes(columns=10, epsilon=1.0, delta=1e-8)
    >>> f"{modes.coupling:.3g}", round(modes.threshold(1.0), 2)
    ('2.69e-09', 6.64)
    """

    columns: int
    epsilon: float
    delta: float

    @property
    def coupling(self) -> float:
        """``delta_c = delta / (1 + e^epsilon)`` (rounded down): the chance that a bin occupied
        in one neighbour only passes the threshold, in either of them. Refused (ValueError)
        when it is not a positive normal float (public values, before any charge)."""
        if not self.usable:
            raise ValueError(
                f"epsilon={self.epsilon:g} with delta={self.delta:g} for a coarse location's "
                "thresholds leaves them no representable probability; use a larger delta or a "
                "smaller epsilon."
            )
        return self._coupling

    @property
    def _coupling(self) -> float:
        tail = math.exp(-self.epsilon)  # delta e^-epsilon / (1 + e^-epsilon), without overflow
        return self.delta * (1.0 - 2.0**-40) * tail / (1.0 + tail)

    @property
    def usable(self) -> bool:
        """Whether ``delta_c`` is a positive normal float (it is not at epsilon beyond about
        700, where no threshold can be set)."""
        return self._coupling >= sys.float_info.min

    @property
    def sensitivity(self) -> float:
        """The L2 sensitivity of all the columns' counts: ``sqrt(2 d)``."""
        return math.sqrt(2.0 * self.columns)

    def threshold(self, scale: float) -> float:
        """``T = sigma sqrt(2 ln(d / delta_c))`` for the noise sd ``scale`` (public)."""
        return THRESHOLD_MARGIN * scale * math.sqrt(2.0 * math.log(self.columns / self.coupling))

    @property
    def loss(self) -> PrivacyLoss:
        """The thresholds' coupling loss (the noise is the Gaussian budget's; where no
        threshold can be set the modes are never released, and it is ``delta_c`` as computed,
        0 or tiny)."""
        return PrivacyLoss("coupling", delta=self._coupling)

    def release(
        self, binned: list[tuple[np.ndarray, np.ndarray]], part: GaussianPart, noise: Noise
    ) -> np.ndarray:
        """Each column's key of the largest noisy count at or above the threshold (NaN when
        none is), from the occupied bins' ``(keys, counts)`` and a part of a Gaussian budget on
        integers of sensitivity :attr:`sensitivity`."""
        if not (part.integer and part.l2_sensitivity >= self.sensitivity):
            raise ValueError("the modes need an integer part of sensitivity sqrt(2 d).")
        threshold = self.threshold(part.scale)
        modes = np.full(len(binned), np.nan)
        for column, (keys, counts) in enumerate(binned):
            noisy = part.randomise(counts, noise)
            kept = noisy >= threshold
            if kept.any():
                modes[column] = keys[kept][np.argmax(noisy[kept])]
        return modes

    def record(
        self, ledger: PrivacyLedger, name: str, component: Component, *, used: bool
    ) -> LedgerEntry:
        """Enter the thresholds in ``ledger``: ``delta``, at least ``(1 + e^epsilon) delta_c``,
        at epsilon 0 (the noise is entered with its Gaussian budget); the plan reserves it, so
        it is entered whether the modes were ``used`` or not, and says which."""
        mechanism = "thresholds on the occupied bins' noisy counts (stability histogram)"
        if not used:
            mechanism = "reserved for thresholds on occupied bins (not used: no coarse location)"
        return ledger.record(
            name,
            mechanism,
            Budget(0.0, self.delta),
            component,
            (self.loss,),
        )
