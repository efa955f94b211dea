"""
Private score plot by group: ``dp_score_plot_group``
====================================================

With a group column, one histogram per group is released on the shared private frame (the
groups are disjoint, so they compose in parallel) and drawn in the group's colour. The set of
group labels is public; the group sizes shown are private estimates.
"""

import dppca
from dppca.datasets import load_gau_g

clusters, cluster_labels = load_gau_g()
figure = dppca.dp_score_plot_group(
    clusters.assign(group=cluster_labels.to_numpy()),
    "group",
    3.0,
    1e-7,
    method=("thresholded", "sparse"),
    loading_epsilon=2.0,
    loading_delta=1e-7,
    non_private=True,
    random_state=1,
)
print(figure.result.group_sizes)
