"""
Synthetic scores: ``sample_scores`` and ``plot_score_points``
=============================================================

:func:`dppca.sample_scores` draws synthetic points from a released histogram
(post-processing, no budget); :func:`dppca.plotting.plot_score_points` draws them.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import plot_score_points

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
points = dppca.sample_scores(score, random_state=1)
ax = plot_score_points(points, score.frame.limits(), title="1000 Genomes: synthetic scores")
