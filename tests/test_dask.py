"""Row-chunked Dask data: the same releases as NumPy data, on a real two-process cluster."""

from __future__ import annotations

import numpy as np
import pytest

import dppca
from dppca import dp_loading, kendall_matrix

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two worker processes on loopback, closed after the module."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


def _heavy_tailed(n=1501, p=5, seed=0):
    return np.random.default_rng(seed).standard_t(3, size=(n, p)) * [4.0, 2.0, 1.0, 1.0, 0.5] + 7


#: Uneven row chunks, single rows among them.
CHUNKS = (1, 600, 1, 1, 400, 498)


def _chunked(X, chunks=CHUNKS):
    return da.from_array(X, chunks=(chunks, X.shape[1]))


@pytest.mark.parametrize("pairs", ["all", 2, 8, 64])
def test_kernel_matches_numpy_on_uneven_chunks(client, pairs):
    X = _heavy_tailed()
    expected = kendall_matrix(X, pairs=pairs, random_state=4)
    assert (
        np.max(np.abs(kendall_matrix(_chunked(X), pairs=pairs, random_state=4) - expected)) < 1e-12
    )


def test_winsorized_and_callable_signs_match_numpy(client):
    X = _heavy_tailed(n=700)
    chunked = _chunked(X, (350, 1, 349))
    for transform, radius in (("winsorized", 2.0), (lambda s: np.log1p(s), 3.0)):
        for pairs in ("all", 6):
            expected = kendall_matrix(X, transform, radius, pairs=pairs, random_state=1)
            got = kendall_matrix(chunked, transform, radius, pairs=pairs, random_state=1)
            assert np.max(np.abs(got - expected)) < 1e-12


@pytest.mark.parametrize(
    "options",
    [{}, {"transform": "winsorized", "radius": "auto"}, {"pairs": 10}, {"sampler": "continuous"}],
)
def test_loading_release_equals_numpy_for_a_seed(client, options):
    X = _heavy_tailed()
    expected = dp_loading(X, 2.0, 1e-6, random_state=7, non_private=True, **options)
    got = dp_loading(_chunked(X), 2.0, 1e-6, random_state=7, non_private=True, **options)
    assert np.max(np.abs(got.kendall - expected.kendall)) < 1e-12
    assert np.max(np.abs(got.directions - expected.directions)) < 1e-10
    assert got.settings == expected.settings
    assert got.privacy.to_frame().equals(expected.privacy.to_frame())
    assert np.max(np.abs(got.non_private.directions - expected.non_private.directions)) < 1e-10


def test_data_frames_keep_their_column_names(client):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    frame = pd.DataFrame(_heavy_tailed(n=300)[:, :3], columns=["height", "weight", "age"])
    result = dp_loading(dd.from_pandas(frame, npartitions=3), 2.0, 1e-6, random_state=0)
    assert result.feature_names == ["height", "weight", "age"]


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        (np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]]), ValueError, "only finite values"),
        (np.array([[1.0, np.inf], [2.0, 3.0], [4.0, 5.0]]), ValueError, "only finite values"),
        (np.array([[1.0, 2.0]]), ValueError, "at least 2 rows"),
        (np.array(["a", "b"]).reshape(1, 2).repeat(3, axis=0), TypeError, "real numbers"),
        (np.ones(5), ValueError, "must be 2-D"),
    ],
)
def test_bad_dask_data_is_refused_before_any_noise(values, error, message):
    accountant = dppca.Accountant(dppca.Budget(1.0, 1e-5))
    with pytest.raises(error, match=message):
        dp_loading(da.from_array(values), 1.0, 1e-6, accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_dask_data_stay_where_they_are_and_are_not_modified(client):
    X = _heavy_tailed(n=400)
    copy = X.copy()
    chunked = _chunked(X, (200, 200))
    dp_loading(chunked, 1.0, 1e-6, pairs=6, random_state=0)
    assert np.array_equal(X, copy)
    assert np.array_equal(chunked.compute(), copy)


@pytest.mark.parametrize("pairs", ["all", 4])
def test_neighbours_differ_by_at_most_the_sensitivity_on_dask(client, pairs):
    """The worst replacement (all other rows at one point, the replaced row moved from e1 to
    e2) and one row at 1e300 among rows at 1e-300: on Dask data the computed matrices of
    neighbouring data sets differ by at most the sensitivity with its floating-point allowance."""
    from dppca.numerics.kendall import unit_error_bound
    from dppca.numerics.sensitivity import kendall_sensitivity
    from dppca.numerics.signs import SphericalSign

    n, p = 401, 3
    rng = np.random.default_rng(2)
    cases = []
    clustered = np.zeros((n, p)) + 1e-9 * rng.standard_normal((n, p))
    moved = clustered.copy()
    clustered[0], moved[0] = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    cases.append((clustered, moved))
    tiny = rng.standard_normal((n, p)) * 1e-300
    huge = tiny.copy()
    huge[0] = [1e300, -1e300, 1e300]
    cases.append((tiny, huge))
    degree = None if pairs == "all" else pairs
    allowance = unit_error_bound(p, SphericalSign(), degree)
    bound = kendall_sensitivity(1.0, n, float_error=allowance)
    changes = []
    for first, second in cases:
        K, L = (
            kendall_matrix(_chunked(data, (100, 1, 150, 150)), pairs=pairs, random_state=3)
            for data in (first, second)
        )
        changes.append(np.linalg.norm(K - L))
    assert max(changes) <= bound
    assert changes[0] >= 0.99 * 2 * np.sqrt(2) / n  # the worst case reaches the bound
