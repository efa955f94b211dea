"""
A private histogram by group: ``plot_score_histogram``
======================================================

:func:`dppca.plotting.plot_score_histogram` draws released histogram tables (one per group
here) within the private frame's limits.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import plot_score_histogram

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
by_group = {label: tables["thresholded"] for label, tables in score.groups.items()}
ax = plot_score_histogram(
    by_group, score.frame.limits(), title="1000 Genomes: private histogram by group"
)
