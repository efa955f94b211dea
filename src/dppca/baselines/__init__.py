"""Competitor private PCA methods for benchmarks, and the subspace error metric.

All take data ``X`` (n x d), a target dimension ``k`` and a budget, and return a
:class:`BaselineResult` with ``components`` of shape (d, k) (orthonormal columns). Neighbouring
data sets differ by the replacement of one row, as for g-DPPCA. Each method's public tuning
(clip norm, truncation level, eigen-gap, steps) is an argument: a user must supply it from
outside knowledge, and a wrong value either biases the result or breaks the guarantee (see each
docstring).

* :func:`analyze_gauss` (``second_moment``): Dwork, Talwar, Thakurta and Zhang (2014),
  "Analyze Gauss".
* :func:`nsggd` (``geodesic``): noisy geodesic gradient descent on the Grassmannian for the
  robust subspace recovery energy of sphere-normalised rows (after Maunu, Yu and Lerman 2022).
* :func:`sgpca` (``spiked``): the Gaussian mechanism on the spectral projector with a
  sensitivity from the spiked model's parameters (the form of Cai, Xia and Zha 2024): private
  only under that model, with oracle parameters.
* :func:`projector_pca` (``projector``): the same mechanism with the worst-case sensitivity of a
  truncated covariance, private for any data once its eigen-gap guess holds.
* :func:`diffprivlib_pca`, :func:`opendp_pca` (``peers``): adapters to the installed peer
  libraries; :func:`sklearn_pca`: ordinary PCA, the non-private ceiling.

``common`` holds the result, the checks and :func:`sin_theta`; ``tuning`` the private clip norm
and centre a knowledgeable user would give a competitor.
"""

from dppca.baselines.common import BaselineResult, sin_theta
from dppca.baselines.geodesic import nsggd
from dppca.baselines.peers import diffprivlib_pca, opendp_pca, sklearn_pca
from dppca.baselines.projector import projector_pca, projector_sensitivity
from dppca.baselines.second_moment import analyze_gauss
from dppca.baselines.spiked import (
    SGPCA_BOUNDS,
    SpikedModel,
    sgpca,
    spiked_model_bounds,
    spiked_model_rate_sensitivity,
)
from dppca.baselines.tuning import (
    BOUNDED_CENTER_SHARE,
    CENTER_SHARE,
    CLIP_SHARE,
    bounded_center,
    private_center,
    private_clip,
)

__all__ = [
    "BOUNDED_CENTER_SHARE",
    "CENTER_SHARE",
    "CLIP_SHARE",
    "SGPCA_BOUNDS",
    "BaselineResult",
    "SpikedModel",
    "analyze_gauss",
    "bounded_center",
    "diffprivlib_pca",
    "nsggd",
    "opendp_pca",
    "private_center",
    "private_clip",
    "projector_pca",
    "projector_sensitivity",
    "sgpca",
    "sin_theta",
    "sklearn_pca",
    "spiked_model_bounds",
    "spiked_model_rate_sensitivity",
]
