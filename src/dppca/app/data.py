"""The app's data: the embedded data sets as tables, uploaded CSV files, which columns can be
variables or groups, and the settings that follow from the public number of rows."""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: The embedded data sets the app offers, by key, with what they hold.
EMBEDDED = {
    "1kg-kidd": "1000 Genomes: 55 ancestry SNPs of 2,504 people, 5 superpopulations",
    "gau_g": "Five Gaussian clusters: 5,000 rows x 20 variables (the R package's gau_g)",
    "adult": "UCI Adult: 32,561 people x 5 census variables",
}
#: The group column is chosen among the columns with at most this many distinct values.
GROUP_LEVELS_LIMIT = 20
#: The largest upload the app reads (bytes).
UPLOAD_LIMIT = 200 * 2**20


class DataError(ValueError):
    """A problem with the chosen or uploaded data, shown in the page."""


@dataclass(frozen=True)
class Table:
    """A data set in the app: the frame, its numeric columns (the variables offered), the
    columns that may hold group labels, the suggested selection and where it came from."""

    frame: pd.DataFrame
    numeric: list[str]
    group_candidates: list[str]
    variables: list[str]
    group: str | None
    source: str

    @property
    def n(self) -> int:
        return len(self.frame)


def embedded(key: str) -> Table:
    """One of :data:`EMBEDDED` as a table (its labels as a group column)."""
    from dppca.datasets import load_1kg_aisnps, load_adult, load_gau_g

    if key == "1kg-kidd":
        genotypes, labels = load_1kg_aisnps("kidd")
        frame = genotypes.assign(superpopulation=labels["superpopulation"].to_numpy())
        group = "superpopulation"
    elif key == "gau_g":
        X, groups = load_gau_g()
        frame, group = X.assign(group=groups.to_numpy()), "group"
    elif key == "adult":
        X, labels = load_adult()
        frame, group = pd.concat([X, labels], axis=1), "income"
    else:
        raise DataError(f"unknown data set {key!r}; choose one of {sorted(EMBEDDED)}")
    return describe(frame, EMBEDDED[key], group)


def uploaded(path: str | Path, name: str) -> Table:
    """A CSV file uploaded to the app, read whole into memory and its upload file deleted at
    once (:func:`forget_upload`), so that no copy of the data stays on disk however the server
    ends; every problem as one readable sentence."""
    path = Path(path)
    try:
        size = path.stat().st_size
        content = path.read_bytes() if size <= UPLOAD_LIMIT else b""
    finally:
        forget_upload(path)
    if size > UPLOAD_LIMIT:
        raise DataError(
            f"{name} is larger than {UPLOAD_LIMIT // 2**20} MB; use the command line "
            "(dppca run) for large files"
        )
    separator = _separator(content)
    try:
        frame = pd.read_csv(io.BytesIO(content), sep=separator)
        if separator == ";" and len(describe(frame, "", None).numeric) < 2:
            # 3,14 as in many locales
            frame = pd.read_csv(io.BytesIO(content), sep=separator, decimal=",")
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as error:
        reason = " ".join(str(error).split())
        raise DataError(f"{name} could not be read as CSV: {reason}") from None
    if "Unnamed: 0" in frame.columns:  # a row index saved by pandas
        frame = frame.drop(columns="Unnamed: 0")
    table = describe(frame, f"uploaded file {name}", None)
    if len(table.numeric) < 2:
        raise DataError(
            f"{name} needs at least two numeric columns (variables); it has "
            f"{len(table.numeric)}: {', '.join(table.numeric) or 'none'}"
        )
    if table.n < 2:
        raise DataError(f"{name} needs at least two rows; it has {table.n}")
    return table


def upload_folder(path: str | Path) -> Path | None:
    """Shiny's upload folder of ``path`` when ``path`` has exactly the shape of a file Shiny
    wrote for an upload, ``<temporary folder>/fileupload-*/<operation>/<file>``, as written
    (absolute, no ``..``, no symbolic link on the way) and owned by this user; else None. The
    path comes from the browser: nothing else is read or deleted as an upload."""
    path = Path(path)
    if not path.is_absolute() or Path(os.path.realpath(path)) != path:
        return None
    folder = path.parent.parent
    temporary = Path(os.path.realpath(tempfile.gettempdir()))
    if folder.parent != temporary or not folder.name.startswith("fileupload-"):
        return None
    # What exists must be this user's; what is gone (a file already read) is neither read nor
    # deleted again.
    for part in (path, path.parent, folder):
        try:
            if part.lstat().st_uid != os.getuid():
                return None
        except FileNotFoundError:
            continue
        except OSError:
            return None
    return folder


