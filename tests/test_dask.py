"""Row-chunked Dask data: the same releases as NumPy data, on a real two-process cluster."""

from __future__ import annotations

import numpy as np
import pandas as pd
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
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # 8787 may be taken
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
@pytest.mark.parametrize("task_rows", [2**15, 7, 500])
def test_kernel_matches_numpy_on_uneven_chunks(client, pairs, task_rows, monkeypatch):
    """Also with the design cut into many tasks: runs of 7 positions (each task's overlap of
    ``pairs / 2`` rows reaches into the next runs) and of 500 (a last, shorter run)."""
    monkeypatch.setattr("dppca.numerics.dask_rows.DESIGN_TASK_ROWS", task_rows)
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
    expected = dp_loading(
        X, 2.0, 1e-6, random_state=7, non_private=True, **options, on_weak="release"
    )
    got = dp_loading(
        _chunked(X), 2.0, 1e-6, random_state=7, non_private=True, **options, on_weak="release"
    )
    assert np.max(np.abs(got.kendall - expected.kendall)) < 1e-12
    assert np.max(np.abs(got.directions - expected.directions)) < 1e-10
    assert got.settings == expected.settings
    assert got.privacy.to_frame().equals(expected.privacy.to_frame())
    assert np.max(np.abs(got.non_private.directions - expected.non_private.directions)) < 1e-10


def test_data_frames_keep_their_column_names(client):
    dd = pytest.importorskip("dask.dataframe")

    frame = pd.DataFrame(_heavy_tailed(n=300)[:, :3], columns=["height", "weight", "age"])
    result = dp_loading(
        dd.from_pandas(frame, npartitions=3), 2.0, 1e-6, random_state=0, on_weak="release"
    )
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
        dp_loading(da.from_array(values), 1.0, 1e-6, accountant=accountant, on_weak="release")
    assert accountant.spent.epsilon == 0


def test_dask_data_stay_where_they_are_and_are_not_modified(client):
    X = _heavy_tailed(n=400)
    copy = X.copy()
    chunked = _chunked(X, (200, 200))
    dp_loading(chunked, 1.0, 1e-6, pairs=6, random_state=0, on_weak="release")
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


def _assert_same_release(got, expected, path="release"):
    """Two JSON-like releases agree: the same keys, texts and shapes, numbers to 1e-10."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), path
        for key in expected:
            _assert_same_release(got[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), path
        for index, (left, right) in enumerate(zip(got, expected, strict=True)):
            _assert_same_release(left, right, f"{path}[{index}]")
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-12, nan_ok=True), path
    else:
        assert got == expected, path


def _ancestry_like(n=1203, seed=5):
    """Three groups apart along the first two variables, sorted by group (as such files are)."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.array(["AFR", "EAS", "EUR"]), [n // 3, n // 3, n - 2 * (n // 3)])
    centres = {"AFR": [6.0, 0.0], "EAS": [-3.0, 5.0], "EUR": [-3.0, -5.0]}
    X = rng.standard_t(4, size=(n, 5))
    X[:, :2] += np.array([centres[label] for label in labels])
    return X, labels


@pytest.mark.parametrize("with_groups", [False, True])
def test_pca_release_equals_numpy_for_a_seed(client, with_groups):
    X, labels = _ancestry_like()
    chunks = (1, 500, 1, 701)
    groups = labels if with_groups else None
    options = {"scree": {"k": 3}, "groups": groups, "random_state": 11, "non_private": True}
    expected = dppca.dp_pca(X, 3.0, 1e-6, **options, on_weak="release")
    got = dppca.dp_pca(_chunked(X, chunks), 3.0, 1e-6, **options, on_weak="release")
    _assert_same_release(got.to_dict(True), expected.to_dict(True))
    if with_groups:  # the labels held by Dask too, gathered on the client
        options["groups"] = da.from_array(labels, chunks=(chunks,))
        again = dppca.dp_pca(_chunked(X, chunks), 3.0, 1e-6, **options, on_weak="release")
        _assert_same_release(again.to_dict(True), expected.to_dict(True))


#: The budget of the private directions a scree or score release estimates first.
LOADING_BUDGET = {"loading_epsilon": 1.0, "loading_delta": 1e-6}


