"""The private plotting frame of a score histogram (seed 002, Section 2; SPEC 3.2).

Three pure-DP Durfee quantiles, ``epsilon_F / 3`` each: the two coordinate medians (two-sided)
give the centre ``c``; the one-sided 0.99 quantile (lower bound 0) of the distances
``||s_i - c||`` gives ``R``. The frame is the square ``c +- (1 + inflate) R``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dppca._validation import check_data, check_epsilon, check_real
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, PrivacyLedger, split_epsilon
from dppca.privacy.mechanisms import Noise, as_noise, make_noise
from dppca.privacy.quantiles import (
    check_search_epsilon,
    durfee_signed_quantile,
    durfee_upper_quantile,
)

DEFAULT_INFLATE = 0.2
RADIAL_LEVEL = 0.99


@dataclass(frozen=True)
class Frame:
    """A square private frame.

    Attributes
    ----------
    center : ndarray of shape (2,)
        Private coordinate medians.
    radius : float
        Half-width after inflation, ``(1 + inflate) * quantile_radius``.
    quantile_radius : float
        The private 0.99 quantile of the distances from the centre.
    inflate : float
    privacy : PrivacyLedger
        The three quantile releases.
    """

    center: np.ndarray
    radius: float
    quantile_radius: float
    inflate: float
    privacy: PrivacyLedger = field(repr=False)

    @property
    def xlim(self) -> tuple[float, float]:
        return (float(self.center[0] - self.radius), float(self.center[0] + self.radius))

    @property
    def ylim(self) -> tuple[float, float]:
        return (float(self.center[1] - self.radius), float(self.center[1] + self.radius))

    def limits(self, center: bool = False) -> tuple[tuple[float, float], tuple[float, float]]:
        """``(xlim, ylim)``; with ``center=True`` shifted by the private centre (display only)."""
        if not center:
            return self.xlim, self.ylim
        return (-self.radius, self.radius), (-self.radius, self.radius)


def private_frame(
    scores: np.ndarray,
    epsilon: float,
    noise: Noise | np.random.Generator,
    *,
    inflate: float = DEFAULT_INFLATE,
    labels: tuple[str, str] = ("x", "y"),
    prefix: str = "frame",
) -> Frame:
    """The frame of validated ``(n, 2)`` scores, spending ``epsilon`` (delta 0)."""
    noise = as_noise(noise)
    thirds = split_epsilon(epsilon, [1 / 3, 1 / 3, 1 / 3])
    ledger = PrivacyLedger()
    center = np.empty(2)
    for axis in range(2):
        center[axis] = durfee_signed_quantile(scores[:, axis], 0.5, thirds[axis], noise)
        ledger.record(
            f"{prefix}: centre {labels[axis]}",
            noise.label("Durfee two-sided quantile (median)"),
            Budget(thirds[axis], 0.0),
        )
    with np.errstate(over="ignore"):  # beyond the largest float: clamped by the search
        distances = np.hypot(scores[:, 0] - center[0], scores[:, 1] - center[1])
    quantile_radius = durfee_upper_quantile(distances, RADIAL_LEVEL, thirds[2], noise, lower=0.0)
    ledger.record(
        f"{prefix}: radius",
        noise.label(f"Durfee one-sided quantile (level {RADIAL_LEVEL}, lower 0)"),
        Budget(thirds[2], 0.0),
    )
    return Frame(
        center=center,
        radius=(1.0 + inflate) * quantile_radius,
        quantile_radius=quantile_radius,
        inflate=inflate,
        privacy=ledger,
    )


def dp_frame(
    scores: Any,
    epsilon: float,
    *,
    inflate: float = DEFAULT_INFLATE,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
) -> Frame:
    """A square private frame for two-dimensional points (pure epsilon-DP).

    Parameters
    ----------
    scores : array-like of shape (n, 2)
        The points, for example PC scores. ``n`` is public.
    epsilon : float
        Budget (> 0), split in thirds: two coordinate medians (two-sided Durfee quantiles) and
        the 0.99 quantile of the distances from that centre (one-sided, lower bound 0).
    inflate : float, default 0.2
        The half-width is ``(1 + inflate) R``.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with (epsilon, 0) before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.

    Returns
    -------
    Frame
    """
    data, names = check_data(scores, "scores")
    if data.shape[1] != 2:
        raise ValueError(f"scores must have exactly 2 columns; got {data.shape[1]}.")
    epsilon = check_epsilon(epsilon)
    inflate = check_real(inflate, "inflate", low=0.0, high=1e3, low_inclusive=True)
    check_search_epsilon(epsilon / 6.0, "the frame's two-sided medians")
    noise = make_noise(sampler, random_state)
    charge(accountant, Budget(epsilon, 0.0), "dp_frame")
    return private_frame(data, epsilon, noise, inflate=inflate, labels=(names[0], names[1]))
