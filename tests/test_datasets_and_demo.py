"""Embedded 1000 Genomes data and the demo."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.datasets import load_1kg_aisnps, snp_alleles
from dppca.demo import main


@pytest.mark.parametrize(("panel", "n_snps"), [("kidd", 55), ("seldin", 127)])
def test_loader_shapes_labels_and_dtypes(panel, n_snps):
    genotypes, labels = load_1kg_aisnps(panel)
    assert genotypes.shape == (2504, n_snps)
    assert (genotypes.dtypes == np.int8).all()
    assert set(np.unique(genotypes.to_numpy())) == {0, 1, 2}
    assert all(column.startswith("rs") for column in genotypes.columns)
    assert list(labels.columns) == ["population", "superpopulation", "gender"]
    assert labels["superpopulation"].value_counts().to_dict() == {
        "AFR": 661,
        "EAS": 504,
        "EUR": 503,
        "SAS": 489,
        "AMR": 347,
    }
    assert labels["population"].nunique() == 26
    assert (genotypes.index == labels.index).all()
    alleles = snp_alleles(panel)
    assert list(alleles.index) == list(genotypes.columns)
    # The counted allele is the minor one: its mean count is at most 1.
    assert (genotypes.mean() <= 1.0 + 1e-12).all()


def test_loader_errors():
    with pytest.raises(ValueError, match="panel must be one of"):
        load_1kg_aisnps("hapmap")


def test_demo_prints_leading_snps_and_the_privacy_spent(capsys):
    main(random_state=0)
    out = capsys.readouterr().out
    assert "2504 people x 55 SNPs" in out
    assert out.count("leading SNPs") == 3
    assert "Privacy spent" in out and "Total: epsilon=1, delta=1e-06" in out
    # Duffy-null SNP rs2814778 (African ancestry) leads the first private direction.
    first = out.split("PC1")[1].split("PC2")[0]
    assert "rs2814778" in first