@pytest.mark.parametrize(
    ("method", "control"),
    [
        ("clipped", None),
        ("pmwm", {"a": 0.0, "b": 30.0, "trim_const": 10, "eta": 0.01}),
        ("huber", None),
    ],
)
def test_scree_release_equals_numpy_for_a_seed(client, method, control):
    X, _ = _ancestry_like(n=900)
    options = {"method": method, "control": control, "random_state": 2, **LOADING_BUDGET}
    options["non_private"] = True
    expected = dppca.dp_scree(X, 3, 2.0, 1e-6, **options, on_weak="release")
    got = dppca.dp_scree(_chunked(X, (450, 1, 449)), 3, 2.0, 1e-6, **options, on_weak="release")
    pd.testing.assert_frame_equal(got.to_frame(), expected.to_frame(), rtol=1e-10, atol=1e-12)
    assert got.privacy.to_frame().equals(expected.privacy.to_frame())
    assert np.allclose(got.non_private.eigenvalues, expected.non_private.eigenvalues, rtol=1e-10)


def _counts_or_sums(part):
    """A chunk's result is a count or an exact sum: grid cell counts, integer counts, or the
    exact integer sums of the column means (never a float row of scores)."""
    from dppca.numerics.grids import CellCounts

    if isinstance(part, CellCounts):
        return part.counts.dtype.kind == "i"
    if isinstance(part, list):
        return all(isinstance(value, int) for value in part)
    return isinstance(part, np.ndarray) and part.dtype.kind == "i"


@pytest.mark.parametrize("method", ["clipped", "pmwm", "huber"])
def test_scores_stay_on_the_workers_and_only_counts_come_back(client, monkeypatch, method):
    """dp_pca on Dask data gathers no score: every reduction returns counts or exact sums
    (combined on the workers), and the release equals NumPy's."""
    from dppca.numerics.dask_rows import DaskValues

    X, labels = _ancestry_like(n=1203)
    pmwm = {"a": 0.0, "b": 30.0, "trim_const": 10, "eta": 0.01, "split_mode": True}
    control = pmwm if method == "pmwm" else None
    scree = {"method": method, "k": 3, "control": control}
    options = {"groups": labels, "random_state": 5, "scree": scree}
    expected = dppca.dp_pca(X, 3.0, 1e-6, **options, on_weak="release")
    returned = []
    reduce = DaskValues.reduce

    def recording(self, function, *args, combine, aligned=None):
        result = reduce(self, function, *args, combine=combine, aligned=aligned)
        returned.append(result)
        return result

    def refused(self):
        raise AssertionError("scores were gathered on the client")

    monkeypatch.setattr(DaskValues, "reduce", recording)
    monkeypatch.setattr(DaskValues, "to_numpy", refused)
    got = dppca.dp_pca(_chunked(X, (1, 600, 1, 601)), 3.0, 1e-6, **options, on_weak="release")
    _assert_same_release(got.to_dict(), expected.to_dict())
    assert returned and all(_counts_or_sums(part) for part in returned)


def test_empty_partitions_of_a_filtered_frame_are_dropped_before_any_charge(client):
    """A filtered data frame leaves partitions empty (more chunks than rows here): the data are
    rechunked at validation, so no release fails after its charge, and the results are NumPy's."""
    dd = pytest.importorskip("dask.dataframe")

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(1000, 3)), columns=list("abc"))
    kept = frame[frame.a > 1.9]
    filtered = dd.from_pandas(frame, npartitions=50)
    filtered = filtered[filtered.a > 1.9]
    options = {"directions": np.eye(3), "random_state": 0}
    for method in ("clipped", "huber"):
        expected = dppca.dp_scree(
            kept.to_numpy(), 2, 1.0, 1e-6, method=method, **options, on_weak="release"
        )
        got = dppca.dp_scree(filtered, 2, 1.0, 1e-6, method=method, **options, on_weak="release")
        assert np.allclose(got.values[method], expected.values[method], rtol=1e-12)
    expected = dppca.dp_score(kept.to_numpy(), 2.0, 1e-6, **options, on_weak="release")
    got = dppca.dp_score(filtered, 2.0, 1e-6, **options, on_weak="release")
    pd.testing.assert_frame_equal(got.histograms["thresholded"], expected.histograms["thresholded"])


