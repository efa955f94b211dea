"""The result of a private scree (:func:`~dppca.dp_scree`) and its non-private reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca.numerics.linalg import pc_labels
from dppca.privacy.budget import (
    PrivacyLedger,
)
from dppca.results.loading import LoadingResult


@dataclass(frozen=True)
class NonPrivateScree:
    """Non-private references (on request). **Not** differentially private.

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        Ordinary PCA: the top ``k`` eigenvalues of the sample covariance (clipped at 0).
    pve : ndarray of shape (k,)
        Their proportions over the ``k`` components.
    variances : ndarray of shape (k,)
        Sample variances of the scores along the directions used.
    """

    eigenvalues: np.ndarray
    pve: np.ndarray
    variances: np.ndarray


@dataclass(frozen=True)
class ScreeResult:
    """Private scree values and proportions of variance explained.

    Attributes
    ----------
    values : dict of str to ndarray of shape (k,)
        Per method, the private variances along the first ``k`` directions (after ``mono``).
    pve : dict of str to ndarray of shape (k,)
        ``values / sum(values)`` (normalised over the ``k`` estimated components).
    k : int
    directions : ndarray of shape (p, p)
    feature_names : list of str
    n_samples : int
    settings : dict
        The controls and, per method, its (private) clip levels, quantiles or scales and noise sd.
    privacy : PrivacyLedger
    loading : LoadingResult or None
    non_private : NonPrivateScree or None

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_scree(X, 3, 2.0, 1e-6, directions=np.eye(3), random_state=1)
    >>> result.to_frame().columns.tolist(), result.k
    (['clipped'], 3)
    """

    values: dict[str, np.ndarray]
    pve: dict[str, np.ndarray]
    k: int
    directions: np.ndarray = field(repr=False)
    feature_names: list[str] = field(repr=False)
    n_samples: int = 0
    settings: dict[str, Any] = field(default_factory=dict, repr=False)
    privacy: PrivacyLedger = field(default_factory=PrivacyLedger, repr=False)
    loading: LoadingResult | None = field(default=None, repr=False)
    non_private: NonPrivateScree | None = field(default=None, repr=False)

    def plot(self, kind: str = "scree", **options: Any) -> Any:
        """Draw the release and return its display (:mod:`dppca.plotting`).

        ``kind`` in ``("scree",)``; ``options`` as for :meth:`dppca.DPPCAResult.plot`.
        Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, ("scree",), **options)

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): the scree per method and the ledger."""
        facts = [("data", f"{self.n_samples} observations, {self.k} components")]
        tables = [
            ("Private scree", self.to_frame()),
            ("Privacy budget spent", self.privacy.budget_table()),
        ]
        return card("Private scree", facts, tables)

    def to_frame(self) -> pd.DataFrame:
        """Scree values per method (columns) and component (index ``PC1..PCk``)."""
        index = pc_labels(self.k)
        return pd.DataFrame(self.values, index=index)
