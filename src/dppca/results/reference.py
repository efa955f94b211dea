"""Ordinary PCA of the same data, the non-private reference of :func:`dppca.dp_pca`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class NonPrivatePCA:
    """Ordinary PCA of the same data, computed only on request. **Not** differentially private.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Eigenvectors of the sample covariance, descending, each sign-aligned to the private
        direction of the same rank.
    eigenvalues : ndarray of shape (k,)
        The top ``k`` eigenvalues (clipped at 0).
    pve : ndarray of shape (k,)
        Normalised over the ``k`` components, as the private PVE.
    scores : DataFrame of shape (n, 2)
        Every row's coordinates on the two plotted ordinary-PCA axes (uncentred, like the
        private ones), with ``group`` when groups were given.
    histogram : DataFrame
        Empirical histogram of those scores on the private frame's grid.
    groups : dict or None
        Per group, the empirical histogram normalised within the group.
    variable_sd : ndarray of shape (p,)
        Sample standard deviations of the variables.
    """

    directions: np.ndarray
    eigenvalues: np.ndarray
    pve: np.ndarray
    scores: pd.DataFrame
    histogram: pd.DataFrame
    groups: dict[Any, pd.DataFrame] | None
    variable_sd: np.ndarray
