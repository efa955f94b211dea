"""
The private PCA page and its non-private reference
==================================================

:func:`dppca.dp_pca` makes every release at once: directions, scree and the score histogram by
superpopulation. ``result.plot("pages")`` draws the private page and, below it, the page of
the non-private reference (computed only because ``non_private=True`` was asked for). The
bands come from :meth:`~dppca.DPPCAResult.uncertainty`: redraws of the released noise, at no
cost in privacy.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
result = dppca.dp_pca(
    genotypes,
    4.0,
    1e-7,
    groups=labels["superpopulation"].to_numpy(),
    non_private=True,
    random_state=1,
    scree={"k": 10},
)
bands = result.uncertainty(draws=100, random_state=1)
pages = result.plot("pages", random_state=1, uncertainty=bands)

# %%
# The same release drawn differently, still at no cost: the scree as variances, synthetic
# points, a loading heatmap and four named SNPs in the variable plot.
page = result.plot(
    "all",
    random_state=1,
    scree="scree",
    display_k=6,
    score="sample",
    loading="heatmap",
    variable="point",
    alpha=0.5,
    variables=["rs3827760", "rs1426654", "rs16891982", "rs2814778"],
)
