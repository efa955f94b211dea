"""
One panel of a result: ``result.plot(kind)``
============================================

Every result draws its panels one at a time: the scree, the score histogram, synthetic
points, loadings, the loading heatmap, the variable plot and the biplot.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
result = dppca.dp_pca(
    genotypes,
    4.0,
    1e-7,
    groups=labels["superpopulation"].to_numpy(),
    random_state=1,
    scree={"k": 10},
)
for kind in ("scree", "score", "sample", "loading", "heatmap", "variable", "biplot"):
    options = {"random_state": 1} if kind in ("sample", "biplot") else {}
    result.plot(kind, **options)

# %%
# With two components the variable plot is the correlation circle of the two directions.
two = dppca.dp_pca(genotypes, 4.0, 1e-7, random_state=1, scree={"k": 2})
display = two.plot("variable")
