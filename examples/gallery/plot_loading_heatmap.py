"""
Loadings as a heatmap: ``plot_loading_heatmap``
===============================================

:func:`dppca.plotting.plot_loading_heatmap` draws chosen components and variables of a
result's loadings as a heatmap.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import plot_loading_heatmap

genotypes, labels = load_1kg_aisnps("kidd")
result = dppca.dp_pca(genotypes, 4.0, 1e-7, random_state=1, scree={"k": 10})
ax = plot_loading_heatmap(
    result, components=[1, 2, 3], variables=["rs3827760", "rs1426654", "rs16891982"]
)
