"""Hostile inputs: every public function succeeds with a valid result or raises a ValueError or
TypeError that names a parameter; never another exception, never a warning storm, never a
modified input."""

from __future__ import annotations

import contextlib
import hashlib
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import dppca
from dppca.exceptions import EmptyHistogramError

PARAMETERS = [
    "X",
    "x",
    "scores",
    "epsilon",
    "delta",
    "k",
    "bins",
    "axes",
    "method",
    "groups",
    "directions",
    "loading_epsilon",
    "loading_delta",
    "radius",
    "transform",
    "pairs",
    "q",
    "lower",
    "beta",
    "max_steps",
    "random_state",
    "inflate",
    "control",
    "split",
    "score",
    "scree",
    "mono",
    "non_private",
    "calibration",
    "sensitivity",
    "C_clip",
    "n_components",
]
DTYPES = [
    np.int8,
    np.int64,
    np.uint8,
    np.bool_,
    np.float16,
    np.float32,
    np.float64,
    np.complex128,
    np.dtype("U3"),
    np.dtype(object),
]
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _fingerprint(value) -> bytes:
    if isinstance(value, pd.DataFrame):
        return pickle.dumps(
            (
                value.dtypes.astype(str).tolist(),
                value.columns.tolist(),
                value.astype(object).to_numpy().tolist(),
            )
        )
    if isinstance(value, np.ndarray):
        payload = value.tolist() if value.dtype == object else value.tobytes()
        return pickle.dumps((value.dtype.str, value.shape, value.flags.writeable, payload))
    return pickle.dumps(repr(value))


def _digest(arguments) -> str:
    return hashlib.sha256(b"".join(_fingerprint(v) for v in arguments.values())).hexdigest()


def call(function, **arguments):
    """Call ``function`` and check the contract; returns its result or None."""
    before = _digest(arguments)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(**arguments)
        except EmptyHistogramError:
            result = None  # a specified, data-dependent outcome after noise (seed 002)
        except (ValueError, TypeError) as error:
            message = str(error)
            assert any(name in message for name in PARAMETERS), message
            result = None
    assert len(caught) <= 3, [str(w.message) for w in caught]
    assert _digest(arguments) == before, "an input was modified"
    return result


def _value(dtype, draw):
    if dtype == np.dtype("U3"):
        return st.text(min_size=0, max_size=3)
    if dtype == np.dtype(object):
        return st.one_of(st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=2))
    if np.dtype(dtype).kind == "b":
        return st.booleans()
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(int(info.min), int(info.max))
    if np.dtype(dtype).kind == "c":
        return st.complex_numbers(max_magnitude=1e6, allow_nan=False)
    width = np.dtype(dtype).itemsize * 8
    return st.floats(width=width, allow_nan=True, allow_infinity=True)


@st.composite
def hostile_matrices(draw):
    if draw(st.booleans()):  # half the time: valid numbers, with ties and extreme scales
        rows, columns = draw(st.integers(2, 12)), draw(st.integers(1, 4))
        values = st.sampled_from([0.0, 1.0, -1.0, 1e-150, 1e150, 3.5, 1e6, -2.0])
        data = draw(arrays(np.float64, (rows, columns), elements=values))
        return (
            pd.DataFrame(data, columns=[f"c{j}" for j in range(columns)])
            if draw(st.booleans())
            else data
        )
    dtype = draw(st.sampled_from(DTYPES))
    rows = draw(st.integers(0, 12))
    columns = draw(st.integers(0, 4))
    data = draw(arrays(dtype, (rows, columns), elements=_value(dtype, draw)))
    kind = draw(st.sampled_from(["array", "frame", "strided", "readonly", "duplicated"]))
    if kind == "frame":
        frame = pd.DataFrame(data, columns=[f"c{j}" for j in range(columns)])
        if columns and draw(st.booleans()):
            frame["c0"] = frame["c0"].astype(str).astype("category")
        return frame
    if kind == "strided" and rows:
        return np.repeat(data, 2, axis=0)[::2]
    if kind == "readonly":
        data.flags.writeable = False
    if kind == "duplicated" and rows:
        return np.concatenate([data, data])
    return data


numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, 1e-6, 0.0, -1.0, True, "1", None, 1e300, 1e-300]),
)


@SETTINGS
@given(X=hostile_matrices(), epsilon=numbers, delta=numbers)
def test_dp_loading(X, epsilon, delta):
    result = call(dppca.dp_loading, X=X, epsilon=epsilon, delta=delta, random_state=0)
    if result is not None:
        assert np.all(np.isfinite(result.directions))
        assert np.allclose(
            result.directions.T @ result.directions, np.eye(result.directions.shape[1])
        )


