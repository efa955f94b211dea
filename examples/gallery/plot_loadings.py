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
scaled = dppca.dp_pca(adult, 4.0, 1e-7, scale="private", scree="huber", random_state=1)
ax = plot_loadings(scaled.loadings, kind="vector", title="Adult (private scales): loadings")
