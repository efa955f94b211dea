"""Public group labels for group-wise releases.

The *set* of labels is public; which row carries which label is not (SPEC 3.4). Replacing one
row, label included, moves one count of the concatenated group histograms down and one up, so
every group's histogram may use the full histogram budget (parallel composition). Groups are
ordered by label, never by appearance (the first row's label would show), and no exact group
count is released: sizes and weights are estimated from the noisy counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def take_group_column(X: Any, groups: Any) -> tuple[Any, Any]:
    """If ``groups`` names a column of the DataFrame ``X``, remove it and return its labels."""
    if not isinstance(groups, str):
        return X, groups
    if not isinstance(X, pd.DataFrame):
        raise TypeError(
            f"groups={groups!r} names a column, which needs X to be a DataFrame; pass the labels "
            "as an array instead."
        )
    if groups not in X.columns:
        raise ValueError(f"groups={groups!r} is not a column of X.")
    return X.drop(columns=groups), X[groups].to_numpy()


def _sorted_levels(levels: list[Any]) -> list[Any]:
    """Labels in sorted order; labels that do not compare (mixed types) by type, then text."""
    try:
        return sorted(levels)
    except TypeError:
        return sorted(levels, key=lambda label: (type(label).__name__, str(label)))


def encode_groups(labels: Any, n_rows: int) -> tuple[np.ndarray, list[Any]]:
    """Integer codes per row and the levels, sorted by label (never by first appearance)."""
    if isinstance(labels, pd.Series | pd.Index | pd.Categorical):
        array = np.asarray(labels)
    else:
        try:
            array = np.asarray(labels, dtype=object)
        except ValueError as error:
            raise TypeError(
                f"groups must be a column name or an array of labels: {error}"
            ) from None
    if array.ndim != 1:
        raise ValueError(f"groups must be one-dimensional; got shape {array.shape}.")
    if len(array) != n_rows:
        raise ValueError(f"groups must have one label per row of X ({n_rows}); got {len(array)}.")
    if pd.isna(array).any():
        raise ValueError("groups must not contain missing labels (NaN or None).")
    _, found = pd.factorize(array, sort=False)
    levels = _sorted_levels(list(found))
    codes = pd.Index(levels).get_indexer(array)
    return codes, levels
