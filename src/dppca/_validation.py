"""Input validation shared by every public function.

Every check raises a ``ValueError`` or ``TypeError`` whose message names the parameter, the rule
and the value received, and each runs before any noise is drawn. Data arrays are always
copied, so the caller's arrays are never modified.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

RandomStateLike = None | int | np.random.SeedSequence | np.random.Generator | np.random.RandomState


def _describe(value: Any) -> str:
    """A short, safe description of a received value for an error message."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} (type {type(value).__name__})"


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = False,
    high_inclusive: bool = False,
) -> float:
    """Check that ``value`` is a finite real number within optional bounds.

    Booleans are refused: ``True`` as an epsilon is a bug, not a number.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_describe(value)}.")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if low is not None and (number < low or (number == low and not low_inclusive)):
        rule = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {rule} {low:g}; got {value!r}.")
    if high is not None and (number > high or (number == high and not high_inclusive)):
        rule = "<=" if high_inclusive else "<"
        raise ValueError(f"{name} must be {rule} {high:g}; got {value!r}.")
    return number


def check_epsilon(value: Any, name: str = "epsilon") -> float:
    """Privacy parameter epsilon: a finite number > 0."""
    return check_real(value, name, low=0.0)


def check_delta(value: Any, name: str = "delta") -> float:
    """Privacy parameter delta of an approximate-DP release: 0 < delta < 1."""
    return check_real(value, name, low=0.0, high=1.0)


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """An integer (not a bool) that is at least ``minimum``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {_describe(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_option(value: Any, name: str, options: Sequence[str]) -> str:
    """One of a fixed set of string options."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(options)}; got {_describe(value)}.")
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}.")
    return value


def check_choices(value: Any, name: str, options: Sequence[str]) -> tuple[str, ...]:
    """One option or a non-empty sequence of distinct options."""
    if isinstance(value, str):
        chosen: tuple[Any, ...] = (value,)
    elif isinstance(value, Sequence):
        chosen = tuple(value)
    else:
        raise TypeError(
            f"{name} must be one of {list(options)} or a sequence of them; got {_describe(value)}."
        )
    if not chosen:
        raise ValueError(f"{name} must name at least one of {list(options)}.")
    for item in chosen:
        check_option(item, name, options)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{name} must not repeat a choice; got {list(chosen)}.")
    return chosen


def check_bool(value: Any, name: str) -> bool:
    """A plain boolean flag."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {_describe(value)}.")
    return bool(value)


def check_random_state(random_state: Any) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Accepts None (fresh operating-system entropy), a non-negative int, a
    :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator` (used as is, so repeated
    calls draw fresh noise) or a legacy :class:`numpy.random.RandomState` (a seed is drawn from it).
    Seeds are for research and tests; a deployed release should use ``None``.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4).tolist())
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool | np.bool_):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state!r}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy SeedSequence, Generator or "
        f"RandomState; got {_describe(random_state)}."
    )


def refuse_masked_or_sparse(value: Any, name: str) -> None:
    """Masked arrays would be silently unmasked and sparse matrices densified or misread: both
    are refused, with the conversion to make."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array; its masked values would be used as if present. Fill them "
            f"or drop their rows first (e.g. {name}.filled(...) or {name}.compressed())."
        )
    from scipy import sparse

    if sparse.issparse(value):
        raise TypeError(
            f"{name} is a scipy sparse matrix; pass a dense array ({name}.toarray()). Implicit "
            "zeros are data points here, not missing values."
        )


def check_vector(x: Any, name: str, *, min_size: int = 1) -> np.ndarray:
    """A 1-D array (or pandas Series) of finite real numbers, copied to float64."""
    if isinstance(x, str | bytes) or x is None:
        raise TypeError(f"{name} must be a 1-D array of real numbers; got {_describe(x)}.")
    refuse_masked_or_sparse(x, name)
    if isinstance(x, pd.Series):
        if not pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_complex_dtype(x.dtype):
            raise TypeError(f"{name} must hold real numbers; got a Series of dtype {x.dtype}.")
        values = x.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    else:
        try:
            array = np.asarray(x)
        except (ValueError, TypeError) as error:
            raise TypeError(f"{name} must be a 1-D array of real numbers: {error}") from None
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D; got shape {array.shape}.")
        values = _array_to_float(array, name)
    if values.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} value(s); got {values.size}.")
    if not np.isfinite(values).all():
        raise ValueError(f"{name} must contain only finite values; it has NaN or infinite entries.")
    return values


def _dataframe_to_float(frame: pd.DataFrame, name: str) -> np.ndarray:
    bad = [
        str(column)
        for column, dtype in frame.dtypes.items()
        if not (pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype))
        or pd.api.types.is_complex_dtype(dtype)
    ]
    if bad:
        shown = ", ".join(repr(column) for column in bad[:5]) + (" ..." if len(bad) > 5 else "")
        raise TypeError(f"All columns of {name} must be real numeric; not numeric: {shown}.")
    return frame.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)


def _array_to_float(array: np.ndarray, name: str) -> np.ndarray:
    kind = array.dtype.kind
    if kind in "biuf":
        return np.array(array, dtype=np.float64, copy=True)
    if kind == "O":
        flat = array.ravel()
        if all(isinstance(v, numbers.Real) for v in flat):
            return np.array(array, dtype=np.float64, copy=True)
    raise TypeError(f"{name} must hold real numbers; got an array of dtype {array.dtype}.")


def _as_pandas(X: Any) -> pd.DataFrame | None:
    """A data frame of another library (polars, a pyarrow table, ...) as pandas, its column
    names kept: through the Arrow C stream interface or the dataframe interchange protocol, or,
    where neither reads it (an older pandas or pyarrow), column by column; None for anything
    else (arrays, labelled arrays)."""
    if isinstance(X, pd.DataFrame):
        return X
    if _labelled_array(X):
        return None
    try:
        if hasattr(X, "__arrow_c_stream__"):
            from_arrow = getattr(pd.DataFrame, "from_arrow", None)  # pandas >= 3
            if from_arrow is not None:
                frame: pd.DataFrame = from_arrow(X)
                return frame
            import pyarrow  # the stream's producer needs no pyarrow; reading it here does

            return pyarrow.table(X).to_pandas()
        if hasattr(X, "__dataframe__"):
            return pd.api.interchange.from_dataframe(X)
    except (TypeError, ValueError, ImportError, AttributeError, NotImplementedError):
        pass  # not a table (a 1-D Arrow array, say), or columns these readers cannot convert
    names = _column_names(X)
    if names is None:
        return None
    try:
        frame = pd.DataFrame({j: np.asarray(X[name]) for j, name in enumerate(names)})
    except (TypeError, ValueError, KeyError, IndexError):
        return None
    frame.columns = pd.Index(names)
    return frame


def _column_names(X: Any) -> list[str] | None:
    """The column names of a data frame that is not pandas (``column_names`` of a pyarrow
    table, ``columns`` of polars), or None."""
    names = getattr(X, "column_names", None)
    if names is None:
        names = getattr(X, "columns", None)
    if isinstance(names, list | tuple) and names and all(isinstance(n, str) for n in names):
        return list(names)
    return None


def _labelled_array(X: Any) -> bool:
    """Whether ``X`` is a labelled array (an xarray DataArray: ``dims`` and ``coords``)."""
    return hasattr(X, "dims") and hasattr(X, "coords") and not isinstance(X, pd.DataFrame)


def array_names(X: Any, p: int) -> list[str]:
    """The names of the ``p`` variables of ``X``: a data frame's column names, a labelled
    array's coordinate along its second dimension, else ``X1, ..., Xp``."""
    labels: list[str] | None = _column_names(X)
    if labels is None and _labelled_array(X) and len(X.dims) == 2 and X.dims[1] in X.coords:
        labels = [str(label) for label in np.asarray(X.coords[X.dims[1]].values).ravel()]
    if labels is not None and len(labels) == p:
        return labels
    return [f"X{j + 1}" for j in range(p)]


def is_dask_collection(X: Any) -> bool:
    """Whether ``X`` is a Dask array or data frame (checked without importing Dask)."""
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def check_data(X: Any, name: str = "X", *, min_rows: int = 2) -> tuple[np.ndarray, list[str]]:
    """Validate a data matrix and return a float64 copy and its variable names.

    Parameters
    ----------
    X : array-like or data frame of shape (n_samples, n_features)
        Real numeric data (booleans count as 0/1). The column names of a data frame (pandas, or
        any library's with the Arrow C stream interface or the dataframe interchange protocol:
        polars, pyarrow tables, ...) and the second dimension's labels of an xarray DataArray
        become the variable names; otherwise the names are ``X1, ..., Xp``.
    name : str
        The parameter's name for error messages.
    min_rows : int
        The smallest number of rows allowed.

    Returns
    -------
    data : ndarray of shape (n_samples, n_features), float64, C-contiguous
        A new array, or for a C-contiguous float64 ndarray a read-only view of it (no copy of
        a large input): the caller's object is never modified.
    names : list of str
    """
    frame = None if is_dask_collection(X) else _as_pandas(X)
    if _plain_float_matrix(X):  # read where it is: no copy, and nothing may write to it
        data = X.view()
        data.flags.writeable = False
        names = [f"X{j + 1}" for j in range(data.shape[1])]
    elif frame is not None:
        data = _dataframe_to_float(frame, name)
        names = [str(column) for column in frame.columns]
    else:
        if isinstance(X, str | bytes) or X is None:
            raise TypeError(f"{name} must be a 2-D array or DataFrame; got {_describe(X)}.")
        refuse_masked_or_sparse(X, name)
        try:
            array = np.asarray(X)
        except (ValueError, TypeError) as error:
            raise TypeError(f"{name} must be a 2-D array or DataFrame: {error}") from None
        if array.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D (rows = observations, columns = variables); got an array "
                f"with {array.ndim} dimension(s) of shape {array.shape}."
            )
        data = _array_to_float(array, name)
        names = array_names(X, data.shape[1])
    n_rows, n_cols = data.shape
    if n_rows < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows; got {n_rows}.")
    if n_cols < 1:
        raise ValueError(f"{name} must have at least 1 column; got {n_cols}.")
    if not _all_finite(data):
        raise ValueError(f"{name} must contain only finite values; it has NaN or infinite entries.")
    # One memory layout for every input type, so that results do not depend on it.
    return np.ascontiguousarray(data), names


#: Rows per block of the finiteness check (a mask of this many rows at a time, not the
#: whole matrix's).
FINITE_BLOCK_ROWS = 8192


def _plain_float_matrix(X: Any) -> bool:
    """Whether ``X`` is a plain, C-contiguous 2-D float64 ndarray (read without a copy)."""
    return type(X) is np.ndarray and X.ndim == 2 and X.dtype == np.float64 and X.flags.c_contiguous


def _all_finite(data: np.ndarray) -> bool:
    """Whether every entry is finite, checked block by block of rows (the mask of one block
    at a time)."""
    for start in range(0, data.shape[0], FINITE_BLOCK_ROWS):
        if not np.isfinite(data[start : start + FINITE_BLOCK_ROWS]).all():
            return False
    return True


def axes_within(
    axes: tuple[int, int], count: int, limit: str, name: str = "axes"
) -> tuple[int, int]:
    """Refuse checked ``axes`` beyond ``count`` components (errors call them ``name``)."""
    if max(axes) > count:
        raise ValueError(f"{name} must be PC numbers from 1 to {limit}={count}; got {tuple(axes)}.")
    return axes


def axes_pair(axes: Any, name: str) -> tuple[int, int]:
    """Two distinct 1-based principal-component numbers (their upper limit is checked with
    the data's size, :func:`axes_within`)."""
    if isinstance(axes, str) or not isinstance(axes, Sequence) or len(axes) != 2:
        raise TypeError(f"{name} must be a pair of PC numbers such as (1, 2); got {axes!r}.")
    first, second = (check_positive_int(value, name) for value in axes)
    if first == second:
        raise ValueError(f"{name} must be two different PC numbers; got {tuple(axes)}.")
    return first, second
