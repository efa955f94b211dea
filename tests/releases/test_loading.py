"""Private directions: noise scale, accuracy, ledger, determinism, inputs and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import PrivacyWarning, dp_loading, kendall_matrix
from dppca.privacy.calibration import analytic_gaussian_multiplier

from kendall_reference import direct_kendall


def _spiked(n, p=6, seed=0, df=None):
    """Elliptical data with scatter diag(25, 9, 1, ..., 1) rotated by a random orthogonal Q."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.standard_normal((p, p)))
    scales = np.array([5.0, 3.0] + [1.0] * (p - 2))
    Z = rng.standard_normal((n, p)) * scales
    if df is not None:
        Z /= np.sqrt(rng.chisquare(df, size=(n, 1)) / df)
    return Z @ rotation.T + 100.0, rotation[:, :2]


def _sin_theta(A, B):
    """Largest principal angle's sine between the column spaces of orthonormal A and B."""
    singular = np.linalg.svd(A.T @ B, compute_uv=False)
    return math.sqrt(max(0.0, 1.0 - singular.min() ** 2))


def test_paper_mechanism_reproduces_the_r_sigma():
    X, _ = _spiked(300)
    for epsilon, delta in [(0.5, 1e-5), (0.9, 1e-8)]:
        result = dp_loading(X, epsilon, delta, mechanism="paper", random_state=0, on_weak="release")
        assert result.sigma == pytest.approx(
            4 * math.sqrt(2 * math.log(1.25 / delta)) / (300 * epsilon), rel=1e-15
        )
        assert result.settings["sensitivity"] == "paper"
        assert result.settings["calibration"] == "classical"


def _error_bound(X, laplacian=True):
    from dppca.numerics.pair_sums import kendall_error_bound

    return kendall_error_bound(X.shape[1], laplacian=laplacian)


def test_paper_mechanism_warns_for_epsilon_at_least_one():
    X, _ = _spiked(50)
    with pytest.warns(PrivacyWarning):
        dp_loading(X, 1.0, 1e-5, mechanism="paper", random_state=0, on_weak="release")


def test_default_sigma_is_about_055_of_the_papers():
    X, _ = _spiked(300)
    ours = dp_loading(X, 1.0, 1e-5, random_state=0, sampler="continuous", on_weak="release").sigma
    with pytest.warns(PrivacyWarning):
        paper = dp_loading(X, 1.0, 1e-5, mechanism="paper", random_state=0, on_weak="release").sigma
    tight = 2 * math.sqrt(2) / 300 + 2 * _error_bound(X)  # plus the kernel's float term
    expected_ratio = (
        tight
        * analytic_gaussian_multiplier(1.0, 1e-5)
        / (4 * math.sqrt(2 * math.log(1.25e5)) / 300)
    )
    assert ours / paper == pytest.approx(expected_ratio, rel=1e-12)
    assert 0.54 < ours / paper < 0.55


def test_huge_epsilon_gives_the_exact_kendall_eigenvectors():
    X, _ = _spiked(200, seed=1)
    result = dp_loading(X, 1e9, 1e-6, random_state=0, non_private=True, on_weak="release")
    _, exact = np.linalg.eigh(direct_kendall(X))
    exact = exact[:, ::-1]
    overlap = np.abs(np.sum(result.directions * exact, axis=0))
    assert np.all(overlap > 1 - 1e-6)
    assert np.array_equal(result.non_private.kendall, kendall_matrix(X))


@pytest.mark.parametrize(("df", "seed"), [(None, 2), (3, 3), (1, 4)])
def test_top_two_subspace_close_to_the_scatter_matrix(df, seed):
    """Gaussian, t with 3 and Cauchy (t with 1) degrees of freedom: the same scatter matrix."""
    X, truth = _spiked(4000, seed=seed, df=df)
    result = dp_loading(X, 1.0, 1e-6, random_state=seed, on_weak="release")
    assert _sin_theta(result.directions[:, :2], truth) < 0.15


def test_directions_are_orthonormal_and_oriented():
    X, _ = _spiked(300)
    result = dp_loading(X, 0.5, 1e-6, random_state=5, on_weak="release")
    V = result.directions
    assert np.allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-12)
    largest = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    assert np.all(largest > 0)
    assert np.all(np.diff(result.kendall_eigenvalues) <= 0)


def test_released_matrix_has_the_calibrated_noise():
    """E = released - exact: diagonal variance sigma^2, off-diagonal sigma^2 / 2, independent.

    A sample variance of m normal draws has relative standard deviation sqrt(2 / m); the
    tolerance is five of those (0.13 for m = 3000), well below the factor 2 that a wrong
    off-diagonal scale would give.
    """
    X, _ = _spiked(40, p=3)
    exact = kendall_matrix(X)
    draws = 3000
    noise = []
    for seed in range(draws):
        result = dp_loading(X, 0.3, 1e-6, random_state=seed, on_weak="release")
        noise.append(result.kendall - exact)
        assert np.allclose(
            result.directions @ np.diag(result.kendall_eigenvalues) @ result.directions.T,
            result.kendall,
            atol=1e-12,
        )
    noise = np.array(noise)
    expected = np.full((3, 3), result.sigma**2 / 2)
    np.fill_diagonal(expected, result.sigma**2)
    assert np.all(np.abs(noise.var(axis=0) / expected - 1) < 5 * math.sqrt(2 / draws))
    rows, cols = np.triu_indices(3)
    correlation = np.corrcoef(noise[:, rows, cols], rowvar=False)
    assert np.all(np.abs(correlation[~np.eye(6, dtype=bool)]) < 5 / math.sqrt(draws))


