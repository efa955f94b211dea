"""
Loadings as arrows: ``plot_loadings``
=====================================

:func:`dppca.plotting.plot_loadings` draws a loading table (variables x components) as
arrows or points.
"""

import dppca
from dppca.datasets import load_adult
from dppca.plotting import plot_loadings

adult = load_adult()[0]
# capital_loss is zero in 95 % of rows, so its private scale cannot be told; on_weak="release"
# consents to the other scales' geometric mean for it.
scaled = dppca.dp_pca(
    adult, 4.0, 1e-7, scale="private", scree="huber", on_weak="release", random_state=1
)
ax = plot_loadings(scaled.loadings, kind="vector", title="Adult (private scales): loadings")
