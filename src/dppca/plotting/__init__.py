"""Plots of private PCA releases (matplotlib; imported only when used).

Display objects in scikit-learn's manner: arrays in ``__init__``, ``plot(ax=None)`` sets ``ax_``
and ``figure_``, ``from_result(...)`` builds and draws from a result; every result type's
``.plot(kind)`` returns one. Drawing spends no privacy budget: displays show released values and
their post-processing only; non-private references are drawn only when asked and are titled as
such.
"""

from dppca.plotting.displays import (
    BiplotDisplay,
    LoadingDisplay,
    PageDisplay,
    ScoreHistogramDisplay,
    ScreeDisplay,
    VariableDisplay,
    loading_comparison,
)
from dppca.plotting.scores import plot_score_points

__all__ = [
    "BiplotDisplay",
    "LoadingDisplay",
    "PageDisplay",
    "ScoreHistogramDisplay",
    "ScreeDisplay",
    "VariableDisplay",
    "loading_comparison",
    "plot_score_points",
]
