"""dp_score: budgets, histograms, groups, references and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dppca import Budget, EmptyHistogramError, PrivacyWarning, dp_loading, dp_score
from dppca.exceptions import NoiseDominatedWarning

LOADING = {"loading_epsilon": 1.0, "loading_delta": 1e-6}


def _clusters(n=3000, seed=0):
    """Three well-separated clusters in 4 variables, with labels."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    centres = {"a": [0, 0, 0, 0], "b": [8, 0, 0, 0], "c": [0, 8, 0, 0]}
    X = np.array([centres[g] for g in labels]) + rng.standard_normal((n, 4))
    return X, labels


def test_ledger_totals_add_up_to_the_request():
    X, _ = _clusters()
    result = dp_score(
        X,
        1.0,
        1e-6,
        bins=10,
        method=("add", "sparse"),
        **LOADING,
        random_state=0,
        composition="basic",
        on_weak="release",
    )
    names = [entry.name for entry in result.privacy]
    assert names[0] == "loading: Kendall matrix"
    assert sum("frame" in name for name in names) == 6  # scale, two steps per centre, radius
    assert sum("histogram" in name for name in names) == 2
    frame_total = sum(e.epsilon for e in result.privacy if "frame" in e.name)
    assert frame_total == pytest.approx(0.35) and frame_total <= 0.35
    # Loading + 0.35 eps + two methods x (0.65 eps, delta): basic composition.
    expected = Budget(1.0 + 0.35 + 2 * 0.65, 1e-6 + 2 * 1e-6)
    assert result.privacy.total.isclose(expected)
    assert result.privacy.total <= Budget(expected.epsilon * (1 + 1e-15), expected.delta * 1.000001)
    single = dp_score(
        X,
        1.0,
        1e-6,
        bins=10,
        method="sparse",
        **LOADING,
        random_state=0,
        composition="basic",
        on_weak="release",
    )
    assert single.privacy.total.isclose(Budget(2.0, 2e-6))
    assert single.privacy.total.epsilon <= 2.0


def test_tight_composition_spends_the_same_total_with_less_noise():
    """The default composes the directions, the frame and the histogram exactly: each part's
    epsilon is its share times one factor, the ledger's composed total stays within the
    cost the Notes state (and close to it), and the histogram's noise is smaller."""
    X, _ = _clusters()
    arguments = {"bins": 10, "method": "add", **LOADING, "random_state": 0}
    tight = dp_score(X, 1.0, 1e-6, **arguments, on_weak="release")
    basic = dp_score(X, 1.0, 1e-6, composition="basic", **arguments, on_weak="release")
    factor = tight.settings["composition"]["factor"]
    assert basic.settings["composition"] == {"rule": "basic", "factor": 1.0}
    assert 1.2 < factor < 2.0
    frame = sum(e.epsilon for e in tight.privacy if "frame" in e.name)
    assert frame == pytest.approx(0.35 * factor)
    assert tight.privacy.entries[0].epsilon == pytest.approx(1.0 * factor)
    total = tight.privacy.total
    assert total.epsilon == 2.0 and 0.99 * 2e-6 < total.delta <= 2e-6
    assert tight.settings["add_sigma"] < 0.8 * basic.settings["add_sigma"]


def test_histograms_are_private_probabilities_on_the_frame_grid():
    X, _ = _clusters()
    methods = ("thresholded", "add", "sparse")
    result = dp_score(
        X, 2.0, 1e-6, bins=(12, 8), method=methods, **LOADING, random_state=1, on_weak="release"
    )
    for method in methods:
        table = result.histograms[method]
        assert list(table.columns) == ["xmin", "xmax", "ymin", "ymax", "prob"]
        assert len(table) == 96
        assert table["prob"].sum() == pytest.approx(1.0) and table["prob"].min() >= 0
        assert table["xmin"].min() == pytest.approx(result.frame.xlim[0])
        assert table["ymax"].max() == pytest.approx(result.frame.ylim[1])
    assert result.settings["add_sigma"] > 0 and result.settings["sparse_threshold"] > 1
    assert result.settings["add_threshold"] == pytest.approx(3 * result.settings["add_sigma"])


