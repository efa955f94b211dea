"""dppca: robust, differentially private PCA (g-DPPCA, Kim and Jung 2025) and private PCA plots.

Public API
----------
dp_pca          directions, scree and score histogram in one call (:class:`DPPCAResult`)
plan_pca        the budget each of dp_pca's releases will get, from n, p and the settings
                alone (:class:`PCAPlan`)
dp_loading      private principal directions (:class:`LoadingResult`)
dp_scree        private variances along private directions (:class:`ScreeResult`)
dp_score        a private 2-D histogram of PC scores on a private frame (:class:`ScoreResult`)
dp_frame        the private square frame of 2-D points (:class:`Frame`)
dp_quantile     Durfee's unbounded private quantile (:class:`PrivateQuantile`)
dp_scale        private robust scales of the variables, for data in mixed units
                (:class:`ScaleResult`)
sample_scores   synthetic score points from a private histogram (post-processing)
kendall_matrix  the non-private generalized Kendall's tau matrix, for study
DPPCA           the same as a scikit-learn transformer (imports scikit-learn when used)
dp_loading_plot, dp_scree_plot, dp_score_plot, dp_score_plot_group
                one call from data to a private release and its figure (:mod:`dppca.figures`)
LoadingSettings, ScreeSettings, ScoreSettings, NoiseSettings
                how each release is made and how its noise is drawn and accounted, checked
                once (:class:`PCASettings` holds one of each)
Budget          an (epsilon, delta) value; :class:`PCASplit` shares one between dp_pca's
                releases, :class:`PrivacyLedger` records every release and :class:`Accountant`
                enforces a total

Plots are display objects in :mod:`dppca.plotting` (every result has ``.plot(kind)``); the
mechanisms, calibrations and samplers are in :mod:`dppca.privacy`.
"""

from typing import TYPE_CHECKING

from dppca.exceptions import (
    BudgetExceededError,
    DetachedAccountantError,
    DurfeeStepLimitWarning,
    EmptyHistogramError,
    NoiseDominatedWarning,
    PrivacyWarning,
    UnlocatableError,
    UnreliableScaleError,
)
from dppca.numerics.rows import kendall_matrix
from dppca.pipeline import dp_pca
from dppca.planning import PCAPlan, PCASettings, plan_pca
from dppca.privacy.accountant import Accountant
from dppca.privacy.budget import Budget, PrivacyLedger
from dppca.privacy.settings import NoiseSettings
from dppca.privacy.split import PCASplit
from dppca.releases.frame import dp_frame
from dppca.releases.loading import LoadingSettings, dp_loading
from dppca.releases.quantile import dp_quantile
from dppca.releases.scale import dp_scale
from dppca.releases.scores import ScoreSettings, dp_score
from dppca.releases.scree import ScreeSettings, dp_scree
from dppca.results.frame import Frame
from dppca.results.loading import LoadingResult
from dppca.results.pca import DPPCAResult
from dppca.results.quantile import PrivateQuantile
from dppca.results.sampling import NoMassWarning, sample_scores
from dppca.results.scale import ScaleResult
from dppca.results.scores import ScoreResult
from dppca.results.scree import ScreeResult

__all__ = [
    "DPPCA",
    "Accountant",
    "Budget",
    "BudgetExceededError",
    "DPPCAResult",
    "DetachedAccountantError",
    "DurfeeStepLimitWarning",
    "EmptyHistogramError",
    "Frame",
    "LoadingResult",
    "LoadingSettings",
    "NoMassWarning",
    "NoiseDominatedWarning",
    "NoiseSettings",
    "PCAPlan",
    "PCASettings",
    "PCASplit",
    "PrivacyLedger",
    "PrivacyWarning",
    "PrivateQuantile",
    "ScaleResult",
    "ScoreResult",
    "ScoreSettings",
    "ScreeResult",
    "ScreeSettings",
    "UnlocatableError",
    "UnreliableScaleError",
    "dp_frame",
    "dp_loading",
    "dp_loading_plot",
    "dp_pca",
    "dp_quantile",
    "dp_scale",
    "dp_score",
    "dp_score_plot",
    "dp_score_plot_group",
    "dp_scree",
    "dp_scree_plot",
    "kendall_matrix",
    "plan_pca",
    "sample_scores",
]
__version__ = "0.3.0.dev0"

if TYPE_CHECKING:  # the lazy names' real types, for type checkers and editors
    from dppca.estimator import DPPCA
    from dppca.figures import (
        dp_loading_plot,
        dp_score_plot,
        dp_score_plot_group,
        dp_scree_plot,
    )


#: The one-call plots, imported from :mod:`dppca.figures` on first use.
_FIGURES = ("dp_loading_plot", "dp_scree_plot", "dp_score_plot", "dp_score_plot_group")


def __getattr__(name: str) -> object:
    """``DPPCA`` and the one-call plots are imported on first use, so that ``import dppca``
    loads neither scikit-learn nor the plotting modules."""
    if name == "DPPCA":
        from dppca.estimator import DPPCA

        return DPPCA
    if name in _FIGURES:
        from dppca import figures

        return getattr(figures, name)
    raise AttributeError(f"module 'dppca' has no attribute {name!r}")
