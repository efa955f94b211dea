"""
The biplot: ``plot_biplot``
===========================

:meth:`dppca.DPPCAResult.biplot` computes the coordinates of synthetic score points and of the
variables (post-processing); :func:`dppca.plotting.plot_biplot` draws the six variables with
the longest arrows.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import plot_biplot

genotypes, labels = load_1kg_aisnps("kidd")
result = dppca.dp_pca(genotypes, 4.0, 1e-7, random_state=1, scree={"k": 10})
coordinates, _ = result.biplot(alpha=0.5, random_state=1)
ax = plot_biplot(coordinates, result.feature_names, axis_labels=result.axis_labels, variables=6)