@pytest.mark.parametrize("sampler", ["discrete", "continuous"])
def test_huge_epsilon_histogram_equals_the_empirical_one(sampler):
    """With noise near 0 the additive and thresholded histograms are the empirical one, and the
    sparse one is the empirical one without the cells below its threshold (here those of a
    single row)."""
    X, _ = _clusters()
    methods = ("thresholded", "add", "sparse")
    result = dp_score(
        X,
        1e7,
        1e-6,
        bins=8,
        method=methods,
        **LOADING,
        random_state=2,
        non_private=True,
        sampler=sampler,
        on_weak="release",
    )
    empirical = result.non_private.histogram["prob"].to_numpy()
    counts = np.rint(empirical * len(X))
    kept = np.where(counts >= result.settings["sparse_threshold"], counts, 0.0)
    expected = {"thresholded": empirical, "add": empirical, "sparse": kept / kept.sum()}
    for method in methods:
        released = result.histograms[method]["prob"].to_numpy()
        assert np.max(np.abs(released - expected[method])) < 1e-6
    scores = result.non_private.scores.to_numpy()
    assert np.allclose(scores, X @ result.directions[:, :2])


def test_classical_calibration_reproduces_seed_002_sigma():
    X, _ = _clusters(500)
    result = dp_score(
        X, 0.8, 1e-5, bins=5, **LOADING, calibration="classical", random_state=0, on_weak="release"
    )
    assert result.settings["composition"]["rule"] == "basic"  # the paper's linear split
    expected = math.sqrt(2) * math.sqrt(2 * math.log(1.25 / 1e-5)) / (0.65 * 0.8)
    assert result.settings["add_sigma"] == pytest.approx(expected, rel=1e-12)
    with pytest.warns(PrivacyWarning):
        dp_score(
            X,
            2.0,
            1e-5,
            bins=5,
            **LOADING,
            calibration="classical",
            random_state=0,
            on_weak="release",
        )


def test_given_directions_and_axes():
    X, _ = _clusters(800)
    rotation, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((4, 4)))
    result = dp_score(
        X,
        1.0,
        1e-6,
        bins=6,
        method=("add", "sparse"),
        directions=rotation,
        axes=(3, 1),
        random_state=0,
        non_private=True,
        on_weak="release",
    )
    assert result.loading is None
    assert result.privacy.entries[1].name == "score: frame: centre PC3 (first step)"
    assert list(result.non_private.scores.columns) == ["PC3", "PC1"]
    assert np.allclose(result.non_private.scores.to_numpy(), X @ rotation[:, [2, 0]])
    total = result.privacy.total  # tight: the composition of the parts, within the request
    assert total.epsilon == pytest.approx(0.35 + 2 * 0.65) and 1.99e-6 <= total.delta <= 2e-6


def test_estimated_directions_match_dp_loading_with_the_same_stream():
    X, _ = _clusters(600)
    result = dp_score(
        X, 1.0, 1e-6, bins=6, **LOADING, random_state=np.random.default_rng(9), on_weak="release"
    )
    factor = result.settings["composition"]["factor"]
    loading = dp_loading(X, factor, 1e-6, random_state=np.random.default_rng(9), on_weak="release")
    assert np.array_equal(result.directions, loading.directions)
    basic = dp_score(
        X,
        1.0,
        1e-6,
        bins=6,
        **LOADING,
        random_state=np.random.default_rng(9),
        composition="basic",
        on_weak="release",
    )
    loading = dp_loading(X, 1.0, 1e-6, random_state=np.random.default_rng(9), on_weak="release")
    assert np.array_equal(basic.directions, loading.directions)


