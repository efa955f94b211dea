"""dppca: robust, differentially private PCA (g-DPPCA, Kim and Jung 2025) and private PCA plots.

Public API
----------
dp_loading      private principal directions (returns a :class:`LoadingResult`)
DPPCA           the same as a scikit-learn transformer
kendall_matrix  the non-private generalized Kendall's tau matrix, for study
Budget          an (epsilon, delta) value type; :class:`PrivacyLedger` records every release
"""

from dppca.estimator import DPPCA
from dppca.exceptions import DurfeeStepLimitWarning, PrivacyWarning
from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger
from dppca.privacy.calibration import (
    analytic_gaussian_multiplier,
    classical_gaussian_multiplier,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
)
from dppca.privacy.quantiles import PrivateQuantile, dp_quantile
from dppca.stats.directions import LoadingResult, NonPrivateLoading, dp_loading
from dppca.stats.kendall import kendall_matrix

__all__ = [
    "DPPCA",
    "Budget",
    "DurfeeStepLimitWarning",
    "LedgerEntry",
    "LoadingResult",
    "NonPrivateLoading",
    "PrivacyLedger",
    "PrivacyWarning",
    "PrivateQuantile",
    "analytic_gaussian_multiplier",
    "classical_gaussian_multiplier",
    "dp_loading",
    "dp_quantile",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "kendall_matrix",
]
__version__ = "0.1.0.dev0"
