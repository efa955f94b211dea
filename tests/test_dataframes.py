"""Variable names from any data frame: pandas, polars, pyarrow tables, xarray's labelled arrays
and Dask data frames give their column (or coordinate) names to every public entry point, and
the same release as the bare array."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dppca

NAMES = ["height", "weight", "age"]


def _rows() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((3000, 3)) * [3.0, 2.0, 1.0]


def _polars(X):
    pl = pytest.importorskip("polars")
    return pl.DataFrame(X, schema=NAMES)


def _pyarrow(X):
    pa = pytest.importorskip("pyarrow")
    return pa.table({name: X[:, j] for j, name in enumerate(NAMES)})


def _xarray(X):
    xr = pytest.importorskip("xarray")
    return xr.DataArray(X, dims=("person", "variable"), coords={"variable": NAMES})


def _dask(X):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(pd.DataFrame(X, columns=NAMES), npartitions=3)


FRAMES = {
    "pandas": lambda X: pd.DataFrame(X, columns=NAMES),
    "polars": _polars,
    "pyarrow": _pyarrow,
    "xarray": _xarray,
}

ENTRY_POINTS = {
    "dp_loading": lambda data: dppca.dp_loading(data, 2.0, 1e-6, random_state=0),
    "dp_pca": lambda data: dppca.dp_pca(data, 4.0, 1e-6, random_state=0),
    "dp_scree": lambda data: dppca.dp_scree(
        data, 3, 2.0, 1e-6, loading_epsilon=1.0, loading_delta=1e-6, random_state=0
    ),
    "dp_score": lambda data: dppca.dp_score(
        data, 2.0, 1e-6, loading_epsilon=1.0, loading_delta=1e-6, random_state=0
    ),
    "dp_scale": lambda data: dppca.dp_scale(data, 2.0, 1e-6, random_state=0),
}


def _names(result) -> list[str]:
    return list(result.feature_names)


@pytest.mark.parametrize("kind", list(FRAMES))
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_names_the_variables_of_every_frame(kind, entry):
    X = _rows()
    result = ENTRY_POINTS[entry](FRAMES[kind](X))
    assert _names(result) == NAMES
    bare = ENTRY_POINTS[entry](X)
    assert _names(bare) == ["X1", "X2", "X3"]
    if hasattr(result, "directions"):
        np.testing.assert_array_equal(result.directions, bare.directions)


@pytest.mark.parametrize("kind", [*FRAMES, "dask"])
def test_dppca_names_the_variables_of_every_frame(kind):
    """scikit-learn reads pandas, polars and pyarrow names itself; xarray's coordinate and Dask
    data frames' columns reach the estimator's notes through the package."""
    make = _dask if kind == "dask" else FRAMES[kind]
    data = make(_rows() * [30.0, 1.0, 1.0])  # PC1 almost one variable: a note names it
    if kind == "dask":
        data = data.compute()  # scikit-learn's estimators take data in memory
    with pytest.warns(dppca.NoiseDominatedWarning, match="PC1 is almost one variable, 'height'"):
        dppca.DPPCA(2, epsilon=4.0, delta=1e-6, random_state=0).fit(data)


def test_dask_data_frames_name_the_variables():
    result = dppca.dp_loading(_dask(_rows()), 2.0, 1e-6, random_state=0)
    assert _names(result) == NAMES


def test_text_and_missing_cells_of_other_frames_are_refused_by_name():
    pl = pytest.importorskip("polars")
    with pytest.raises(TypeError, match="not numeric: 'name'"):
        dppca.dp_loading(pl.DataFrame({"name": ["a", "b", "c"], "x": [1.0, 2.0, 3.0]}), 1.0, 0.1)
    with pytest.raises(ValueError, match="X must contain only finite values"):
        dppca.dp_loading(pl.DataFrame({"x": [1.0, None, 3.0], "y": [1, 2, 3]}), 1.0, 0.1)
