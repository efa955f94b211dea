"""The UCI Adult numeric columns and the R package's ``gau_g`` simulation data."""

from __future__ import annotations

import pandas as pd

from dppca.datasets.genomes import open_data

ADULT_NUMERIC = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


def load_adult() -> tuple[pd.DataFrame, pd.DataFrame]:
    """UCI Adult (Census Income) training file: 32,561 people.

    Becker, B. and Kohavi, R. (1996), Adult, UCI Machine Learning Repository, CC BY 4.0.

    Returns
    -------
    X : DataFrame of shape (32561, 5), int64
        ``age, education_num, capital_gain, capital_loss, hours_per_week`` (the columns the R
        package ``dppca`` uses).
    labels : DataFrame of shape (32561, 3), categorical
        ``income`` (<=50K, >50K), ``sex`` and ``race``.

    Examples
    --------
    >>> from dppca.datasets import load_adult
    >>> X, labels = load_adult()
    >>> X.shape, list(labels.columns)
    ((32561, 5), ['income', 'sex', 'race'])
    """
    with open_data("adult.csv.gz") as handle:
        table = pd.read_csv(handle, compression="gzip")
    return table[ADULT_NUMERIC].astype("int64"), table[["income", "sex", "race"]].astype("category")


def load_gau_g() -> tuple[pd.DataFrame, pd.Series]:
    """The R package ``dppca``'s ``gau_g``: five Gaussian clusters of 1,000 rows in 20 variables.

    Means 0; (5 x5, 0 x15); (-3 x5, 0 x15); (0 x5, -1 x5, 0 x10); (0 x5, 3 x5, 0 x10);
    covariances I, I, 5I, 5I, 8I. From the R package dppca (Jo and Kim), MIT licence.

    Returns
    -------
    X : DataFrame of shape (5000, 20), float64
        Columns ``V1..V20``.
    group : Series of length 5000, categorical
        ``group1..group5``.

    Examples
    --------
    >>> from dppca.datasets import load_gau_g
    >>> X, group = load_gau_g()
    >>> X.shape, group.value_counts().tolist()
    ((5000, 20), [1000, 1000, 1000, 1000, 1000])
    """
    with open_data("gau_g.csv.gz") as handle:
        table = pd.read_csv(handle, compression="gzip")
    return table.drop(columns="group").astype("float64"), table["group"].astype("category")
