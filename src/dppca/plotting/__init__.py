"""Plots of private PCA releases (matplotlib; imported only when used).

Every function takes ``ax=None`` and returns the Axes (a page returns its Figure); none calls
``plt.show()``. Drawing spends no privacy budget: plots show released values and their
post-processing only. Non-private references are drawn only when asked and are titled as such.
"""

from dppca.plotting.loadings import plot_loading_heatmap, plot_loadings
from dppca.plotting.page import plot_loading_comparison, plot_page, plot_result
from dppca.plotting.scores import plot_score_histogram, plot_score_points
from dppca.plotting.scree import plot_scree
from dppca.plotting.variables import plot_biplot, plot_variables

__all__ = [
    "plot_biplot",
    "plot_loading_comparison",
    "plot_loading_heatmap",
    "plot_loadings",
    "plot_page",
    "plot_result",
    "plot_score_histogram",
    "plot_score_points",
    "plot_scree",
    "plot_variables",
]
