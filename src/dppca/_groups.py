"""Public group labels for group-wise releases.

The *set* of labels is public; which row carries which label is not. Replacing one
row, label included, moves one count of the concatenated group histograms down and one up, so
every group's histogram may use the full histogram budget (parallel composition). Groups are
ordered by label, never by appearance (the first row's label would show), and no exact group
count is released: sizes and weights are estimated from the noisy counts.

The set itself should be declared (``group_levels=``, or the categories of a pandas
Categorical): every declared level is released, empty or not, so whether a label occurs in the
data stays private. Without a declaration the labels found in the data are taken as the public
set, which reveals that each of them occurs.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from dppca._stack import user_stacklevel
from dppca._validation import is_dask_collection
from dppca.exceptions import PrivacyWarning


def take_group_column(X: Any, groups: Any) -> tuple[Any, Any]:
    """If ``groups`` names a column of the DataFrame ``X``, remove it and return its labels (a
    categorical column keeps its categories, the declared levels).

    Labels held by Dask (a column of a Dask data frame, or a Dask array or series) are gathered
    on the client from the same read as the rows: the data and the labels are persisted
    together first, so that a source that returns rows in another order on each read (a
    shuffle, a query) cannot give a row another row's label.
    """
    if not isinstance(groups, str):
        if is_dask_collection(groups):
            if is_dask_collection(X):
                import dask

                X, groups = dask.persist(X, groups)
            groups = _gathered(groups)
        return X, groups
    chunked_frame = is_dask_collection(X) and hasattr(X, "columns")
    if not (isinstance(X, pd.DataFrame) or chunked_frame):
        raise TypeError(
            f"groups={groups!r} names a column, which needs X to be a DataFrame; pass the labels "
            "as an array instead."
        )
    if groups not in X.columns:
        raise ValueError(f"groups={groups!r} is not a column of X.")
    if chunked_frame:
        X = X.persist()
        column = _gathered(X[groups])
    else:
        column = X[groups]
    labels = column.array if isinstance(column.dtype, pd.CategoricalDtype) else column.to_numpy()
    return X.drop(columns=groups), labels


def _gathered(labels: Any) -> Any:
    """Dask-held labels on the client. A Dask categorical whose categories are not known ahead
    lists them by first appearance, which is private: its labels become plain values, whose set
    is then taken sorted, as for any undeclared labels."""
    dtype = getattr(labels, "dtype", None)
    unknown = isinstance(dtype, pd.CategoricalDtype) and not labels.cat.known
    values = labels.compute()
    return values.astype(object) if unknown else values


def label_texts(levels: list[Any]) -> dict[Any, str]:
    """How each label is shown in legends, reports and messages: NumPy scalars as their Python
    values (``class_0``, not ``np.str_('class_0')``), and numbers (or numbers read as text from
    a file) with the fewest significant digits, at least 4, that keep every label distinct
    (``0.05068``, not ``0.05068011873981862``); labels that no precision tells apart are shown
    as they are.

    Examples
    --------
    >>> list(label_texts([np.str_("a"), np.int64(2)]).values())
    ['a', '2']
    >>> list(label_texts([0.05068011873981862, "-0.044641636506989"]).values())
    ['0.05068', '-0.04464']
    >>> list(label_texts([1.00001, 1.00002]).values())
    ['1.00001', '1.00002']
    >>> list(label_texts(["1.5", "1.50"]).values())
    ['1.5', '1.50']
    """
    values = [label.item() if isinstance(label, np.generic) else label for label in levels]
    plain = [str(value) for value in values]
    numbers = [_number(value) for value in values]
    for digits in range(4, 18):
        texts = [
            text if number is None else format(number, f".{digits}g")
            for text, number in zip(plain, numbers, strict=True)
        ]
        if len(set(texts)) == len(texts):
            return dict(zip(levels, texts, strict=True))
    return dict(zip(levels, plain, strict=True))


def _number(value: Any) -> float | None:
    """A float label (or a text that reads as one, with a fraction or an exponent) as a float;
    None for anything else (integers and words are shown as they are)."""
    if isinstance(value, float):
        return value
    if isinstance(value, str) and any(mark in value for mark in ".eE"):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _sorted_levels(levels: list[Any]) -> list[Any]:
    """Labels in sorted order; labels that do not compare (mixed types) by type, then text."""
    try:
        return sorted(levels)
    except TypeError:
        return sorted(levels, key=lambda label: (type(label).__name__, str(label)))


def check_group_levels(levels: Any) -> list[Any] | None:
    """The declared public levels: None, or a non-empty sequence of distinct labels."""
    if levels is None:
        return None
    if isinstance(levels, str) or not hasattr(levels, "__iter__"):
        raise TypeError(f"group_levels must be a sequence of labels; got {levels!r}.")
    declared = list(levels)
    if not declared:
        raise ValueError("group_levels must name at least one label.")
    if pd.isna(np.asarray(declared, dtype=object)).any():
        raise ValueError("group_levels must not contain missing labels (NaN or None).")
    if len(set(declared)) != len(declared):
        shown = ", ".join(map(str, declared))
        raise ValueError(f"group_levels must not repeat a label; got {shown}.")
    return declared


#: Said once per call when the set of groups is read from the data.
UNDECLARED_LEVELS = (
    "groups without group_levels: the set of labels found in the data is published as the "
    "groups (a label that one row holds appears or disappears with that row); declare the "
    "public set with group_levels=[...] (or a pandas Categorical's categories)."
)


def warn_undeclared_levels(labels: Any, levels: Any) -> None:
    """Warn (:class:`~dppca.exceptions.PrivacyWarning`) when the groups' levels are neither
    declared nor a Categorical's categories: whether they are is public."""
    categorical = isinstance(labels, pd.Categorical) or (
        isinstance(labels, pd.Series) and isinstance(labels.dtype, pd.CategoricalDtype)
    )
    if levels is None and not categorical:
        warnings.warn(UNDECLARED_LEVELS, PrivacyWarning, stacklevel=user_stacklevel())


def encode_groups(labels: Any, n_rows: int, levels: Any = None) -> tuple[np.ndarray, list[Any]]:
    """Integer codes per row and the public levels.

    The levels are ``levels`` when declared (in that order), else the categories of a pandas
    Categorical, else the labels found in the data, sorted (never by first appearance). Every
    label must be one of the levels (a format check, before any charge).
    """
    declared = check_group_levels(levels)
    if declared is None and isinstance(labels, pd.Categorical):
        declared = list(labels.categories)
    if (
        declared is None
        and isinstance(labels, pd.Series)
        and isinstance(labels.dtype, pd.CategoricalDtype)
    ):
        declared = list(labels.cat.categories)
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
    if declared is None:
        _, found = pd.factorize(array, sort=False)
        declared = _sorted_levels(list(found))
    codes = pd.Index(declared).get_indexer(array)
    if np.any(codes < 0):
        shown = ", ".join(map(str, declared))  # as given: shortened labels could look equal
        outside = ", ".join(map(str, list(pd.unique(array[codes < 0]))[:5]))
        raise ValueError(
            f"groups must take only the declared levels {shown} (group_levels or the "
            f"categories); got also {outside}."
        )
    return codes, declared