def test_groups_share_one_frame_and_are_charged_once():
    X, labels = _clusters()
    plain = dp_score(
        X, 1.0, 1e-6, bins=10, method="sparse", **LOADING, random_state=5, on_weak="release"
    )
    grouped = dp_score(
        X,
        1.0,
        1e-6,
        bins=10,
        method="sparse",
        groups=labels,
        **LOADING,
        random_state=5,
        non_private=True,
        on_weak="release",
    )
    assert np.array_equal(grouped.frame.center, plain.frame.center)
    assert grouped.frame.half_width == plain.frame.half_width
    assert list(grouped.groups) == ["a", "b", "c"]  # sorted by label, not by first appearance
    # Sizes are private estimates from the noisy counts (the sparse threshold drops small
    # cells, more of a small group's): they add up to n and land near the truth.
    assert sum(grouped.group_sizes.values()) == len(labels)
    for level, estimate in grouped.group_sizes.items():
        assert estimate == pytest.approx(np.sum(labels == level), rel=0.2)
    for level, tables in grouped.groups.items():
        assert tables["sparse"]["prob"].sum() == pytest.approx(1.0)
        reference = grouped.non_private.groups[level]["prob"].to_numpy()
        assert reference.sum() == pytest.approx(1.0)
    histogram_entries = [e for e in grouped.privacy if "histogram" in e.name]
    assert len(histogram_entries) == 1 and "3 groups in parallel" in histogram_entries[0].name
    assert grouped.privacy.total.isclose(plain.privacy.total)
    pooled = grouped.histograms["sparse"]["prob"]
    assert pooled.sum() == pytest.approx(1.0)
    categories = grouped.non_private.scores["group"].cat.categories
    assert list(categories) == ["a", "b", "c"]


def test_group_histograms_separate_the_clusters():
    X, labels = _clusters(6000, seed=4)
    result = dp_score(
        X,
        2.0,
        1e-6,
        bins=12,
        method="add",
        groups=labels,
        **LOADING,
        random_state=0,
        non_private=True,
        on_weak="release",
    )
    for level in ("a", "b", "c"):
        private = result.groups[level]["add"]["prob"].to_numpy()
        empirical = result.non_private.groups[level]["prob"].to_numpy()
        # Total variation distance: each of the 144 cells is off by at most |N(0, sigma_H)| / n_g
        # before normalising (clipping only shrinks it), E|N(0, s)| = 0.8 s; 30 % slack for the
        # normalisation and the spread of a sum of 144 terms.
        n_g = result.group_sizes[level]
        bound = 1.3 * 144 * 0.8 * result.settings["add_sigma"] / (2 * n_g)
        assert 0.5 * np.abs(private - empirical).sum() < bound


def test_group_column_name_is_removed_from_the_variables():
    X, labels = _clusters(500)
    frame = pd.DataFrame(X, columns=["w", "x", "y", "z"]).assign(cluster=labels)
    result = dp_score(
        frame, 1.0, 1e-6, bins=5, groups="cluster", **LOADING, random_state=0, on_weak="release"
    )
    assert result.feature_names == ["w", "x", "y", "z"]
    assert set(result.groups) == {"a", "b", "c"}


def test_cells_and_display_centring():
    X, _ = _clusters(3000)
    result = dp_score(
        X, 1.0, 1e-6, bins=4, method=("add", "sparse"), **LOADING, random_state=0, on_weak="release"
    )
    raw = result.cells("sparse")
    shifted = result.cells("sparse", center=True)
    assert np.allclose(shifted["xmin"] + result.frame.center[0], raw["xmin"])
    assert np.allclose(shifted["ymax"] + result.frame.center[1], raw["ymax"])
    assert np.array_equal(shifted["prob"], raw["prob"])
    assert shifted["xmin"].min() == pytest.approx(-result.frame.half_width)
    assert result.cells().equals(result.histograms["add"])
    with pytest.raises(ValueError, match="group must be one of"):
        result.cells(group="a")