def test_ledger_records_the_release():
    X, _ = _spiked(100)
    result = dp_loading(X, 0.7, 1e-7, random_state=0, on_weak="release")
    (entry,) = result.privacy.entries
    assert (entry.epsilon, entry.delta) == (0.7, 1e-7)
    assert "Gaussian" in entry.mechanism
    assert result.privacy.total.epsilon == 0.7


def test_auto_radius_spends_ten_percent_and_stays_within_budget():
    X, _ = _spiked(3000, seed=6)
    result = dp_loading(
        X,
        1.0,
        1e-6,
        transform="winsorized",
        radius="auto",
        random_state=1,
        sampler="continuous",
        on_weak="release",
    )
    radius_entry, kendall_entry = result.privacy.entries
    assert radius_entry.epsilon == pytest.approx(0.1)
    assert radius_entry.delta == 0.0
    assert kendall_entry.delta == 1e-6
    assert result.privacy.total.epsilon <= 1.0
    assert result.privacy.total.epsilon == pytest.approx(1.0, rel=1e-15)
    # The radius is a private median of ||x_a - x_b|| / sqrt(2) over disjoint pairs: compare with
    # the non-private median of all pairs' half-distances (within the grid's 1 % and sampling).
    diffs = X[:1500] - X[1500:]
    truth = np.median(np.linalg.norm(diffs, axis=1)) / math.sqrt(2)
    assert result.radius == pytest.approx(truth, rel=0.1)
    unit = 2 * math.sqrt(2) / 3000 + 2 * _error_bound(X)
    assert result.sigma == pytest.approx(
        unit * result.radius**2 * analytic_gaussian_multiplier(0.9, 1e-6), rel=1e-12
    )


def test_public_radius_and_callable_transform():
    X, truth = _spiked(2000, seed=8, df=3)
    result = dp_loading(
        X, 2.0, 1e-6, transform="winsorized", radius=4.0, random_state=0, on_weak="release"
    )
    assert result.radius == 4.0
    assert _sin_theta(result.directions[:, :2], truth) < 0.2
    custom = dp_loading(
        X, 2.0, 1e-6, transform=np.sqrt, radius=2.0, random_state=0, on_weak="release"
    )
    assert custom.settings["transform"] == "custom:sqrt"
    # A callable h is computed pair by pair, whose float term is smaller than the Laplacian form's.
    unit = 2 * math.sqrt(2) / 2000
    expected = (unit + 2 * _error_bound(X, laplacian=False)) / (unit + 2 * _error_bound(X)) / 4
    assert custom.sigma == pytest.approx(result.sigma * expected, rel=1e-12)


def test_incomplete_design_is_accurate():
    X, truth = _spiked(20000, seed=9)
    result = dp_loading(X, 1.0, 1e-8, pairs=20, random_state=0, on_weak="release")
    assert result.settings["pairs"] == 20
    assert _sin_theta(result.directions[:, :2], truth) < 0.15


def test_dataframe_names_are_kept():
    X, _ = _spiked(100, p=3)
    frame = pd.DataFrame(X, columns=["age", "income", "height"])
    result = dp_loading(frame, 1.0, 1e-6, random_state=0, on_weak="release")
    assert list(result.loadings.index) == ["age", "income", "height"]
    assert list(result.loadings.columns) == ["PC1", "PC2", "PC3"]
    assert list(dp_loading(X, 1.0, 1e-6, random_state=0, on_weak="release").loadings.index) == [
        "X1",
        "X2",
        "X3",
    ]


def test_inputs_are_not_modified():
    X, _ = _spiked(100, p=3)
    frame = pd.DataFrame(X.copy(), columns=list("abc"))
    before_array, before_frame = X.copy(), frame.copy()
    dp_loading(
        X, 1.0, 1e-6, transform="winsorized", radius="auto", random_state=0, on_weak="release"
    )
    dp_loading(frame, 1.0, 1e-6, random_state=0, non_private=True, on_weak="release")
    assert np.array_equal(X, before_array)
    pd.testing.assert_frame_equal(frame, before_frame)


