"""Embedded 1000 Genomes data and the demo."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.datasets import load_1kg_aisnps, snp_alleles


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


def test_adult_and_gau_g():
    from dppca.datasets import DATASETS, load_adult, load_gau_g

    X, labels = load_adult()
    assert X.shape == (32561, 5) and (X.dtypes == np.int64).all()
    assert list(X.columns) == [
        "age",
        "education_num",
        "capital_gain",
        "capital_loss",
        "hours_per_week",
    ]
    assert labels["income"].value_counts().to_dict() == {"<=50K": 24720, ">50K": 7841}
    X, group = load_gau_g()
    assert X.shape == (5000, 20) and list(X.columns)[:2] == ["V1", "V2"]
    assert (X.dtypes == np.float64).all()
    assert group.value_counts().to_dict() == {f"group{i}": 1000 for i in range(1, 6)}
    # Design means: group 2 has mean 5 on V1..V5.
    assert X[group == "group2"].iloc[:, :5].mean().between(4.8, 5.2).all()
    assert set(DATASETS) == {"1kg-kidd", "1kg-seldin", "adult", "gau_g"}
