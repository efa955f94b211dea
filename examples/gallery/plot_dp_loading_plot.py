"""
Private loadings in one call: ``dp_loading_plot``
=================================================

:func:`dppca.dp_loading_plot` releases the private directions of 1000 Genomes genotypes
(2,504 people, 55 ancestry SNPs) and draws their loadings as arrows, points and a heatmap of
the eight SNPs with the largest loadings, beside the non-private reference.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
figure = dppca.dp_loading_plot(
    genotypes,
    2.0,
    1e-7,
    display=("vector", "point", "heatmap"),
    variables=8,
    non_private=True,
    random_state=1,
)
print(figure.result.privacy)
