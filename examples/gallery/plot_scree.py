"""
Released proportions of variance: ``plot_scree``
================================================

:func:`dppca.plotting.plot_scree` draws released values (a dict of methods to proportions or
variances) and spends nothing. Here: two private methods and the non-private reference on the
Gaussian clusters.
"""

import dppca
from dppca.datasets import load_gau_g
from dppca.plotting import plot_scree

clusters, cluster_labels = load_gau_g()
scree = dppca.dp_scree(
    clusters,
    6,
    2.0,
    1e-7,
    method=("clipped", "huber"),
    loading_epsilon=2.0,
    loading_delta=1e-7,
    non_private=True,
    random_state=1,
)
ax = plot_scree(
    {**scree.pve, "non_private": scree.non_private.pve},
    title="Gaussian clusters: proportion of variance",
)
