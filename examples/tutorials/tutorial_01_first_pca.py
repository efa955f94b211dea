"""
A first private PCA in ten lines
================================

Private principal directions, scree and score plot of 1000 Genomes genotypes (2,504 people,
55 ancestry SNPs coded 0/1/2), with a total budget of epsilon = 4 and delta = 1e-7.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
result = dppca.dp_pca(
    genotypes, epsilon=4.0, delta=1e-7, groups=labels["superpopulation"].to_numpy(), scree={"k": 5}
)
print(result.summary())
page = result.plot("all")

# %%
# ``result.privacy`` is the ledger: every release, its mechanism and its (epsilon, delta),
# and the composed total, which never exceeds the (epsilon, delta) asked for.
ledger = result.privacy.to_frame()
print(ledger[["name", "epsilon", "delta", "privacy loss"]].to_string(index=False))