def test_chunked_values_reduce_to_the_whole_arrays_bit_for_bit(client):
    """Pairs, halves and transforms of Dask values, and their counts and exact means, equal
    NumPy's on uneven chunks with single rows among them."""
    from dppca.numerics.dask_rows import DaskValues
    from dppca.numerics.grids import log_cells
    from dppca.numerics.pairs import half_squared_gaps
    from dppca.numerics.permutation import random_permutation
    from dppca.numerics.row_values import ArrayValues, cell_counts, column_means, column_of

    X = _heavy_tailed(n=1001)[:, :3]
    pairs = random_permutation(1001, np.random.default_rng(1))
    halves = random_permutation(500, np.random.default_rng(2))
    for source in (ArrayValues(X), DaskValues(_chunked(X, (1, 1, 499, 500)))):
        W = source.pairs(pairs, half_squared_gaps)
        first, rest = W.halves(halves)
        subset = first.map(np.minimum, 5.0)
        counted = cell_counts(W.map(column_of, 1), log_cells)
        results = (
            column_means(W),
            column_means(subset),
            column_means(rest),
            counted.cells,
            counted.counts,
            rest.to_numpy(),
        )
        if isinstance(source, ArrayValues):
            expected = results
            continue
        assert W.shape == (500, 3) and subset.shape == (250, 3) and rest.shape == (250, 3)
        for got, want in zip(results, expected, strict=True):
            assert np.array_equal(got, want)


def test_reductions_over_many_chunks_combine_in_a_tree_to_numpys_results():
    """73 chunks (three levels of the workers' tree, eight at a time): grid counts, counts
    below points, summed counts and exact means equal NumPy's bit for bit."""
    import dask

    from dppca.numerics.dask_rows import COMBINE_FAN_IN, DaskValues
    from dppca.numerics.grids import log_cells
    from dppca.numerics.row_values import (
        ArrayValues,
        cell_counts,
        column_means,
        counts_below,
        summed,
    )

    values = np.abs(_heavy_tailed(n=700)[:, 0]) * 10.0 ** np.repeat(np.arange(-3, 4), 100)
    chunks = (1, 2, 3, 4) + (10,) * 69
    assert sum(chunks) == 700 and len(chunks) > COMBINE_FAN_IN**2
    points = np.array([-100.0, -1.0, -0.01])
    results = []
    for source in (ArrayValues(values), DaskValues(da.from_array(values, chunks=chunks))):
        with dask.config.set(scheduler="sync"):
            counted = cell_counts(source, log_cells)
            below = counts_below(source, points, np.negative)
            results.append(
                (
                    counted.cells,
                    counted.counts,
                    below,
                    summed(source, np.size),
                    column_means(source),
                )
            )
    assert results[0][3] == 700 and results[0][2].tolist() == [
        int(np.sum(-values < t)) for t in points
    ]
    for got, want in zip(results[1], results[0], strict=True):
        assert np.array_equal(got, want)


@pytest.mark.parametrize(
    ("n", "chunks"),
    [(1, (1,)), (2, (1, 1)), (7, (3, 1, 3)), (1001, (1, 1, 499, 500)), (4096, (1000,) * 4 + (96,))],
)
def test_rows_moved_by_the_workers_are_in_the_permutations_order(n, chunks):
    """:func:`permuted` equals NumPy's ``X[order]`` for any output chunks, the pairs' even
    chunks among them (no cluster needed: the synchronous scheduler)."""
    from dppca.numerics.dask_order import even_chunks, permuted
    from dppca.numerics.permutation import random_permutation

    X = np.random.default_rng(n).standard_normal((n, 2))
    permutation = random_permutation(n, np.random.default_rng(n + 1))
    array = da.from_array(X, chunks=(chunks, 2))
    for out in (chunks, even_chunks(n, chunks), (n,)):
        moved = permuted(array, permutation, out)
        assert moved.chunks[0] == tuple(out)
        assert np.array_equal(moved.compute(scheduler="sync"), X[permutation.order()])
    pair_chunks = even_chunks(n, chunks)
    assert all(size >= 2 for size in pair_chunks[:-1]) and all(s % 2 == 0 for s in pair_chunks[:-1])
    with pytest.raises(ValueError, match="must cover"):
        permuted(array, permutation, (n + 1,))


