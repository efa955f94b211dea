"""Adapters to the peer libraries (diffprivlib, OpenDP) and ordinary PCA (scikit-learn), the
non-private ceiling; each is imported only when called."""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca._validation import check_data, check_positive_int


def sklearn_pca(X: Any, k: int) -> np.ndarray:
    """Ordinary PCA (scikit-learn), the non-private ceiling: components as columns (d x k)."""
    from sklearn.decomposition import PCA

    data, _ = check_data(X)
    return PCA(n_components=check_positive_int(k, "k")).fit(data).components_.T


def diffprivlib_pca(
    X: Any, k: int, epsilon: float, *, data_norm: float, bounds: tuple, random_state: int = 0
) -> np.ndarray:
    """IBM diffprivlib's ``models.PCA`` (pure epsilon-DP; needs scikit-learn < 1.9).

    ``data_norm`` and ``bounds`` must be public. diffprivlib modifies its input in place, so it
    receives a copy.
    """
    from diffprivlib.models import PCA

    data, _ = check_data(X)
    model = PCA(
        n_components=k,
        epsilon=epsilon,
        data_norm=data_norm,
        bounds=bounds,
        random_state=random_state,
    )
    return model.fit(data.copy()).components_.T


def opendp_pca(X: Any, k: int, epsilon: float, *, row_norm: float) -> np.ndarray:
    """OpenDP's scikit-learn style PCA (pure epsilon-DP; needs ``opendp[scikit-learn]``)."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "idealized-numerics", "honest-but-curious")
    data, _ = check_data(X)
    model = dp.sklearn.decomposition.PCA(
        epsilon=epsilon,
        row_norm=row_norm,
        n_samples=data.shape[0],
        n_features=data.shape[1],
        n_components=k,
    )
    return model.fit(data).components_.T
