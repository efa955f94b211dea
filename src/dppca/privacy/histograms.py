"""Private histograms of counts, where replacing one row moves one count down by 1 and another
up by 1: the additive Gaussian histogram, its thresholded form, and the stability histogram.

Their noise is drawn by :mod:`dppca.privacy.mechanisms`
(:class:`~dppca.privacy.mechanisms.GaussianMechanism` on the counts,
:func:`~dppca.privacy.mechanisms.laplace_counts`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import numpy as np

from dppca._validation import check_delta, check_epsilon, check_option
from dppca.numerics.sensitivity import HISTOGRAM_L1_SENSITIVITY, HISTOGRAM_L2_SENSITIVITY
from dppca.privacy.budget import Budget, Component, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.mechanisms import (
    GaussianMechanism,
    Noise,
    check_mechanism_settings,
    check_noise_scale,
    check_sampler,
    laplace_counts,
    sampler_label,
)


def stability_parameters(epsilon: float, delta: float) -> tuple[float, float]:
    """The sparse histogram's Laplace scale ``2 / epsilon`` (L1 sensitivity 2) and threshold
    ``1 + 2 ln(2 / delta) / epsilon``, in counts."""
    return HISTOGRAM_L1_SENSITIVITY / epsilon, 1.0 + 2.0 * math.log(2.0 / delta) / epsilon


#: The private histograms of counts: Gaussian on every cell kept at or above ``THRESHOLD_SDS``
#: noise sd, Gaussian on every cell clipped at 0, and the stability histogram.
HISTOGRAM_METHODS = ("thresholded", "add", "sparse")
#: The threshold of the ``"thresholded"`` histogram, in noise sd.
THRESHOLD_SDS = 3.0
_HISTOGRAM_NAMES = {
    "thresholded": (
        "Gaussian on all cells, kept at or above 3 sd ({calibration} calibration, "
        "L2 sensitivity sqrt 2)"
    ),
    "add": "Gaussian on all cells ({calibration} calibration, L2 sensitivity sqrt 2)",
    "sparse": "Laplace on occupied cells with threshold (stability histogram, L1 sensitivity 2)",
}


@dataclass(frozen=True)
class HistogramMechanism:
    """A private histogram of counts, where replacing one row moves one count down by 1 and
    another up by 1 (L2 sensitivity ``sqrt 2``, L1 sensitivity 2).

    ``"add"``: the additive Gaussian histogram (Wasserman and Zhou 2010), ``max(c_j + N(0,
    sigma^2), 0)`` on every cell, empty or not, ``sigma`` that of :class:`GaussianMechanism`.
    ``"thresholded"``: the same noisy counts, those below ``THRESHOLD_SDS`` sigma set to 0
    (post-processing). ``"sparse"``: the stability histogram (Karwa and Vadhan 2018),
    :func:`stability_histogram` with :func:`stability_parameters`.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca.privacy.histograms import HistogramMechanism
    >>> from dppca.privacy.mechanisms import Noise
    >>> mechanism = HistogramMechanism("thresholded", 1.0, 1e-6, calibration="classical")
    >>> round(mechanism.parameters["add_sigma"], 3)  # sqrt(2) sqrt(2 ln(1.25 / delta)) / epsilon
    7.494
    >>> noise = Noise("continuous", np.random.default_rng(0))
    >>> mechanism.randomise(np.array([0, 0, 500]), noise)[:2].tolist()  # empty cells stay 0
    [0.0, 0.0]
    """

    method: str
    epsilon: float
    delta: float
    sampler: str = "continuous"
    calibration: str = "analytic"

    def __post_init__(self) -> None:
        check_option(self.method, "method", HISTOGRAM_METHODS)
        check_mechanism_settings(self.epsilon, self.delta, self.sampler, self.calibration)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    @cached_property
    def gaussian(self) -> GaussianMechanism:
        """The Gaussian mechanism on the counts of ``"add"`` and ``"thresholded"``."""
        return GaussianMechanism(
            HISTOGRAM_L2_SENSITIVITY,
            1,
            self.epsilon,
            self.delta,
            self.sampler,
            calibration=self.calibration,
            integer=True,
        )

    @cached_property
    def parameters(self) -> dict[str, float]:
        """The public noise parameters, in counts: ``add_sigma`` (and ``add_threshold``), or
        ``sparse_scale`` and ``sparse_threshold``. Refuses scales that are not normal floats."""
        if self.method == "sparse":
            scale, threshold = stability_parameters(self.epsilon, self.delta)
            return {
                "sparse_scale": check_noise_scale(scale, "the sparse histogram"),
                "sparse_threshold": threshold,
            }
        sigma = check_noise_scale(self.gaussian.scale, "the additive histogram")
        if self.method == "add":
            return {"add_sigma": sigma}
        return {"add_sigma": sigma, "add_threshold": THRESHOLD_SDS * sigma}

    @property
    def description(self) -> str:
        """The mechanism's name in the ledger."""
        return _HISTOGRAM_NAMES[self.method].format(calibration=self.calibration)

    def randomise(self, counts: np.ndarray, noise: Noise) -> np.ndarray:
        """Non-negative noisy counts of one histogram."""
        counts = np.asarray(counts, dtype=np.float64)
        check_sampler(self.sampler, noise)
        if self.method == "sparse":
            parameters = self.parameters
            return stability_histogram(
                counts, parameters["sparse_scale"], parameters["sparse_threshold"], noise
            )
        raw = self.gaussian.randomise(counts, noise)
        if self.method == "add":
            return cast("np.ndarray", np.maximum(raw, 0.0))
        return np.where(raw >= self.parameters["add_threshold"], raw, 0.0)

    @property
    def loss(self) -> PrivacyLoss:
        """How the release composes: the Gaussian mechanism's, or (epsilon, delta) for the
        sparse method."""
        if self.method == "sparse":
            return PrivacyLoss("approximate", epsilon=self.epsilon, delta=self.delta)
        return self.gaussian.loss

    def record(self, ledger: PrivacyLedger, name: str, component: Component) -> LedgerEntry:
        """Enter the release in ``ledger``."""
        return ledger.record(
            name,
            sampler_label(self.description, self.sampler),
            Budget(self.epsilon, self.delta),
            component,
            (self.loss,),
        )


def stability_histogram(
    counts: np.ndarray, scale: float, threshold: float, noise: Noise
) -> np.ndarray:
    """Sparse, stability-based histogram (Karwa and Vadhan 2018).

    Only occupied cells get noise, ``c_j + Laplace(scale)``, clipped at 0 and set to 0 below
    ``threshold``; empty cells stay 0. With :func:`stability_parameters`, a cell that is empty in
    one neighbour and holds one row in the other passes the threshold with probability at most
    ``delta / 4`` (continuous) or ``delta / 2`` (discrete Laplace, ``P(Y >= m) = r^m / (1 + r)``),
    and at most two cells differ, so the release is (epsilon, delta)-DP. In proportions this is
    the R package's ``Laplace(2 / (n epsilon))`` with threshold
    ``1/n + 2 ln(2/delta) / (n epsilon)``.
    """
    noisy = np.zeros(counts.shape)
    occupied = counts > 0
    noisy[occupied] = np.maximum(laplace_counts(counts[occupied], scale, noise), 0.0)
    noisy[noisy < threshold] = 0.0
    return noisy
