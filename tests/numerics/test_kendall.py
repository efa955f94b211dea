"""The fast Kendall kernel against the direct O(n^2 d^2) reference, and its invariances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dppca import kendall_matrix
from dppca.numerics.permutation import random_permutation

from kendall_reference import (
    circulant_pairs,
    direct_kendall,
    pair_outer_sum,
    spherical_h2,
    winsorized_h2,
)

TOLERANCE = 1e-12


def _random(n=120, p=5, seed=0):
    return np.random.default_rng(seed).standard_normal((n, p)) * [3.0, 2.0, 1.0, 1.0, 0.5][:p]


def _cauchy(n=120, p=5, seed=1):
    return np.random.default_rng(seed).standard_t(1, size=(n, p))


def _near_duplicates(n=100, p=4, seed=2):
    """Rows offset by 10 (so the Laplacian form would cancel), with pairs 1e-4 .. 1e-13 apart."""
    rng = np.random.default_rng(seed)
    X = 10.0 + rng.standard_normal((n, p))
    for row, gap in enumerate([1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-13]):
        X[row + 50] = X[row] + gap * rng.standard_normal(p)
    return X


def _duplicates(n=90, p=3, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[10:20] = X[0]  # eleven identical rows: 55 zero pairs
    X[30] = X[31]
    return X


DATASETS = {
    "gaussian": _random,
    "cauchy": _cauchy,
    "near-duplicates": _near_duplicates,
    "duplicates": _duplicates,
    "scaled 1e-150": lambda: _random(seed=4) * 1e-150,
    "scaled 1e150": lambda: _random(seed=5) * 1e150,
    "offset 1e6": lambda: _random(seed=6) + 1e6,
}


def _radius(X):
    """A public-looking radius in the data's units (the median half-distance of a few pairs),
    within the allowed range of radii."""
    radius = float(np.median(np.linalg.norm(X[1:40] - X[:39], axis=1))) / np.sqrt(2)
    return min(radius, 1e150)


@pytest.mark.parametrize("name", DATASETS)
def test_spherical_matches_direct_kernel(name):
    X = DATASETS[name]()
    fast = kendall_matrix(X)
    assert np.max(np.abs(fast - direct_kendall(X))) <= TOLERANCE


@pytest.mark.parametrize(("tile_rows", "chunk_pairs"), [(1, 1), (7, 3), (64, 8192)])
@pytest.mark.parametrize("name", DATASETS)
def test_tiles_and_chunks_match_direct_kernel(name, tile_rows, chunk_pairs):
    # Tiles of 1 and 7 rows put the near-duplicate pairs (rows r and r + 50) in different tiles,
    # tiles of 64 in one (diagonal) tile; chunks of 1 and 3 pairs split the explicit sums.
    from dppca.numerics.kendall import unit_kendall
    from dppca.numerics.signs import SphericalSign, WinsorizedSign

    X = DATASETS[name]()
    sizes = {"tile_rows": tile_rows, "chunk_pairs": chunk_pairs}
    fast = unit_kendall(X, SphericalSign(), **sizes)
    assert np.max(np.abs(fast - direct_kendall(X))) <= TOLERANCE
    radius = _radius(X)
    fast = unit_kendall(X, WinsorizedSign(radius), **sizes)
    reference = direct_kendall(X, winsorized_h2(radius))
    assert np.max(np.abs(fast - reference / radius**2)) <= TOLERANCE


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e307])
def test_spherical_works_beyond_the_required_scales(scale):
    X = _random(seed=8) * scale
    assert np.max(np.abs(kendall_matrix(X) - direct_kendall(X))) <= TOLERANCE


@pytest.mark.parametrize("name", DATASETS)
def test_winsorized_matches_direct_kernel(name):
    X = DATASETS[name]()
    radius = _radius(X)
    fast = kendall_matrix(X, "winsorized", radius)
    reference = direct_kendall(X, winsorized_h2(radius))
    # K is bounded by radius^2 in norm: compare in units of radius^2.
    assert np.max(np.abs(fast - reference)) / radius**2 <= TOLERANCE


def test_winsorized_with_huge_radius_is_the_unwinsorized_sign_matrix():
    X = _random()
    radius = 1e6
    fast = kendall_matrix(X, "winsorized", radius)
    reference = direct_kendall(X, lambda s: s**2)
    assert np.max(np.abs(fast - reference)) <= TOLERANCE * np.max(np.abs(reference))


def test_callable_h_is_capped_at_its_declared_bound():
    X = _cauchy()
    bound = 2.0
    fast = kendall_matrix(X, lambda s: 3.0 * np.log1p(s), bound)
    reference = direct_kendall(X, lambda s: np.minimum(3.0 * np.log1p(s), bound) ** 2)
    assert np.max(np.abs(fast - reference)) <= TOLERANCE
    assert np.trace(fast) <= bound**2 + 1e-12


@pytest.mark.parametrize("name", ["gaussian", "cauchy", "scaled 1e-150", "scaled 1e150"])
def test_trace_is_one_without_duplicates(name):
    assert np.trace(kendall_matrix(DATASETS[name]())) == pytest.approx(1.0, abs=1e-13)


def test_duplicates_contribute_zero():
    X = _duplicates()
    n = X.shape[0]
    zero_pairs = 11 * 10 // 2 + 1
    expected = 1.0 - zero_pairs / (n * (n - 1) / 2)
    assert np.trace(kendall_matrix(X)) == pytest.approx(expected, abs=1e-13)


def test_all_rows_identical_gives_zero_matrix():
    X = np.ones((10, 3))
    assert np.array_equal(kendall_matrix(X), np.zeros((3, 3)))


def test_symmetric_positive_semidefinite():
    K = kendall_matrix(_cauchy())
    assert np.array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() >= -1e-14


def test_spherical_is_translation_scale_and_rotation_equivariant():
    X = _random()
    rotation, _ = np.linalg.qr(np.random.default_rng(7).standard_normal((5, 5)))
    K = kendall_matrix(X)
    assert np.max(np.abs(kendall_matrix(3.5 * X - 40.0) - K)) <= TOLERANCE
    assert np.max(np.abs(kendall_matrix(X @ rotation) - rotation.T @ K @ rotation)) <= TOLERANCE


def test_tile_boundaries_do_not_matter():
    from dppca.numerics.kendall import unit_kendall
    from dppca.numerics.signs import SphericalSign

    X = _near_duplicates()
    matrices = [unit_kendall(X, SphericalSign(), tile_rows=size) for size in (1, 7, 64, 1000)]
    for other in matrices[1:]:
        assert np.max(np.abs(other - matrices[0])) <= 1e-14


@pytest.mark.parametrize("k", [2, 6, 40])
@pytest.mark.parametrize("name", ["gaussian", "near-duplicates", "duplicates", "scaled 1e150"])
def test_incomplete_design_matches_direct_sum_over_its_pairs(name, k):
    X = DATASETS[name]()
    n = X.shape[0]
    rows, cols = circulant_pairs(n, k, seed=11)
    reference = pair_outer_sum(X, rows, cols, spherical_h2) / (n * k / 2)
    fast = kendall_matrix(X, pairs=k, random_state=11)
    assert np.max(np.abs(fast - reference)) <= TOLERANCE


@pytest.mark.parametrize(("n", "k"), [(31, 10), (32, 10), (3, 2), (4, 2), (9, 8), (10, 8)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_incomplete_design_is_k_regular_with_distinct_pairs(n, k, seed):
    """Odd and even n, up to the largest degree each allows (n - 1 odd, n - 2 even)."""
    rows, cols = circulant_pairs(n, k, seed=seed)
    degrees = np.bincount(np.concatenate([rows, cols]), minlength=n)
    assert np.all(degrees == k)
    assert len({frozenset(pair) for pair in zip(rows, cols, strict=True)}) == n * k // 2
    assert np.all(rows != cols)


def test_design_tasks_cover_its_pairs_exactly_once():
    """The blocks the kernel sums hold exactly the design's n k / 2 pairs: a block's pair
    (t, t + c) is read off the rows it gathers."""
    from dppca.numerics.kendall import design_tasks
    from dppca.numerics.signs import SphericalSign

    for n, k, block in [(31, 10, 4), (1000, 64, 97), (7, 6, 1), (12, 10, 12)]:
        order = random_permutation(n, np.random.default_rng(n)).order()
        pairs = []
        for task in design_tasks(np.zeros((n, 1)), SphericalSign(), order, k, block):
            rows, count, half = task.args[1], task.args[2], task.args[3]
            pairs += [
                frozenset((rows[t], rows[t + c])) for c in range(1, half + 1) for t in range(count)
            ]
        rows, cols = circulant_pairs(n, k, seed=n)
        assert len(pairs) == n * k // 2
        assert set(pairs) == {frozenset(pair) for pair in zip(rows, cols, strict=True)}


def test_design_takes_the_careful_path_for_extreme_rows():
    """One row at 1e300 among rows at 1e-300, subnormal differences and duplicates: the direct
    path hands those pairs to the rescaled one, and the sum matches the reference."""
    rng = np.random.default_rng(12)
    X = rng.standard_normal((40, 3)) * 1e-300
    X[5] = [1e300, -1e300, 1e300]
    X[6] = X[7]
    X[8] = X[9] + 5e-324
    X[10] = rng.standard_normal(3) * 1e-160
    for k in (2, 10, 38):
        expected = pair_outer_sum(X, *circulant_pairs(40, k, seed=3)) / (40 * k / 2)
        assert np.max(np.abs(kendall_matrix(X, pairs=k, random_state=3) - expected)) <= TOLERANCE


def test_result_does_not_depend_on_the_number_of_threads():
    from dppca.numerics.kendall import unit_kendall
    from dppca.numerics.signs import SphericalSign, WinsorizedSign

    X = _cauchy(n=3000, p=4)
    for sign in (SphericalSign(), WinsorizedSign(2.0)):
        for degree in (None, 16):
            single, double, quad = (
                unit_kendall(X, sign, degree, np.random.default_rng(0), threads=t, tile_rows=256)
                for t in (1, 2, 4)
            )
            assert np.array_equal(single, double) and np.array_equal(single, quad)


def test_design_on_a_file_sorted_by_group_is_as_accurate_as_on_shuffled_rows():
    """1000 Genomes genotypes sorted by population: the design's error against the full
    statistic is the same as on shuffled rows (20 draws each), while the same circulant design
    on the file's own order, which pairs people of one population with each other, is far
    off."""
    from dppca.datasets import load_1kg_aisnps
    from dppca.numerics.kendall import design_tasks, sum_tasks
    from dppca.numerics.signs import SphericalSign

    genotypes, labels = load_1kg_aisnps("kidd")
    X = genotypes.to_numpy(dtype=float)[np.argsort(labels["population"], kind="stable")]
    n, k = X.shape[0], 16
    full = np.linalg.eigh(kendall_matrix(X, pairs="all"))[1][:, -2:]

    def error(K):
        top = np.linalg.eigh(K)[1][:, -2:]
        return np.linalg.norm(top - full @ (full.T @ top), 2)

    sorted_errors, shuffled_errors = [], []
    for seed in range(20):
        shuffled = X[np.random.default_rng(seed + 100).permutation(n)]
        sorted_errors.append(error(kendall_matrix(X, pairs=k, random_state=seed)))
        shuffled_errors.append(error(kendall_matrix(shuffled, pairs=k, random_state=seed)))
    assert np.median(sorted_errors) <= 1.3 * np.median(shuffled_errors)
    assert np.median(shuffled_errors) <= 1.3 * np.median(sorted_errors)
    file_order = design_tasks(X, SphericalSign(), np.arange(n), k, 8192)
    assert error(sum_tasks(file_order, X.shape[1])) > 3 * np.median(sorted_errors)


def test_pairs_auto_is_a_rule_on_n():
    from dppca.numerics.kendall import AUTO_ALL_PAIRS_ROWS, AUTO_DEGREE, check_pairs

    assert check_pairs("auto", AUTO_ALL_PAIRS_ROWS) is None
    assert check_pairs("auto", AUTO_ALL_PAIRS_ROWS + 1) == AUTO_DEGREE
    assert check_pairs("auto", 10**8) == AUTO_DEGREE
    X = _random()
    assert np.array_equal(kendall_matrix(X), kendall_matrix(X, pairs="all"))


def test_progress_bar_appears_only_for_long_computations(capsys):
    import io

    from dppca._progress import ProgressBar

    kendall_matrix(_random(), progress=True)
    assert capsys.readouterr().err == ""
    stream = io.StringIO()
    bar = ProgressBar(3, "Kendall matrix", delay=0.0, stream=stream)
    for _ in range(3):
        bar.advance()
    bar.close()
    assert stream.getvalue().endswith("100 % (0 s)\n")
    silent = io.StringIO()
    bar = ProgressBar(3, "Kendall matrix", enabled=False, delay=0.0, stream=silent)
    bar.advance(3)
    bar.close()
    assert silent.getvalue() == ""


def test_complete_incomplete_design_equals_the_u_statistic():
    X = _random(n=41)
    assert np.max(np.abs(kendall_matrix(X, pairs=40, random_state=0) - kendall_matrix(X))) <= 1e-13


def test_input_is_not_modified_and_dataframes_work():
    X = _random()
    X.flags.writeable = False
    copy = X.copy()
    K = kendall_matrix(X)
    assert np.array_equal(X, copy)
    frame = pd.DataFrame(copy, columns=list("abcde"))
    assert np.array_equal(kendall_matrix(frame), K)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"transform": "identity"}, ValueError, "transform must be one of"),
        ({"transform": 3}, TypeError, "transform must be one of"),
        ({"transform": "winsorized"}, ValueError, "needs a positive numeric radius"),
        ({"transform": "winsorized", "radius": -1.0}, ValueError, "radius must be > 0"),
        ({"transform": "winsorized", "radius": 1e200}, ValueError, "between 1e-150 and 1e"),
        ({"transform": "winsorized", "radius": 1e-160}, ValueError, "between 1e-150 and 1e"),
        ({"transform": "spherical", "radius": 1.0}, ValueError, "radius applies to"),
        ({"transform": np.log1p}, ValueError, "needs its public bound"),
        ({"pairs": 3}, ValueError, "even integer"),
        ({"pairs": 0}, ValueError, "even integer"),
        ({"pairs": 200}, ValueError, "2 <= pairs <= n - 1"),
        ({"pairs": "some"}, TypeError, 'pairs must be "auto", "all"'),
        ({"pairs": 2.0}, TypeError, 'pairs must be "auto", "all"'),
        ({"progress": "yes"}, TypeError, "progress"),
    ],
)
def test_parameter_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        kendall_matrix(_random(), **kwargs)


def test_callable_h_errors_come_from_public_test_norms_only():
    X = _random()
    with pytest.raises(ValueError, match="NaN on the public test norms"):
        kendall_matrix(X, lambda s: np.where(s > 1, np.nan, 1.0), 1.0)
    with pytest.raises(ValueError, match="same shape"):
        kendall_matrix(X, lambda s: 1.0, 1.0)
    with pytest.raises(ValueError, match="same shape"):
        kendall_matrix(X, lambda s: 1 / 0, 1.0)


def test_callable_h_failing_on_the_data_counts_as_its_bound():
    """Past the public checks, whatever h cannot give (NaN, an exception) is h_max: no error
    can tell the data apart."""
    X = _random()
    data_norms = direct_kendall(X)  # only to make sure the data's norms are all below 100
    assert np.isfinite(data_norms).all()

    def nan_between(s):  # finite on the public test norms, NaN on (2.5, 100)
        return np.where((s > 2.5) & (s < 100), np.nan, 0.5)

    def raising_between(s):
        if np.any((s > 2.5) & (s < 100)):
            raise RuntimeError("boom")
        return np.full_like(s, 0.5)

    expected = direct_kendall(X, lambda s: np.where(s > 2.5, 1.0, 0.25))
    assert np.max(np.abs(kendall_matrix(X, nan_between, 1.0) - expected)) <= TOLERANCE
    # A failing call is asked again norm by norm: only the norms it fails on count as h_max.
    assert np.max(np.abs(kendall_matrix(X, raising_between, 1.0) - expected)) <= TOLERANCE


@settings(max_examples=150, deadline=None)
@given(
    rows=st.integers(2, 25),
    columns=st.integers(1, 4),
    exponent=st.integers(-140, 140),
    data=st.data(),
)
def test_property_matches_reference_on_arbitrary_finite_data(rows, columns, exponent, data):
    """Any finite data, with ties, tiny gaps and extreme scales: reference agreement and trace."""
    values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    X = data.draw(arrays(np.float64, (rows, columns), elements=values)) * 10.0**exponent
    fast = kendall_matrix(X)
    assert np.max(np.abs(fast - direct_kendall(X))) <= TOLERANCE
    distinct_pairs = sum(
        not np.array_equal(X[i], X[j]) for i in range(rows) for j in range(i + 1, rows)
    )
    assert np.trace(fast) == pytest.approx(distinct_pairs / (rows * (rows - 1) / 2), abs=1e-12)
    assert np.array_equal(fast, fast.T)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(3, 20),
    columns=st.integers(1, 4),
    exponent=st.integers(-140, 140),
    radius_exponent=st.integers(-3, 3),
    half_k=st.integers(1, 9),
    data=st.data(),
)
def test_property_winsorized_and_incomplete_designs(
    rows, columns, exponent, radius_exponent, half_k, data
):
    values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    X = data.draw(arrays(np.float64, (rows, columns), elements=values)) * 10.0**exponent
    radius = 10.0 ** (exponent + radius_exponent)
    fast = kendall_matrix(X, "winsorized", radius)
    reference = direct_kendall(X, winsorized_h2(radius))
    assert np.max(np.abs(fast - reference)) / radius**2 <= TOLERANCE
    k = min(2 * half_k, rows - 1 - (rows - 1) % 2)
    design = circulant_pairs(rows, k, seed=5)
    incomplete = kendall_matrix(X, pairs=k, random_state=5)
    expected = pair_outer_sum(X, *design) / (rows * k / 2)
    assert np.max(np.abs(incomplete - expected)) <= TOLERANCE


def _exact_reference(X, h2=spherical_h2):
    """The direct kernel with every entry summed exactly (``math.fsum``) over the pairs: its
    only error is each pair's own rounding, about ``(p + 8) u``."""
    import math

    n, p = X.shape
    rows, cols = np.triu_indices(n, k=1)
    terms = np.stack([pair_outer_sum(X, [i], [j], h2) for i, j in zip(rows, cols, strict=True)])
    flat = terms.reshape(len(terms), -1)
    return np.array([math.fsum(flat[:, e]) for e in range(p * p)]).reshape(p, p) / len(rows)