def test_all_zero_additive_histogram_raises_with_a_clear_message():
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    raised = 0
    for seed in range(20):
        try:
            dp_score(
                X,
                0.001,
                1e-6,
                bins=1,
                method="add",
                directions=np.eye(2),
                random_state=seed,
                on_weak="release",
            )
        except EmptyHistogramError as error:
            assert "all zero" in str(error)
            raised += 1
    assert raised > 0


def test_sparse_may_be_all_zero_without_error():
    X, _ = _clusters(50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", NoiseDominatedWarning)  # from public values: n = 50
        result = dp_score(
            X, 0.05, 1e-6, bins=5, method="sparse", **LOADING, random_state=0, on_weak="release"
        )
    assert result.histograms["sparse"]["prob"].sum() == 0.0


def test_inputs_not_modified():
    X, labels = _clusters(300)
    before_X, before_labels = X.copy(), labels.copy()
    dp_score(
        X,
        1.0,
        1e-6,
        bins=5,
        groups=labels,
        **LOADING,
        random_state=0,
        non_private=True,
        on_weak="release",
    )
    assert np.array_equal(X, before_X) and np.array_equal(labels, before_labels)


BAD = [
    ({"bins": 0}, ValueError, "bins must be an integer >= 1"),
    ({"method": "histogram"}, ValueError, "method must be one of"),
    ({"method": ()}, ValueError, "at least one"),
    ({"method": ("add", "add")}, ValueError, "must not repeat a choice"),
    ({"axes": (1, 1)}, ValueError, "two different"),
    ({"axes": (0, 1)}, ValueError, "axes must be an integer >= 1"),
    ({"axes": (1, 5)}, ValueError, "from 1 to p=4"),
    ({"axes": "12"}, TypeError, "pair of PC numbers"),
    ({"axes": (1, 2, 3)}, TypeError, "pair of PC numbers"),
    ({"calibration": "exact"}, ValueError, "calibration must be one of"),
    ({"inflate": -1.0}, ValueError, "inflate must be >= 0"),
    ({"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
    ({"delta": 1.0}, ValueError, "delta must be < 1"),
    ({"loading_epsilon": None}, ValueError, "directions=None needs loading_epsilon"),
    ({"loading_epsilon": -2.0}, ValueError, "loading_epsilon must be > 0"),
    ({"directions": np.eye(4)}, ValueError, "apply only when directions=None"),
    ({"directions": np.eye(4), "loading_epsilon": None, "loading_delta": None}, None, None),
    (
        {"directions": np.eye(4) * 2, "loading_epsilon": None, "loading_delta": None},
        ValueError,
        "orthonormal",
    ),
    (
        {"directions": np.eye(3), "loading_epsilon": None, "loading_delta": None},
        ValueError,
        "4 x 4",
    ),
    ({"groups": ["a"] * 10}, ValueError, "one label per row"),
    ({"groups": [None] + ["a"] * 59}, ValueError, "missing labels"),
    ({"groups": "cluster"}, TypeError, "needs X to be a DataFrame"),
    ({"groups": np.ones((60, 2))}, ValueError, "one-dimensional"),
    ({"non_private": 1}, TypeError, "non_private must be True or False"),
    ({"X": np.ones((60, 1))}, ValueError, "from 1 to p=1"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD)
def test_errors_before_any_noise(kwargs, error, message):
    X, _ = _clusters(60)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    arguments = {"X": X, "epsilon": 1.0, "delta": 1e-6, "bins": 5, **LOADING, "random_state": rng}
    arguments["on_weak"] = "release"
    arguments.update(kwargs)
    if error is None:
        dp_score(**arguments)
        return
    with pytest.raises(error, match=message):
        dp_score(**arguments)
    assert rng.bit_generator.state == state


def test_group_column_errors():
    frame = pd.DataFrame(_clusters(60)[0], columns=list("abcd"))
    with pytest.raises(ValueError, match="not a column of X"):
        dp_score(frame, 1.0, 1e-6, bins=5, groups="cluster", **LOADING, on_weak="release")
