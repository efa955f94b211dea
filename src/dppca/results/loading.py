"""The private directions' result, and the non-private reference computed on request."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca.numerics.linalg import (
    pc_labels,
)
from dppca.privacy.budget import (
    PrivacyLedger,
)
from dppca.results.status import ReleaseStatus


@dataclass(frozen=True)
class NonPrivateLoading:
    """Non-private references, computed only on request (``non_private=True``).

    These are **not** differentially private releases. Columns are sign-aligned to the private
    directions.

    Attributes
    ----------
    kendall : ndarray of shape (p, p)
        The exact Kendall matrix.
    kendall_directions : ndarray of shape (p, p)
        Its eigenvectors, descending.
    directions : ndarray of shape (p, p)
        Ordinary PCA: eigenvectors of the sample covariance matrix, descending (the same name
        and meaning as in :class:`~dppca.results.pca.NonPrivatePCA`).
    eigenvalues : ndarray of shape (p,)
        Their eigenvalues, clipped at 0.
    """

    kendall: np.ndarray
    kendall_directions: np.ndarray
    directions: np.ndarray
    eigenvalues: np.ndarray


@dataclass(frozen=True)
class LoadingResult:
    """Private principal directions and how they were made.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Columns are the private directions, by descending eigenvalue of the noisy Kendall matrix,
        each with its largest-magnitude entry positive.
    kendall : ndarray of shape (p, p)
        The released noisy Kendall matrix ``K + E`` (the output of the Gaussian mechanism).
    kendall_eigenvalues : ndarray of shape (p,)
        Eigenvalues of the noisy Kendall matrix (post-processing of the release).
    sigma : float
        Standard deviation of the diagonal noise (off-diagonal: ``sigma / sqrt(2)``).
    sensitivity : float
        Frobenius sensitivity used.
    radius : float or None
        The winsorization radius or declared bound (``||g||_inf``); None for spherical signs.
    feature_names : list of str
    n_samples : int
    settings : dict
    privacy : PrivacyLedger
    non_private : NonPrivateLoading or None
    status : dict of str to ReleaseStatus
        ``status["directions"]`` is ``"misplaced"`` when the statistic's private centre was not
        located (the directions and eigenvalues are then NaN); ok otherwise.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_loading(X, 2.0, 1e-6, random_state=1)
    >>> result.loadings.columns.tolist()
    ['PC1', 'PC2', 'PC3']
    >>> bool(result.sigma > 0), result.radius is None  # spherical signs need no radius
    (True, True)
    """

    directions: np.ndarray
    kendall: np.ndarray = field(repr=False)
    kendall_eigenvalues: np.ndarray
    sigma: float
    sensitivity: float
    radius: float | None
    feature_names: list[str]
    n_samples: int
    settings: dict[str, Any]
    privacy: PrivacyLedger = field(repr=False)
    non_private: NonPrivateLoading | None = field(default=None, repr=False)
    #: Whether the directions are usable (:class:`~dppca.results.status.ReleaseStatus`).
    status: dict[str, ReleaseStatus] = field(
        default_factory=lambda: {"directions": ReleaseStatus()}
    )

    @property
    def directions_status(self) -> ReleaseStatus:
        """The directions' status (``status["directions"]``)."""
        return self.status["directions"]

    def plot(self, kind: str = "loading", **options: Any) -> Any:
        """Draw the release and return its display (:mod:`dppca.plotting`).

        ``kind`` in ``("loading", "heatmap")``; ``options`` as for :meth:`dppca.DPPCAResult.plot`.
        Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, ("loading", "heatmap"), **options)

    @property
    def loadings(self) -> pd.DataFrame:
        """The directions as a DataFrame: index = variable names, columns ``PC1..PCp``."""
        columns = pc_labels(self.directions.shape[1])
        return pd.DataFrame(self.directions, index=self.feature_names, columns=columns)

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): facts, the first loadings and the ledger."""
        facts = [
            ("data", f"{self.n_samples} observations x {len(self.feature_names)} variables"),
            ("sign", f"{self.settings['transform']}, noise sd {self.sigma:.4g}"),
        ]
        shown = self.loadings.iloc[:, : min(3, self.loadings.shape[1])]
        tables = [
            ("Private loadings", shown),
            ("Privacy budget spent", self.privacy.budget_table()),
        ]
        return card("Private principal directions (g-DPPCA)", facts, tables)

    def __repr__(self) -> str:
        total = self.privacy.total
        return (
            f"LoadingResult(n_samples={self.n_samples}, n_features={len(self.feature_names)}, "
            f"transform={self.settings['transform']!r}, sigma={self.sigma:.4g}, "
            f"privacy spent: epsilon={total.epsilon:.4g}, delta={total.delta:.4g})"
        )


def unusable_loading(result: LoadingResult) -> LoadingResult:
    """``result`` as released to the caller: with its directions, eigenvalues and matrix NaN
    when its status says they are not usable (the reason stays in ``status``)."""
    if result.directions_status.usable:
        return result
    return replace(
        result,
        directions=np.full_like(result.directions, np.nan),
        kendall=np.full_like(result.kendall, np.nan),
        kendall_eigenvalues=np.full_like(result.kendall_eigenvalues, np.nan),
    )