@pytest.mark.parametrize(
    ("n", "chunks", "windows", "overlap"),
    [(5, (2, 3), (5,), 2), (5, (5,), (1, 1, 3), 2), (1001, (1, 600, 1, 399), (7,) * 143, 32)],
)
def test_windows_hold_their_positions_and_the_overlap_after_them(n, chunks, windows, overlap):
    """Window ``o`` holds ``order[(s_o + j) % n]`` for ``j < size_o + overlap``: rows repeat
    when a window wraps past the end, or its overlap reaches beyond the next window."""
    from dppca.numerics.dask_order import permuted_windows
    from dppca.numerics.permutation import random_permutation

    X = np.random.default_rng(n).standard_normal((n, 3))
    permutation = random_permutation(n, np.random.default_rng(1))
    order = permutation.order()
    delayed_windows = permuted_windows(_chunked(X, chunks), permutation, windows, overlap)
    starts = np.concatenate([[0], np.cumsum(windows)])
    for o, window in enumerate(delayed_windows):
        expected = X[order[(starts[o] + np.arange(windows[o] + overlap)) % n]]
        assert np.array_equal(window.compute(scheduler="sync"), expected)
    with pytest.raises(ValueError, match="nonnegative overlap"):
        permuted_windows(_chunked(X, chunks), permutation, windows, -1)