@SETTINGS
@given(
    X=hostile_matrices(),
    pairs=st.sampled_from(["all", 2, 3, 4, -2, "some", 2.0]),
    transform=st.sampled_from(["spherical", "winsorized", "nope", 3]),
    radius=st.sampled_from([None, 1.0, -1.0, "auto", math.inf]),
)
def test_kendall_matrix(X, pairs, transform, radius):
    result = call(
        dppca.kendall_matrix, X=X, transform=transform, radius=radius, pairs=pairs, random_state=0
    )
    if result is not None:
        assert np.all(np.isfinite(result)) and np.allclose(result, result.T)


@SETTINGS
@given(
    x=st.one_of(
        arrays(np.float64, st.integers(0, 30), elements=st.floats()),
        st.lists(st.text(max_size=2), max_size=3),
    ),
    q=numbers,
    epsilon=numbers,
    lower=st.one_of(st.none(), numbers),
)
def test_dp_quantile(x, q, epsilon, lower):
    result = call(dppca.dp_quantile, x=x, q=q, epsilon=epsilon, lower=lower, random_state=0)
    if result is not None:
        assert math.isfinite(result.value)


@SETTINGS
@given(
    X=hostile_matrices(),
    epsilon=numbers,
    bins=st.sampled_from([0, 1, 3, (2, 2), "5", (2,)]),
    axes=st.sampled_from([(1, 2), (2, 1), (1, 1), (0, 1), (1, 9), "12"]),
    method=st.sampled_from(["add", "sparse", ("add", "sparse"), "other", ()]),
    groups=st.sampled_from([None, "c0", "wrong"]),
)
def test_dp_score(X, epsilon, bins, axes, method, groups):
    labels = groups
    if groups == "wrong":
        labels = ["a", "b"]
    result = call(
        dppca.dp_score,
        X=X,
        epsilon=epsilon,
        delta=1e-6,
        bins=bins,
        axes=axes,
        method=method,
        groups=labels,
        loading_epsilon=1.0,
        loading_delta=1e-6,
        random_state=0,
    )
    if result is not None:
        for table in result.histograms.values():
            assert np.all(table["prob"] >= 0) and table["prob"].sum() <= 1 + 1e-9


@SETTINGS
@given(
    X=hostile_matrices(),
    k=st.sampled_from([1, 2, 0, 10, 1.5]),
    method=st.sampled_from(["clipped", "pmwm", "huber", "bad"]),
    control=st.sampled_from([None, {"C_clip": 2.0}, {"C_clip": -1}, {"a": 0.0}, {"x": 1}]),
)
def test_dp_scree(X, k, method, control):
    result = call(
        dppca.dp_scree,
        X=X,
        k=k,
        epsilon=1.0,
        delta=1e-6,
        method=method,
        control=control,
        loading_epsilon=1.0,
        loading_delta=1e-6,
        random_state=0,
    )
    if result is not None:
        for values in result.values.values():
            assert np.all(values >= 0) and np.all(np.isfinite(values))


@SETTINGS
@given(
    X=hostile_matrices(),
    epsilon=numbers,
    delta=numbers,
    split=st.sampled_from(
        [None, {"loading": 1.0}, {"loading": 0.5, "scree": 0.25, "score": 0.25}, [1, 2, 3]]
    ),
    score=st.sampled_from(["sparse", "add", "x"]),
)
def test_dp_pca(X, epsilon, delta, split, score):
    result = call(
        dppca.dp_pca,
        X=X,
        epsilon=epsilon,
        delta=delta,
        split=split,
        score=score,
        bins=4,
        random_state=0,
    )
    if result is not None:
        assert result.privacy.total.epsilon <= float(epsilon) * (1 + 1e-12)
        assert np.all(np.isfinite(result.scree))


@SETTINGS
@given(scores=hostile_matrices(), epsilon=numbers, inflate=numbers)
def test_dp_frame(scores, epsilon, inflate):
    result = call(dppca.dp_frame, scores=scores, epsilon=epsilon, inflate=inflate, random_state=0)
    if result is not None:
        assert math.isfinite(result.radius) and result.radius > 0


