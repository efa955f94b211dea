"""The command line's data files: CSV, or Parquet files and folders, read whole with pandas or
in blocks on a Dask cluster, with every format problem named by file and column before anything
is computed.

In blocks, a CSV file's variables are read as text and converted on the workers, so that a
cell that is not a number anywhere in the file gives the same message as in memory, and no
message or log carries a cell's value.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


class UsageError(Exception):
    """A problem with the command line or its input, shown in one line."""


def read_table(
    path: str,
    columns: Sequence[str] | None,
    group: str | None,
    *,
    sep: str = ",",
    index_col: str | None = None,
    chunked: bool = False,
    decimal: str = ".",
) -> Any:
    """The variables (as float64 when ``chunked``) and the group column of a data file.

    Parameters
    ----------
    path : str
        A CSV file with a header row, or a Parquet file (``.parquet``, ``.pq``) or folder.
    columns : sequence of str or None
        The variables; None: every column but ``group``.
    group : str or None
        The column of public group labels (read as text from a CSV file).
    sep : str
        The CSV field separator (``"tab"`` or ``"\\t"`` for tabs).
    index_col : str or None
        A column that labels the rows (a name, or a position counted from 0), left out.
    chunked : bool
        Read a Dask data frame in blocks on the active scheduler (values checked in one pass).
    decimal : {".", ","}
        The CSV file's decimal mark (``","`` for ``3,14``, with ``sep=";"`` as in many
        locales).

    Raises
    ------
    UsageError
        A missing or unreadable file, an unknown column, a variable that is not numeric, a
        missing or infinite value, a missing group label: one line naming file and column.
    """
    sep = "\t" if sep in ("\\t", "tab") else sep
    parquet = path.endswith((".parquet", ".pq")) or Path(path).is_dir()
    table: Any = _read(path, parquet, chunked) if parquet else None  # Parquet: read lazily
    header = [str(name) for name in table.columns] if parquet else _csv_header(path, sep)
    if len(header) == 1:
        for mark, name in (("\t", "tab"), (",", ","), (";", ";"), ("|", "|")):
            if mark in header[0] and mark != sep:
                raise UsageError(
                    f"{path} has one column, {header[0]!r}, which looks separated by {name!r}; "
                    f"pass --sep {name!r}"
                )
    dropped = None if index_col is None else _index_column(header, index_col, path)
    if dropped is None and "Unnamed: 0" in header and not columns:
        raise UsageError(
            f"{path}: column 'Unnamed: 0' has no name, as the row index of a CSV saved by "
            "pandas; pass --index-col 0 to leave it out, or name the variables with --columns"
        )
    if group is not None and group not in header:
        raise UsageError(f"--group {group} is not a column of {path}{_did_you_mean(group, header)}")
    wanted = list(columns) if columns else [c for c in header if c not in (group, dropped)]
    if group is not None:
        wanted.append(group)
    unknown = [name for name in wanted if name not in header]
    if unknown:
        raise UsageError(
            f"column(s) not in {path}: {', '.join(map(str, unknown))}"
            f"{_did_you_mean(unknown[0], header)}"
        )
    variables = [name for name in wanted if name != group]
    text_cells = chunked and not parquet  # a CSV read in blocks: every variable as text
    if parquet:
        table = table[wanted]
    else:
        dtype: Any = str if text_cells else None if group is None else {group: str}
        options = {"sep": sep, "usecols": wanted, "dtype": dtype, "decimal": decimal}
        table = _read(path, parquet, chunked, **options)[wanted]
    if not text_cells:
        for name in variables:
            dtype = table.dtypes[name]
            if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
                raise _not_numeric(path, name)
    if chunked:
        return _checked_blocks(table, path, variables, group)
    if group is not None and table[group].isna().any():
        raise UsageError(f"{path}: group column '{group}' has missing labels")
    for name in variables:
        finite = np.isfinite(_floats(table[name]))
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0]) + 1
            raise _not_finite(path, name, f" (first at data row {row})")
    return table


def _did_you_mean(name: str, header: Sequence[str]) -> str:
    """``"; did you mean 'Age'?"`` for the closest column name (by difflib's ratio, or the
    same name in another case), or ``""``.

    >>> _did_you_mean("age", ["Age", "income"]), _did_you_mean("xyz", ["Age"])
    ("; did you mean 'Age'?", '')
    """
    folded = [column for column in header if column.lower() == name.lower()]
    close = folded or difflib.get_close_matches(name, list(header), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _csv_header(path: str, sep: str) -> list[str]:
    """A CSV file's column names, read on the client."""
    return [str(name) for name in _read(path, False, False, sep=sep, nrows=0).columns]


