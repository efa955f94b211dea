"""
Private score plot in one call: ``dp_score_plot``
=================================================

:func:`dppca.dp_score_plot` releases a square frame and a 2-D histogram of the scores on the
first two private directions, and draws it as a histogram and as synthetic points sampled
from it (post-processing). The data are the R package's ``gau_g``: Gaussian clusters.
"""

import dppca
from dppca.datasets import load_gau_g

clusters, cluster_labels = load_gau_g()
figure = dppca.dp_score_plot(
    clusters,
    3.0,
    1e-7,
    method=("thresholded", "sparse"),
    loading_epsilon=2.0,
    loading_delta=1e-7,
    panels=("histogram", "sample"),
    non_private=True,
    random_state=1,
)