@SETTINGS
@given(X=hostile_matrices())
def test_estimator(X):
    model = dppca.DPPCA(n_components=1, epsilon=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's own DataConversionWarning etc.
        before = _fingerprint(X)
        with contextlib.suppress(ValueError, TypeError):
            model.fit(X)
        assert _fingerprint(X) == before


def test_wrong_group_length_and_missing_labels_name_the_parameter():
    X = np.random.default_rng(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="groups"):
        dppca.dp_pca(X, 1.0, 1e-6, groups=["a"] * 19, on_weak="release")
    with pytest.raises(ValueError, match="groups"):
        dppca.dp_score(
            X,
            1.0,
            1e-6,
            bins=3,
            groups=[np.nan] * 20,
            loading_epsilon=1.0,
            loading_delta=1e-6,
            on_weak="release",
        )


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_pipeline_works_at_extreme_scales(scale):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 3)) * [3.0, 2.0, 1.0] * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Durfee searches may hit their step limit here
        result = dppca.dp_pca(
            X, 3.0, 1e-6, random_state=0, on_weak="release", score={"method": "add", "bins": 4}
        )
    assert np.all(np.isfinite(result.directions))  # scale free: every scale works
    # The scree's squared units leave the grid's range (1e-300 to 1e300) beyond about 1e+-150:
    # then the scree and the frame built on it are released as NaN, marked with the reason.
    status = result.status
    assert status["scree"].usable == bool(np.all(np.isfinite(result.scree)))
    assert status["frame"].usable == bool(np.isfinite(result.frame.half_width))
    if not status["scree"].usable:  # squares beyond the grid, or underflowing to ties at 0
        assert status["scree"].reason and not status["frame"].usable
    else:
        assert result.histogram["prob"].sum() == pytest.approx(1.0)
    assert status["scree"].usable == (scale == 1e-150)


@pytest.mark.parametrize(
    "call",
    [
        lambda X, a: dppca.DPPCA(2, epsilon=1, delta=5e-324, scree="clipped", accountant=a).fit(X),
        lambda X, a: dppca.DPPCA(
            2, epsilon=1, delta=1e-320, scree="huber", scree_share=1e-5, accountant=a
        ).fit(X),
        lambda X, a: dppca.dp_loading(
            X,
            1e-310,
            1e-6,
            transform="winsorized",
            radius="auto",
            radius_share=1 - 1e-16,
            accountant=a,
            on_weak="release",
        ),
        lambda X, a: dppca.dp_frame(X[:, :2], 5e-324, accountant=a, on_weak="release"),
        lambda X, a: dppca.dp_score(
            X, 5e-324, 1e-6, directions=np.eye(4), accountant=a, on_weak="release"
        ),
        lambda X, a: dppca.dp_scree(
            X, 2, 5e-324, 1e-6, directions=np.eye(4), accountant=a, on_weak="release"
        ),
        lambda X, a: dppca.dp_score(
            X,
            1.0,
            0.4,
            method=("add", "sparse", "thresholded"),
            directions=np.eye(4),
            accountant=a,
            on_weak="release",
        ),
    ],
)
def test_a_split_that_leaves_a_part_without_budget_is_refused_before_the_charge(call):
    """A subnormal total or a tiny share must not become a Gaussian release recorded as pure
    DP, nor a division by zero: a ValueError names the budget, and nothing is charged."""
    X = np.random.default_rng(0).normal(size=(500, 4))
    accountant = dppca.Accountant(dppca.Budget(10.0, 0.5))
    with pytest.raises(ValueError, match=r"no budget|must stay below 1"):
        call(X, accountant)
    assert accountant.spent == dppca.Budget(0.0, 0.0)


@pytest.mark.parametrize("release", ["dp_frame", "dp_quantile"])
def test_a_refused_charge_leaves_the_callers_generator_untouched(release):
    X = np.random.default_rng(0).normal(size=(200, 2))
    accountant = dppca.Accountant(dppca.Budget(0.5, 1e-6))
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    with pytest.raises(dppca.BudgetExceededError):
        if release == "dp_frame":
            dppca.dp_frame(X, 1.0, random_state=rng, accountant=accountant, on_weak="release")
        else:
            dppca.dp_quantile(X[:, 0], 0.5, 1.0, random_state=rng, accountant=accountant)
    assert rng.bit_generator.state == state


def test_extreme_public_scree_settings_raise_no_warning_after_the_charge():
    """Whether one row is huge must not show in a warning: the Huber step's subtraction and the
    proportions' sum overflow silently (the released values are clipped or zero)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    moved = X.copy()
    moved[0, 0] = 1.8e154
    for data in (X, moved):
        accountant = dppca.Accountant(dppca.Budget(10.0, 1e-3))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", category=dppca.NoiseDominatedWarning)
            warnings.filterwarnings("ignore", message=".*is a weak guarantee.*")
            for control in ({"mu0": -1e308}, {"mu0": 1.7e308, "eta0": 1e100}):
                dppca.dp_scree(
                    data,
                    2,
                    1.0,
                    1e-6,
                    method="huber",
                    control=control,
                    directions=np.eye(4),
                    accountant=accountant,
                    random_state=1,
                    on_weak="release",
                )
