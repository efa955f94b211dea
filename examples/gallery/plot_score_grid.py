"""
Histogram and synthetic points side by side: ``score_grid``
===========================================================

:func:`dppca.plotting.score_grid` draws a score release as its histogram and as synthetic
points drawn uniformly within cells or at their centres.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import score_grid

genotypes, labels = load_1kg_aisnps("kidd")
score = dppca.dp_score(
    genotypes,
    2.0,
    1e-7,
    loading_epsilon=2.0,
    loading_delta=1e-7,
    groups=labels["superpopulation"].to_numpy(),
    random_state=1,
)
figure, displays = score_grid(
    score, panels=("histogram", "sample"), sampling=("uniform", "center"), random_state=1
)