def _cancelling(n=150, p=4, seed=9):
    """Two thirds of the rows near 0 (so each tile's median shift sits there) and a third in a
    cluster 1e3 away whose pairs are just far enough apart to stay in the Laplacian form: their
    squared distance is a few times 5e-3 of their squared norms, the most cancellation allowed."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    cluster = rng.permutation(n)[: n // 3]
    X[cluster] = 1e3 + 60.0 * rng.standard_normal((len(cluster), p))
    return X


@pytest.mark.parametrize("name", ["cancelling", "offset 1e6", "near-duplicates", "cauchy"])
@pytest.mark.parametrize("transform", ["spherical", "winsorized", "custom"])
def test_error_is_within_the_proven_bound(name, transform):
    from dppca.numerics.kendall import unit_error_bound, unit_kendall
    from dppca.numerics.signs import make_sign_transform

    X = _cancelling() if name == "cancelling" else DATASETS[name]()[:60]
    radius = _radius(X)
    sign, h2 = {
        "spherical": (make_sign_transform("spherical", None), spherical_h2),
        "winsorized": (make_sign_transform("winsorized", radius), winsorized_h2(radius)),
        "custom": (
            make_sign_transform(lambda s: np.log1p(s / radius), 2.0),
            lambda s: np.minimum(np.log1p(s / radius), 2.0) ** 2,
        ),
    }[transform]
    computed = unit_kendall(X, sign, tile_rows=32)
    exact = _exact_reference(X, h2) / sign.bound**2
    error = np.linalg.norm(computed - exact)
    bound = unit_error_bound(X.shape[1], sign, None)
    assert error <= bound
    assert error <= 1e-13  # in practice the error is far below the proven bound


def test_error_bound_is_tiny_against_the_sensitivity():
    """E does not depend on n; 2E adds under 1e-4 of the sensitivity 2 sqrt(2) / n up to
    n = 1e5 for the Laplacian form (all pairs) and up to n = 1e8 for explicit pairs."""
    from dppca.numerics.pair_sums import kendall_error_bound

    laplacian, explicit = (kendall_error_bound(50, laplacian=flag) for flag in (True, False))
    assert 1e-10 < laplacian < 1e-9 and 1e-12 < explicit < 1e-11
    assert 2 * laplacian / (2 * np.sqrt(2) / 1e5) < 1e-4
    assert 2 * explicit / (2 * np.sqrt(2) / 1e8) < 2e-4


def test_callable_h_failing_on_some_norms_moves_the_matrix_by_at_most_its_sensitivity():
    """An h that raises whenever one of its norms is special: each pair's weight still comes
    from its own norm (asked one by one), so neighbouring data sets differ by at most the
    sensitivity, whichever pairs share a chunk with the special ones."""
    from dppca.numerics.sensitivity import kendall_sensitivity

    def picky(s):
        if np.any((s > 1.0) & (s < 1.5)) or np.any(np.abs(s - np.sqrt(0.5)) < 1e-15):
            raise ValueError("a norm in [1, 1.5]")
        return np.minimum(s, 1.0)

    rng = np.random.default_rng(4)
    X = rng.standard_normal((200, 3)) * 0.1
    neighbour = X.copy()
    neighbour[0] = X[1]  # a duplicate pair, whose norm 0 is never asked for
    far = X.copy()
    far[0] = [1.7, 0.0, 0.0]  # its pairs' norms land in [1, 1.5], where h raises
    n = X.shape[0]
    for pairs in ("all", 10):
        K = kendall_matrix(X, picky, 1.0, pairs=pairs, random_state=0)
        for other in (neighbour, far):
            moved = kendall_matrix(other, picky, 1.0, pairs=pairs, random_state=0)
            assert np.linalg.norm(moved - K) <= kendall_sensitivity(1.0, n) * (1 + 1e-9)


def test_callable_h_runs_on_one_thread_and_its_warnings_stay_inside(recwarn):
    import threading
    import time

    from dppca.numerics.kendall import unit_kendall
    from dppca.numerics.signs import CustomSign

    seen = set()

    def slow(s):
        seen.add(threading.get_ident())
        time.sleep(0.001)
        import warnings

        warnings.warn(f"largest norm {np.max(s)}", stacklevel=1)
        return np.minimum(s, 1.0)

    X = np.random.default_rng(5).standard_normal((400, 3))
    unit_kendall(X, CustomSign(slow, 1.0), 8, np.random.default_rng(0), threads=2, chunk_pairs=16)
    assert len(seen) == 1
    assert not [w for w in recwarn if "largest norm" in str(w.message)]
