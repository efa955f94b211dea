"""Encode the 1000 Genomes ancestry-SNP panels as 0/1/2 allele counts for the package.

Reads ``../shared/data/1kg-aisnps/{kidd,seldin}.1kG.csv.gz`` (genotype strings such as ``AG``)
and writes ``src/dppca/datasets/data/1kg_aisnps_{panel}.csv.gz`` (one int column per SNP: the
number of copies of the counted allele) and ``1kg_aisnps_alleles.csv`` (the counted and the other
allele of each SNP, with its chromosome and position). The counted allele is the less frequent one
among all 2,504 people, ties broken alphabetically. Run from the repository root:
``python tools/encode_1kg_aisnps.py``.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pandas as pd

SOURCE = Path("../shared/data/1kg-aisnps")
TARGET = Path("src/dppca/datasets/data")
LABELS = ["sample", "population", "superpopulation", "gender"]


def encode_panel(panel: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    raw = pd.read_csv(SOURCE / f"{panel}.1kG.csv.gz", dtype=str)
    positions = pd.read_csv(SOURCE / f"{panel}.aisnp.txt", sep="\t", dtype=str).set_index("rsid")
    snps = [column for column in raw.columns if column not in LABELS]
    counts_by_snp = {}
    alleles = []
    for snp in snps:
        counts = collections.Counter("".join(raw[snp]))
        if len(counts) != 2:
            raise ValueError(f"{snp} is not bi-allelic: {dict(counts)}")
        (minor, _), (major, _) = sorted(counts.items(), key=lambda item: (item[1], item[0]))
        counts_by_snp[snp] = raw[snp].str.count(minor).astype("int8")
        alleles.append(
            {
                "panel": panel,
                "rsid": snp,
                "chromosome": positions.loc[snp, "chromosome"],
                "position": positions.loc[snp, "position"],
                "counted_allele": minor,
                "other_allele": major,
            }
        )
    encoded = pd.concat([raw[LABELS], pd.DataFrame(counts_by_snp)], axis=1)
    return encoded, pd.DataFrame(alleles)


def main() -> None:
    tables = []
    for panel in ("kidd", "seldin"):
        encoded, alleles = encode_panel(panel)
        encoded.to_csv(TARGET / f"1kg_aisnps_{panel}.csv.gz", index=False)
        tables.append(alleles)
        print(f"{panel}: {encoded.shape[0]} people x {len(alleles)} SNPs")
    pd.concat(tables).to_csv(TARGET / "1kg_aisnps_alleles.csv", index=False)


if __name__ == "__main__":
    main()
