"""dppca: robust, differentially private PCA (g-DPPCA, Kim and Jung 2025) and private PCA plots.

Public API
----------
dp_pca          directions, scree and score histogram in one call (:class:`DPPCAResult`)
dp_loading      private principal directions (returns a :class:`LoadingResult`)
dp_scree        private variances along private directions (:class:`ScreeResult`)
dp_score        a private 2-D histogram of PC scores on a private frame (:class:`ScoreResult`)
sample_scores   synthetic score points from a private histogram (post-processing)
dp_quantile     Durfee's unbounded private quantile; dp_frame, the private square frame
DPPCA           the same as a scikit-learn transformer
kendall_matrix  the non-private generalized Kendall's tau matrix, for study
Budget          an (epsilon, delta) value type; :class:`PrivacyLedger` records every release
"""

from dppca.exceptions import (
    BudgetExceededError,
    DurfeeStepLimitWarning,
    EmptyHistogramError,
    NoiseDominatedWarning,
    PrivacyWarning,
)
from dppca.numerics.kendall import kendall_matrix
from dppca.pipeline import DPPCAResult, NonPrivatePCA, PCASummary, dp_pca
from dppca.privacy.accountant import Accountant
from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger
from dppca.privacy.calibration import (
    analytic_gaussian_multiplier,
    classical_gaussian_multiplier,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
)
from dppca.privacy.quantiles import PrivateQuantile, dp_quantile
from dppca.releases.frame import Frame, dp_frame
from dppca.releases.loading import LoadingResult, NonPrivateLoading, dp_loading
from dppca.releases.sampling import NoMassWarning, sample_scores
from dppca.releases.scores import NonPrivateScores, ScoreResult, dp_score
from dppca.releases.scree import NonPrivateScree, ScreeResult, dp_scree

__all__ = [
    "DPPCA",
    "Accountant",
    "Budget",
    "BudgetExceededError",
    "DPPCAResult",
    "DurfeeStepLimitWarning",
    "EmptyHistogramError",
    "Frame",
    "LedgerEntry",
    "LoadingResult",
    "NoMassWarning",
    "NoiseDominatedWarning",
    "NonPrivateLoading",
    "NonPrivatePCA",
    "NonPrivateScores",
    "NonPrivateScree",
    "PCASummary",
    "PrivacyLedger",
    "PrivacyWarning",
    "PrivateQuantile",
    "ScoreResult",
    "ScreeResult",
    "analytic_gaussian_multiplier",
    "classical_gaussian_multiplier",
    "dp_frame",
    "dp_loading",
    "dp_pca",
    "dp_quantile",
    "dp_score",
    "dp_scree",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "kendall_matrix",
    "sample_scores",
]
__version__ = "0.1.0.dev0"


def __getattr__(name: str):
    """``DPPCA`` is imported on first use, so that ``import dppca`` does not load scikit-learn."""
    if name == "DPPCA":
        from dppca.estimator import DPPCA

        return DPPCA
    raise AttributeError(f"module 'dppca' has no attribute {name!r}")
