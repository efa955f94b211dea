"""Copy the Adult and gau_g data sets into the package.

Reads ``../shared/data/adult/adult.data.gz`` (UCI Adult, no header) and keeps the five numeric
columns the R package uses plus three public label columns; copies ``gau/gau_g.csv.gz`` as is.
Run from the repository root: ``python tools/prepare_datasets.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

SOURCE = Path("../shared/data")
TARGET = Path("src/dppca/datasets/data")
ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
]
KEEP = [
    "age",
    "education_num",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "income",
    "sex",
    "race",
]


def main() -> None:
    adult = pd.read_csv(
        SOURCE / "adult/adult.data.gz", header=None, names=ADULT_COLUMNS, skipinitialspace=True
    )
    adult[KEEP].to_csv(TARGET / "adult.csv.gz", index=False)
    shutil.copyfile(SOURCE / "gau/gau_g.csv.gz", TARGET / "gau_g.csv.gz")
    print(f"adult: {len(adult)} rows; gau_g copied")


if __name__ == "__main__":
    main()