def test_randomness():
    X, _ = _spiked(100, p=3)
    first = dp_loading(X, 1.0, 1e-6, random_state=12, on_weak="release").directions
    assert np.array_equal(
        first, dp_loading(X, 1.0, 1e-6, random_state=12, on_weak="release").directions
    )
    assert not np.array_equal(
        first, dp_loading(X, 1.0, 1e-6, random_state=13, on_weak="release").directions
    )
    fresh = [dp_loading(X, 1.0, 1e-6, on_weak="release").directions for _ in range(2)]
    assert not np.array_equal(*fresh)
    shared = np.random.default_rng(0)
    assert not np.array_equal(
        dp_loading(X, 1.0, 1e-6, random_state=shared, on_weak="release").directions,
        dp_loading(X, 1.0, 1e-6, random_state=shared, on_weak="release").directions,
    )


def test_non_private_reference_only_on_request():
    X, _ = _spiked(200)
    assert dp_loading(X, 1.0, 1e-6, random_state=0, on_weak="release").non_private is None
    result = dp_loading(X, 1.0, 1e-6, random_state=0, non_private=True, on_weak="release")
    reference = result.non_private
    _, pca = np.linalg.eigh(np.cov(X, rowvar=False))
    assert np.allclose(np.abs(reference.directions), np.abs(pca[:, ::-1]), atol=1e-10)
    inner = np.sum(reference.directions * result.directions, axis=0)
    assert np.all(inner >= 0)


BAD_CALLS = [
    ({"X": np.arange(10.0)}, ValueError, "X must be 2-D"),
    ({"X": np.ones((1, 3))}, ValueError, "at least 2 rows"),
    ({"X": np.ones((5, 0))}, ValueError, "at least 1 column"),
    ({"X": np.array([[1.0, np.nan], [2.0, 3.0]])}, ValueError, "finite values"),
    ({"X": np.array([[1.0, np.inf], [2.0, 3.0]])}, ValueError, "finite values"),
    ({"X": np.array([["a", "b"], ["c", "d"]])}, TypeError, "must hold real numbers"),
    ({"X": np.ones((3, 2), dtype=complex)}, TypeError, "must hold real numbers"),
    ({"X": pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})}, TypeError, "not numeric: 'b'"),
    ({"X": "data.csv"}, TypeError, "2-D array or DataFrame"),
    ({"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
    ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
    ({"epsilon": math.nan}, ValueError, "epsilon must be finite"),
    ({"epsilon": "1"}, TypeError, "epsilon must be a real number"),
    ({"delta": 0.0}, ValueError, "delta must be > 0"),
    ({"delta": 1.0}, ValueError, "delta must be < 1"),
    ({"delta": None}, TypeError, "delta must be a real number"),
    ({"transform": "identity"}, ValueError, "transform must be one of"),
    ({"radius": "auto"}, ValueError, 'radius="auto" applies to transform="winsorized"'),
    ({"transform": "winsorized", "radius": "big"}, ValueError, 'positive number or "auto"'),
    ({"transform": "winsorized"}, ValueError, "needs a positive numeric radius"),
    ({"sensitivity": "loose"}, ValueError, "sensitivity must be one of"),
    ({"calibration": "laplace"}, ValueError, "calibration must be one of"),
    ({"mechanism": "wishart"}, ValueError, "mechanism must be one of"),
    ({"pairs": 5}, ValueError, "even integer"),
    (
        {"transform": "winsorized", "radius": "auto", "radius_share": 1.0},
        ValueError,
        "radius_share must be < 1",
    ),
    (
        {"transform": "winsorized", "radius": "auto", "radius_level": 0.0},
        ValueError,
        "radius_level must be > 0",
    ),
    ({"non_private": "yes"}, TypeError, "non_private must be True or False"),
    ({"random_state": "seed"}, TypeError, "random_state must be None"),
    ({"random_state": -3}, ValueError, "non-negative"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD_CALLS)
def test_errors_are_raised_before_any_noise(kwargs, error, message):
    arguments = {"X": _spiked(20, p=3)[0], "epsilon": 1.0, "delta": 1e-6, **kwargs}
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    arguments.setdefault("random_state", rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error, match=message):
            dp_loading(**arguments)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("mechanism", ["analytic", "paper"])
def test_release_of_a_precomputed_kendall_matrix_is_dp_loading_exactly(mechanism):
    # The simulation study computes the Kendall matrix once per data set and releases it at
    # several budgets through this function; it must be the very mechanism of dp_loading.
    from dppca.privacy.mechanisms import Noise
    from dppca.releases.loading import kendall_mechanism

    X, _ = _spiked(300)
    kwargs = {"mechanism": "paper"} if mechanism == "paper" else {}
    expected = dp_loading(X, 0.7, 1e-5, random_state=11, sampler="continuous", **kwargs)
    settings = ("paper", "classical") if mechanism == "paper" else ("tight", "analytic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        mechanism = kendall_mechanism(300, X.shape[1], _error_bound(X), 0.7, 1e-5, *settings)
        noise = Noise("continuous", np.random.default_rng(11))
        noisy, sigma = mechanism.randomise_symmetric(kendall_matrix(X), noise), mechanism.scale
    assert sigma == expected.sigma
    assert np.array_equal(noisy, expected.kendall)
