"""The result of a private quantile (:func:`~dppca.dp_quantile`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dppca.privacy.budget import PrivacyLedger


@dataclass(frozen=True)
class PrivateQuantile:
    """A released quantile: its value and the ledger of its (pure epsilon-DP) release.

    ``float(result)`` is the value.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> result = dppca.dp_quantile(np.arange(1000.0), 0.9, 1.0, lower=0.0, random_state=1)
    >>> bool(850 < float(result) < 950), result.q
    (True, 0.9)
    """

    value: float
    q: float
    privacy: PrivacyLedger = field(repr=False)

    def __float__(self) -> float:
        return self.value