def _read(path: str, parquet: bool, chunked: bool, **options: Any) -> Any:
    """``read_parquet`` or ``read_csv`` of pandas, or of Dask when ``chunked``, with reading
    problems as one-line errors."""
    readers: Any = pd
    if chunked:
        import dask.dataframe as readers
    kind = "Parquet" if parquet else "CSV"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            warnings.simplefilter("ignore", DeprecationWarning)  # the readers' own, not the user's
            if parquet:
                return readers.read_parquet(path, **options)
            return readers.read_csv(path, **options)
    except FileNotFoundError:
        raise UsageError(f"data file not found: {path}") from None
    except ImportError as e:
        if parquet and ("pyarrow" in str(e) or "fastparquet" in str(e)):
            raise UsageError(
                f"cannot read {path} as Parquet: no Parquet engine is installed; "
                "pip install 'dppca[parquet]' (pyarrow)"
            ) from None
        raise UsageError(f"cannot read {path} as {kind}: {' '.join(str(e).split())}") from None
    except (OSError, ValueError, pd.errors.ParserError, pd.errors.ParserWarning) as e:
        raise UsageError(f"cannot read {path} as {kind}: {' '.join(str(e).split())}") from None


def _floats(column: pd.Series) -> np.ndarray:
    """A column's values as float64: text that is not a number, and missing values, as NaN."""
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _block_problems(block: pd.DataFrame, variables: list[str], group: str | None) -> np.ndarray:
    """Per variable, the cells that are text but not a number and the missing or infinite
    numbers; then the missing group labels (counts only: no value leaves the worker)."""
    counts = []
    for name in variables:
        values = _floats(block[name])
        counts.append(int((block[name].notna().to_numpy() & np.isnan(values)).sum()))
        counts.append(int((~np.isfinite(values)).sum()))
    counts.append(0 if group is None else int(block[group].isna().sum()))
    return np.array(counts, dtype=np.int64)


def _as_floats(block: pd.DataFrame, variables: list[str]) -> pd.DataFrame:
    return block.assign(**{name: _floats(block[name]) for name in variables})


def _checked_blocks(table: Any, path: str, variables: list[str], group: str | None) -> Any:
    """Check a Dask data frame's values in one pass on the workers; return it with float64
    variables (converted again, lazily, when the data are read)."""
    import dask

    problems = [
        dask.delayed(_block_problems)(block, variables, group) for block in table.to_delayed()
    ]
    try:
        totals = np.sum(dask.compute(*problems), axis=0)
    except OSError as error:  # the workers could not read the file
        raise UsageError(
            f"the Dask workers cannot read {path} ({' '.join(str(error).split())}); every worker "
            "must see the file at the same path"
        ) from None
    for index, name in enumerate(variables):
        if totals[2 * index] > 0:
            raise _not_numeric(path, name)
        if totals[2 * index + 1] > 0:
            raise _not_finite(path, name, "")
    if totals[-1] > 0:
        raise UsageError(f"{path}: group column '{group}' has missing labels")
    meta = _as_floats(table._meta, variables)
    return table.map_partitions(_as_floats, variables, meta=meta)


def _not_numeric(path: str, name: str) -> UsageError:
    return UsageError(
        f"{path}: column '{name}' is not numeric; leave it out with --columns, pass it as "
        "--group if it holds labels, or pass --decimal , if it has decimal commas (3,14)"
    )


def _not_finite(path: str, name: str, where: str) -> UsageError:
    return UsageError(
        f"{path}: column '{name}' has missing or infinite values{where}; remove or impute them "
        "first"
    )


def _index_column(header: list[str], index_col: str, path: str) -> str:
    """The name of ``--index-col``: a column name, or a position counted from 0."""
    if index_col in header:
        return index_col
    if index_col.isdigit() and int(index_col) < len(header):
        return header[int(index_col)]
    raise UsageError(f"--index-col {index_col} is not a column of {path}")