def test_the_graph_sent_by_the_client_does_not_grow_with_the_rows():
    """The design, the pairs and the halves send the permutation's keys and the chunk bounds:
    for the same chunk count, the pickled graph of 10^5 rows is as large as that of 10^3
    (an index per row would add 800 kB)."""
    import pickle

    from dppca.numerics.dask_order import permuted
    from dppca.numerics.dask_rows import DaskValues
    from dppca.numerics.pairs import half_squared_gaps
    from dppca.numerics.permutation import random_permutation

    def graph_bytes(n: int) -> list[int]:
        array = da.zeros((n, 3), chunks=(n // 4, 3))
        permutation = random_permutation(n, np.random.default_rng(0))
        collections = [
            permuted(array, permutation, array.chunks[0]),
            DaskValues(array).paired(permutation, half_squared_gaps),
        ]
        return [len(pickle.dumps(dict(c.__dask_graph__()))) for c in collections]

    small, large = graph_bytes(1_000), graph_bytes(100_000)
    assert all(b - a < 2_000 for a, b in zip(small, large, strict=True)), (small, large)


def test_score_release_with_a_group_column_of_a_dask_frame(client):
    dd = pytest.importorskip("dask.dataframe")

    X, labels = _ancestry_like()
    frame = pd.DataFrame(X, columns=[f"snp{j}" for j in range(5)]).assign(population=labels)
    options = {"groups": "population", "random_state": 3, "non_private": True, **LOADING_BUDGET}
    expected = dppca.dp_score(frame, 2.0, 1e-6, **options, on_weak="release")
    got = dppca.dp_score(
        dd.from_pandas(frame, npartitions=4), 2.0, 1e-6, **options, on_weak="release"
    )
    assert np.allclose(got.frame.center, expected.frame.center, rtol=1e-10)
    assert got.frame.half_width == pytest.approx(expected.frame.half_width, rel=1e-10)
    for name, table in expected.histograms.items():
        pd.testing.assert_frame_equal(got.histograms[name], table, rtol=1e-10, atol=1e-12)
    assert got.group_sizes == expected.group_sizes
    assert got.privacy.to_frame().equals(expected.privacy.to_frame())


def test_private_scaling_of_dask_data_is_refused_before_any_charge():
    X, _ = _ancestry_like(n=200)
    accountant = dppca.Accountant(dppca.Budget(5.0, 1e-5))
    with pytest.raises(ValueError, match="scale='private' needs the data in memory"):
        dppca.dp_pca(
            _chunked(X, (100, 100)),
            2.0,
            1e-6,
            scale="private",
            accountant=accountant,
            on_weak="release",
        )
    assert accountant.spent.epsilon == 0


def test_public_scales_apply_chunk_by_chunk(client):
    X, _ = _ancestry_like(n=600)
    scales = np.array([2.0, 1.0, 0.5, 4.0, 1e-3])
    expected = dppca.dp_pca(
        X, 2.0, 1e-6, scale=scales, random_state=4, on_weak="release", scree={"k": 2}
    )
    got = dppca.dp_pca(
        _chunked(X, (300, 300)),
        2.0,
        1e-6,
        scale=scales,
        random_state=4,
        on_weak="release",
        scree={"k": 2},
    )
    _assert_same_release(got.to_dict(), expected.to_dict())


def _cli_run(data, out, *extra):
    from dppca.cli import main

    argv = ["run", str(data), "--epsilon", "3", "--delta", "1e-6", "--group", "site"]
    code = main([*argv, "--seed", "5", "--k", "3", "--out", str(out), "--quiet", *extra])
    return code, (out / "release.json")


@pytest.fixture
def site_table(tmp_path):
    rng = np.random.default_rng(1)
    table = pd.DataFrame(rng.standard_t(4, size=(900, 4)) * [3, 2, 1, 1], columns=list("abcd"))
    table["site"] = rng.choice(["north", "south", "west"], size=900)
    path = tmp_path / "data.csv"
    table.to_csv(path, index=False)
    return table, path


def test_command_line_on_a_scheduler_reads_csv_and_parquet_in_blocks(client, site_table, tmp_path):
    import json

    dd = pytest.importorskip("dask.dataframe")
    table, csv = site_table
    folder = tmp_path / "data.parquet"
    dd.from_pandas(table, npartitions=3).to_parquet(folder)  # three files, read as three blocks
    code, expected = _cli_run(csv, tmp_path / "memory")
    assert code == 0
    address = client.scheduler.address
    for data, name in ((csv, "csv"), (folder, "parquet")):
        code, got = _cli_run(data, tmp_path / name, "--scheduler", address)
        assert code == 0
        _assert_same_release(json.loads(got.read_text()), json.loads(expected.read_text()))


def test_command_line_scheduler_errors_are_one_line(
    client, site_table, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr("dppca.cli.SCHEDULER_TIMEOUT", "2s")  # nothing listens on port 9
    table, csv = site_table
    table.loc[400, "c"] = np.nan
    bad = tmp_path / "bad.csv"
    table.to_csv(bad, index=False)
    address = client.scheduler.address
    code, _ = _cli_run(bad, tmp_path / "nan", "--scheduler", address)
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        f"dppca: error: {bad}: column 'c' has missing or infinite values; remove or impute them "
        "first"
    )
    code, _ = _cli_run(csv, tmp_path / "nowhere", "--scheduler", "tcp://127.0.0.1:9")
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert "cannot connect to the Dask scheduler at tcp://127.0.0.1:9" in error
    assert not (tmp_path / "nan").exists() and not (tmp_path / "nowhere").exists()


def test_labels_stay_with_their_rows_when_every_read_reorders_them():
    """A shuffled frame read with the disk shuffle comes back in another row order on each
    compute: the labels must still be those of their own rows."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    n = 20_000
    x, y = rng.normal(size=n), rng.normal(size=n)
    frame = pd.DataFrame({"key": rng.integers(0, 500, n).astype(float), "x": x, "y": y})
    frame["g"] = np.where(x > 0, "pos", "neg")
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "disk"}):
        shuffled = dd.from_pandas(frame, npartitions=8).shuffle("key", npartitions=4)
        for groups in ("g", shuffled["g"]):
            X = shuffled if isinstance(groups, str) else shuffled.drop(columns="g")
            result = dppca.dp_score(
                X,
                2.0,
                1e-6,
                directions=np.eye(3)[:, [1, 2, 0]],  # PC1 is x
                groups=groups,
                random_state=1,
                non_private=True,
                on_weak="release",
            )
            scores = result.non_private.scores
            assert ((scores.iloc[:, 0] > 0) == (scores["group"] == "pos")).all()


def test_categories_known_only_from_the_data_are_sorted_not_taken_by_appearance(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3)) * [3, 2, 1]
    path = tmp_path / "cat.csv"
    labels = np.array(["south"] * 2000 + ["north"] * 2000)
    pd.DataFrame(X, columns=list("xyz")).assign(g=labels).to_csv(path, index=False)
    options = {"directions": np.eye(3), "groups": "g", "random_state": 3}
    expected = dppca.dp_score(
        pd.read_csv(path, dtype={"g": "category"}), 2.0, 1e-6, **options, on_weak="release"
    )
    chunked = dd.read_csv(path, dtype={"g": "category"}, blocksize=60_000)
    got = dppca.dp_score(chunked, 2.0, 1e-6, **options, on_weak="release")
    assert list(got.groups) == list(expected.groups) == ["north", "south"]
    assert got.group_sizes == expected.group_sizes


def test_projection_gathers_rows_in_order_to_rounding(client):
    """With directions in Fortran order (as a column selection gives) and p = 60: every score as
    the NumPy path's to a few units in the last place (BLAS's kernels and threads differ between
    a chunk on a single-threaded worker, a 1-row chunk and the whole matrix)."""
    from dppca.numerics.dask_rows import check_dask_data
    from dppca.numerics.linalg import project
    from dppca.numerics.rows import projected

    X = np.random.default_rng(3).standard_normal((3001, 60))
    directions = np.linalg.qr(np.random.default_rng(4).standard_normal((60, 60)))[0][:, [3, 0]]
    assert directions.flags.f_contiguous
    expected = project(X, directions)
    got = projected(check_dask_data(_chunked(X, (1000, 1, 2000))), directions).to_numpy()
    assert np.max(np.abs(got - expected)) <= 4 * np.finfo(float).eps * np.max(np.abs(expected))


def test_command_line_blocks_name_a_text_cell_without_its_value(client, tmp_path, capsys):
    """A text cell far into a column that looks numeric in its first block: the in-memory
    message, no value; a column left out with --columns is not read at all."""
    rng = np.random.default_rng(2)
    table = pd.DataFrame(rng.integers(0, 9, size=(60_000, 3)), columns=list("abc")).astype(object)
    table["d"] = table["a"].astype(str)
    table.loc[59_000, "c"] = "SECRET-4711"
    table.loc[59_001, "b"] = 3.25  # a float late in an integer-looking column is fine
    table.loc[59_002, "d"] = "SECRET-0815"
    path = tmp_path / "text.csv"
    table.to_csv(path, index=False)
    address = client.scheduler.address
    argv = ["run", str(path), "--epsilon", "3", "--delta", "1e-6", "--quiet"]
    from dppca.cli import main

    code = main([*argv, "--out", str(tmp_path / "all"), "--scheduler", address])
    error = capsys.readouterr().err
    assert code == 2 and "SECRET" not in error
    assert error.strip() == (
        f"dppca: error: {path}: column 'c' is not numeric; leave it out with --columns, pass it "
        "as --group if it holds labels, or pass --decimal , if it has decimal commas (3,14)"
    )
    code = main(
        [*argv, "--columns", "a", "b", "--out", str(tmp_path / "ab"), "--scheduler", address]
    )
    assert code == 0, capsys.readouterr().err


def test_command_line_names_missing_values_of_nullable_parquet_columns(client, tmp_path, capsys):
    table = pd.DataFrame({"a": pd.array([1, 2, None, 4] * 100, dtype="Int64")})
    table["b"] = np.arange(400.0) % 7
    path = tmp_path / "na.parquet"
    table.to_parquet(path)
    from dppca.cli import main

    argv = ["run", str(path), "--epsilon", "3", "--delta", "1e-6", "--quiet"]
    for extra in ([], ["--scheduler", client.scheduler.address]):
        code = main([*argv, "--out", str(tmp_path / f"out{len(extra)}"), *extra])
        assert code == 2
        assert f"{path}: column 'a' has missing or infinite values" in capsys.readouterr().err


def test_auto_takes_the_kendall_matrix_for_dask_data_and_the_sscm_is_refused(client):
    """The SSCM's centre steps need the rows in memory: ``statistic="auto"`` takes the Kendall
    matrix for Dask data (the same release as NumPy's Kendall matrix for a seed), and an
    explicit ``"sscm"`` is refused before any charge."""
    X = _heavy_tailed(n=3001, p=5)
    chunks = (1500, 1501)
    accountant = dppca.Accountant(dppca.Budget(10.0, 1e-5))
    got = dp_loading(_chunked(X, chunks), 2.0, 1e-6, statistic="auto", random_state=3)
    expected = dp_loading(X, 2.0, 1e-6, statistic="kendall", random_state=3)
    np.testing.assert_allclose(got.directions, expected.directions, rtol=1e-9, atol=1e-12)
    assert dp_loading(X, 2.0, 1e-6, statistic="auto", random_state=3).settings["statistic"] == (
        "sscm"
    )
    with pytest.raises(ValueError, match="statistic='sscm' needs the data in memory"):
        dp_loading(_chunked(X, chunks), 2.0, 1e-6, statistic="sscm", accountant=accountant)
    pca = dppca.dp_pca(
        _chunked(X, chunks), 6.0, 1e-6, loading={"statistic": "auto"}, random_state=3
    )
    assert pca.method == "g-DPPCA"
    assert accountant.spent == dppca.Budget(0.0, 0.0)