def forget_upload(path: Path) -> None:
    """Delete a file Shiny wrote for an upload (:func:`upload_folder`) and the operation's
    folder when that is left empty; any other file is never touched."""
    if upload_folder(path) is None:
        return
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # only an empty folder goes
        path.parent.rmdir()


#: The field separators an upload may use.
SEPARATORS = ",;\t|"


def _separator(content: bytes) -> str:
    """The file's field separator among :data:`SEPARATORS` (a comma when the first lines do not
    tell: a file with one column has none)."""
    sample = content[: 64 * 1024].decode("utf-8", errors="replace")
    try:
        return csv.Sniffer().sniff(sample, delimiters=SEPARATORS).delimiter
    except csv.Error:
        return ","


def provided(X: Any, groups: Any = None, name: str = "your data") -> Table:
    """Data passed from Python (:func:`dppca.app.run`) as a table: ``X`` any table or 2-D
    array (its column names kept, ``X1, X2, ...`` otherwise), ``groups`` the name of one of its
    columns or one label per row (a column ``group``).

    Examples
    --------
    >>> import numpy as np
    >>> table = provided(np.zeros((3, 2)), groups=["a", "b", "a"])
    >>> table.variables, table.group, table.n
    (['X1', 'X2'], 'group', 3)
    """
    from dppca._groups import take_group_column
    from dppca._validation import _as_pandas, array_names

    frame = _as_pandas(X)
    if frame is None:
        values = np.asarray(X)
        if values.ndim != 2:
            raise ValueError(f"X must be a table or a 2-D array; got shape {values.shape}.")
        frame = pd.DataFrame(values, columns=array_names(X, values.shape[1]))
    frame = frame.copy()  # the app adds a group column: the caller's frame stays as it was
    group = None
    if groups is not None:
        frame, labels = take_group_column(frame, groups)
        if isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype):
            labels = pd.Categorical(labels)  # its categories are the declared levels: kept
        else:
            labels = np.asarray(labels)
        if np.ndim(labels) != 1 or len(labels) != len(frame):
            raise ValueError(
                f"groups must hold one label per row of X ({len(frame)}); got shape "
                f"{np.shape(labels)}."
            )
        group = groups if isinstance(groups, str) else _free_name(frame, "group")
        frame[group] = labels
        if frame[group].nunique() > GROUP_LEVELS_LIMIT:
            raise ValueError(
                f"groups has {frame[group].nunique()} distinct labels; the app shows at most "
                f"{GROUP_LEVELS_LIMIT} groups (labels of many values, such as identifiers, "
                "would be published)."
            )
    return describe(frame, name, group)


def _free_name(frame: pd.DataFrame, name: str) -> str:
    """``name``, or ``name_1``, ``name_2``, ... when ``frame`` has a column of that name."""
    taken, candidate, count = set(map(str, frame.columns)), name, 0
    while candidate in taken:
        count += 1
        candidate = f"{name}_{count}"
    return candidate


def describe(frame: pd.DataFrame, source: str, group: str | None) -> Table:
    """The roles the columns of ``frame`` can take."""
    frame = frame.rename(columns=str)
    numeric = [
        name
        for name in frame.columns
        if pd.api.types.is_numeric_dtype(frame[name])
        and not pd.api.types.is_bool_dtype(frame[name])
    ]
    # Group labels are published with the release: a column of many values (names,
    # identifiers) would publish them, so only columns of few distinct values are offered.
    candidates = [name for name in frame.columns if frame[name].nunique() <= GROUP_LEVELS_LIMIT]
    variables = [name for name in numeric if name != group]
    return Table(frame, numeric, candidates, variables, group, source)


def default_delta(n: int) -> float:
    """``10^-ceil(log10(n^2))``, the R package's default: below ``1 / n^2``.

    Examples
    --------
    >>> default_delta(2504)
    1e-07
    """
    return 10.0 ** -math.ceil(math.log10(float(n) ** 2))


def split_shares(handles: tuple[float, float]) -> dict[str, float]:
    """The loading, scree and score shares (summing to 1) of a two-handle slider on 0..100:
    the first handle ends the loading's share, the second the scree's.

    Examples
    --------
    >>> split_shares((25, 75))
    {'loading': 0.25, 'scree': 0.5, 'score': 0.25}
    """
    low, high = sorted(float(value) for value in handles)
    return {"loading": low / 100.0, "scree": (high - low) / 100.0, "score": (100.0 - high) / 100.0}
