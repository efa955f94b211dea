"""Embedded real data sets, loaded with no network access.

Sources and licences are in ``dppca/datasets/data/LICENSES.md``.
"""

from dppca.datasets.genomes import load_1kg_aisnps, snp_alleles

__all__ = ["load_1kg_aisnps", "snp_alleles"]
