"""Shared input validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dppca._validation import check_data, check_random_state


def test_accepted_inputs_are_copied_to_float64():
    ints = np.arange(6).reshape(3, 2)
    data, names = check_data(ints)
    assert data.dtype == np.float64 and names == ["X1", "X2"]
    data[0, 0] = 99
    assert ints[0, 0] == 0
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [True, False, True], "c": [0.5, 1.5, 2.5]})
    data, names = check_data(frame)
    assert names == ["a", "b", "c"] and data[:, 1].tolist() == [1.0, 0.0, 1.0]
    objects = np.array([[1, 2.5], [3, 4]], dtype=object)
    assert check_data(objects)[0].tolist() == [[1.0, 2.5], [3.0, 4.0]]
    assert check_data([[1, 2], [3, 4]])[0].flags["C_CONTIGUOUS"]
    assert check_data(np.asfortranarray(np.ones((3, 2))))[0].flags["C_CONTIGUOUS"]


@pytest.mark.parametrize(
    ("X", "error", "message"),
    [
        (pd.DataFrame({"g": pd.Categorical(["x", "y"])}), TypeError, "not numeric: 'g'"),
        (pd.DataFrame({"z": [1 + 1j, 2]}), TypeError, "not numeric: 'z'"),
        (pd.DataFrame({"a": pd.array([1, None], dtype="Int64")}), ValueError, "finite"),
        (np.array([[1, "a"]], dtype=object), TypeError, "dtype object"),
        (np.ones((2, 2, 2)), ValueError, "3 dimension"),
        (None, TypeError, "2-D array or DataFrame"),
        ([[1.0, 2.0], [3.0]], TypeError, "2-D array or DataFrame"),
    ],
)
def test_rejected_inputs(X, error, message):
    with pytest.raises(error, match=message):
        check_data(X)


def test_random_state_forms():
    assert isinstance(check_random_state(None), np.random.Generator)
    generator = np.random.default_rng(0)
    assert check_random_state(generator) is generator
    assert check_random_state(5).random() == np.random.default_rng(5).random()
    seq = np.random.SeedSequence(3)
    assert (
        check_random_state(seq).random()
        == np.random.default_rng(np.random.SeedSequence(3)).random()
    )
    legacy = check_random_state(np.random.RandomState(1))
    assert isinstance(legacy, np.random.Generator)
    with pytest.raises(TypeError, match="random_state must be None"):
        check_random_state(1.5)
    with pytest.raises(TypeError, match="random_state must be None"):
        check_random_state(True)


def test_global_numpy_random_state_is_not_used():
    from dppca import dp_loading

    X = np.random.default_rng(0).standard_normal((50, 3))
    np.random.seed(1)  # noqa: NPY002 - the test sets the legacy global state on purpose
    first = dp_loading(X, 1.0, 1e-6, random_state=4).directions
    np.random.seed(2)  # noqa: NPY002
    second = dp_loading(X, 1.0, 1e-6, random_state=4).directions
    assert np.array_equal(first, second)


def _masked_and_sparse():
    from scipy import sparse

    X = np.random.default_rng(0).standard_normal((30, 3))
    masked = np.ma.masked_array(X, mask=X > 1.0)
    return {
        "masked": masked,
        "sparse matrix": sparse.csr_matrix(X),
        "sparse array": sparse.csr_array(X),
    }


@pytest.mark.parametrize("kind", ["masked", "sparse matrix", "sparse array"])
def test_masked_arrays_and_sparse_matrices_are_refused_everywhere(kind):
    import dppca

    value = _masked_and_sparse()[kind]
    message = "masked array" if kind == "masked" else "scipy sparse matrix"
    calls = [
        lambda: dppca.dp_loading(value, 1.0, 1e-6),
        lambda: dppca.dp_pca(value, 1.0, 1e-6),
        lambda: dppca.kendall_matrix(value),
        lambda: dppca.DPPCA().fit(value),
    ]
    if kind == "masked":
        calls.append(lambda: dppca.dp_quantile(value[:, 0], 0.5, 1.0))
    for call in calls:
        with pytest.raises(TypeError, match=f"X is a {message}|x is a {message}"):
            call()


@pytest.mark.parametrize("value", [None, 3, 2.5, {"add"}.pop])
def test_choices_that_are_not_names_are_refused_with_the_parameter(value):
    import dppca

    X = np.random.default_rng(0).standard_normal((40, 3))
    with pytest.raises(TypeError, match="method must be one of"):
        dppca.dp_score(X, 1.0, 1e-6, bins=3, method=value, directions=np.eye(3))
    with pytest.raises(TypeError, match="method must be one of"):
        dppca.dp_scree(X, 2, 1.0, 1e-6, method=value, directions=np.eye(3))


def test_a_float64_matrix_is_read_in_place_and_never_written():
    """A C-contiguous float64 ndarray is validated without a copy (a read-only view of it), and
    the caller's array keeps its own flags and values; other inputs are copied."""
    from dppca._validation import check_data

    X = np.random.default_rng(0).standard_normal((20_000, 3))
    before = X.copy()
    data, _ = check_data(X)
    assert np.shares_memory(data, X) and not data.flags.writeable
    assert X.flags.writeable and np.array_equal(X, before)
    for other in (np.asfortranarray(X), X.astype(np.float32), X[::2]):
        copied, _ = check_data(other)
        assert not np.shares_memory(copied, other)
    X[12_345, 1] = np.nan  # a bad value deep in a later block is still found
    with pytest.raises(ValueError, match="must contain only finite values"):
        check_data(X)
