"""Plots of private PCA releases (matplotlib; imported only when used).

Display objects in scikit-learn's manner: arrays in ``__init__``, ``plot(ax=None)`` sets ``ax_``
and ``figure_``, ``from_result(...)`` builds and draws from a result; every result type's
``.plot(kind)`` returns one. Drawing spends no privacy budget: displays show released values and
their post-processing only; non-private references are drawn only when asked and are titled as
such.

Each display lives next to its drawing code: ``scree`` (:class:`ScreeDisplay`), ``scores``
(the histogram and the synthetic points), ``loadings`` (:class:`LoadingDisplay`),
``variables`` (:class:`VariableDisplay`, :class:`BiplotDisplay`); ``_display`` holds their
common base and ``pages`` the figures of several displays.
"""

from dppca.plotting._display import UnusableDisplay
from dppca.plotting.grids import loading_grid, score_grid
from dppca.plotting.loadings import LoadingDisplay, plot_loading_heatmap, plot_loadings
from dppca.plotting.pages import PageDisplay, PagesDisplay
from dppca.plotting.scores import (
    ScoreHistogramDisplay,
    ScorePointsDisplay,
    plot_score_histogram,
    plot_score_points,
)
from dppca.plotting.scree import ScreeDisplay, plot_scree
from dppca.plotting.variables import BiplotDisplay, VariableDisplay, plot_biplot, plot_variables

__all__ = [
    "BiplotDisplay",
    "LoadingDisplay",
    "PageDisplay",
    "PagesDisplay",
    "ScoreHistogramDisplay",
    "ScorePointsDisplay",
    "ScreeDisplay",
    "UnusableDisplay",
    "VariableDisplay",
    "loading_grid",
    "plot_biplot",
    "plot_loading_heatmap",
    "plot_loadings",
    "plot_score_histogram",
    "plot_score_points",
    "plot_scree",
    "plot_variables",
    "score_grid",
]
