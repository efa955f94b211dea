"""What every competitor shares: its result, the checks of its arguments, and the subspace
error metric."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dppca._validation import check_data, check_delta, check_epsilon, check_positive_int
from dppca.privacy.budget import PrivacyLedger


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


def check_inputs(X: Any, k: Any, epsilon: Any, delta: Any) -> tuple[np.ndarray, int, float, float]:
    """A competitor's validated data, ``k`` in ``[1, p]``, epsilon and delta."""
    data, _ = check_data(X)
    k = check_positive_int(k, "k")
    if k > data.shape[1]:
        raise ValueError(f"k must be an integer in [1, p={data.shape[1]}]; got {k}.")
    return data, k, check_epsilon(epsilon), check_delta(delta)
