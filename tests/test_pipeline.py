"""dp_pca: budget split, ledger totals, result object, JSON export and errors."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import (
    Accountant,
    Budget,
    BudgetExceededError,
    DPPCAResult,
    NoiseSettings,
    dp_loading,
    dp_pca,
    kendall_matrix,
)


def _data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["u", "v", "w"], size=n)
    shift = {"u": [0, 0, 0, 0], "v": [6, 0, 0, 0], "w": [0, 6, 0, 0]}
    X = np.array([shift[g] for g in labels]) + rng.standard_normal((n, 4)) * [2, 1.5, 1, 0.5]
    return pd.DataFrame(X, columns=["a", "b", "c", "d"]), labels


@pytest.mark.parametrize(
    "split",
    [
        None,
        {"loading": 0.5, "scree": 0.2, "score": 0.3},
        {"loading": Budget(0.7, 4e-6), "scree": Budget(0.5, 3e-6), "score": Budget(0.8, 3e-6)},
    ],
)
def test_ledger_total_equals_the_request_and_never_exceeds_it(split):
    X, _ = _data()
    result = dp_pca(
        X, 2.0, 1e-5, split=split, random_state=0, on_weak="release", noise={"composition": "basic"}
    )
    total = result.privacy.total
    assert total.epsilon <= 2.0 and total.delta <= 1e-5
    assert total.isclose(Budget(2.0, 1e-5))
    by_component = result.summary().budget
    for name, row in [("loading", "Loading"), ("scree", "Scree")]:
        assert by_component.loc[row, "epsilon"] == pytest.approx(
            getattr(result.budgets, name).epsilon
        )
    score = result.budgets.score
    frame_and_histogram = by_component.loc[["Score frame", "Score histogram"], "epsilon"].sum()
    assert frame_and_histogram == pytest.approx(score.epsilon)
    assert by_component.loc["Score frame", "delta"] == 0
    assert by_component.loc["Total", "epsilon"] == pytest.approx(total.epsilon)


def test_accountant_refuses_before_any_noise():
    X, _ = _data(300)
    accountant = Accountant(Budget(1.0, 1e-5), composition="basic")
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError, match="would exceed the total"):
        dp_pca(X, 2.0, 1e-6, random_state=rng, accountant=accountant, on_weak="release")
    assert rng.bit_generator.state == state
    assert accountant.spent == Budget(0.0, 0.0) and len(accountant.ledger) == 0
    dp_pca(X, 0.6, 4e-6, random_state=rng, accountant=accountant, on_weak="release")
    assert accountant.spent == Budget(0.6, 4e-6)
    assert accountant.remaining.isclose(Budget(0.4, 6e-6))


def test_huge_epsilon_recovers_directions_and_variances():
    X, _ = _data(3000, seed=1)
    result = dp_pca(X, 1e7, 1e-5, random_state=0, non_private=True, on_weak="release")
    _, vectors = np.linalg.eigh(kendall_matrix(X))
    exact = vectors[:, ::-1]
    assert np.all(np.abs(np.sum(result.directions * exact, axis=0)) > 1 - 1e-6)
    variances = (X.to_numpy() @ result.directions).var(axis=0, ddof=1)
    tolerance = variances * (5 * math.sqrt(2 / 1500) + 0.005)
    assert np.all(np.abs(result.scree - np.sort(variances)[::-1]) <= tolerance)
    assert result.pve.sum() == pytest.approx(1.0)
    assert np.all(np.diff(result.scree) <= 0)


def test_result_attributes_and_loadings():
    X, _ = _data()
    result = dp_pca(
        X,
        3.0,
        1e-5,
        random_state=0,
        on_weak="release",
        scree={"k": 3},
        score={"method": "add", "bins": (10, 8), "axes": (2, 3)},
    )
    assert result.directions.shape == (4, 4) and result.scree.shape == (3,)
    assert list(result.loadings.index) == ["a", "b", "c", "d"]
    assert list(result.loadings.columns) == ["PC1", "PC2", "PC3", "PC4"]
    assert len(result.histogram) == 80 and result.histogram["prob"].sum() == pytest.approx(1.0)
    assert result.axes == (2, 3) and result.non_private is None and result.groups is None
    text = repr(result)
    assert "Differentially private PCA" in text and "Privacy spent: epsilon = 3" in text
    summary = result.summary()
    assert list(summary.importance.index) == [
        "Variance (scree)",
        "Proportion of variance",
        "Cumulative proportion",
    ]
    assert list(summary.importance.columns) == ["PC1", "PC2", "PC3"]
    assert summary.importance.loc["Cumulative proportion", "PC3"] == pytest.approx(1.0)
    assert "normalised over the k estimated components" in str(summary)


def test_groups_and_non_private_reference():
    X, labels = _data()
    frame = X.assign(cluster=labels)
    result = dp_pca(
        frame, 3.0, 1e-5, groups="cluster", random_state=0, non_private=True, on_weak="release"
    )
    assert set(result.groups) == {"u", "v", "w"} and result.feature_names == ["a", "b", "c", "d"]
    for table in result.groups.values():
        assert table["prob"].sum() == pytest.approx(1.0)
    reference = result.non_private
    eigenvalues = np.linalg.eigvalsh(np.cov(X.to_numpy(), rowvar=False))[::-1]
    assert np.allclose(reference.eigenvalues, eigenvalues)
    assert np.all(np.sum(reference.directions * result.directions, axis=0) >= 0)
    assert reference.histogram["prob"].sum() == pytest.approx(1.0)
    assert set(reference.groups) == {"u", "v", "w"}
    assert np.allclose(reference.variable_sd, X.std().to_numpy())
    assert list(reference.scores.columns) == ["PC1", "PC2", "group"]


def test_json_holds_only_private_releases_unless_asked():
    X, labels = _data()
    result = dp_pca(
        X, 3.0, 1e-5, groups=labels, random_state=0, non_private=True, on_weak="release"
    )
    exported = json.loads(result.to_json())
    assert "non_private" not in exported
    text = result.to_json()
    assert "scores" not in exported and "variable_sd" not in text
    # No raw data value or non-private statistic appears in the private export.
    private_numbers = _numbers(exported)
    assert not private_numbers & {float(v) for v in X.to_numpy().ravel()[:500]}
    assert not private_numbers & {float(v) for v in result.non_private.eigenvalues}
    with_reference = json.loads(result.to_json(include_non_private=True))
    assert "NOT differentially private" in with_reference["non_private"]["warning"]
    assert len(with_reference["non_private"]["scores"]["PC1"]) == len(X)


def _numbers(value):
    if isinstance(value, dict):
        return set().union(*(_numbers(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_numbers(v) for v in value)) if value else set()
    return (
        {float(value)} if isinstance(value, int | float) and not isinstance(value, bool) else set()
    )


@pytest.mark.parametrize("include_non_private", [False, True])
def test_json_round_trip_reproduces_the_result(include_non_private):
    X, labels = _data()
    result = dp_pca(
        X, 3.0, 1e-5, groups=labels, random_state=0, non_private=True, on_weak="release"
    )
    text = result.to_json(include_non_private=include_non_private)
    again = DPPCAResult.from_json(text)
    assert again.to_json(include_non_private=include_non_private) == text
    assert np.array_equal(again.directions, result.directions)
    assert np.array_equal(again.scree, result.scree)
    assert np.array_equal(again.frame.center, result.frame.center)
    pd.testing.assert_frame_equal(again.histogram, result.histogram)
    assert again.privacy.total == result.privacy.total
    assert again.group_sizes == result.group_sizes
    assert (again.non_private is not None) == include_non_private


def test_json_errors():
    X, _ = _data(300)
    result = dp_pca(X, 3.0, 1e-5, random_state=0, on_weak="release")
    with pytest.raises(ValueError, match="no non-private reference was computed"):
        result.to_json(include_non_private=True)
    with pytest.raises(ValueError, match=r"not a dppca\.DPPCAResult export"):
        DPPCAResult.from_dict({"format": "other"})


BAD = [
    ({"split": {"loading": 0.5, "score": 0.5}}, ValueError, "exactly the keys"),
    ({"split": {"loading": 0.5, "scree": 0.3, "score": 0.3}}, ValueError, "sum to 1"),
    ({"split": {"loading": 0.5, "scree": 0.5, "score": 0.0}}, ValueError, r"split\['score'\]"),
    (
        {"split": {"loading": Budget(1, 1e-6), "scree": Budget(1, 1e-6), "score": Budget(1, 0)}},
        ValueError,
        "delta > 0",
    ),
    (
        {"split": {"loading": Budget(2, 1e-6), "scree": Budget(1, 1e-6), "score": Budget(1, 1e-6)}},
        ValueError,
        "more than the total",
    ),
    ({"split": {"loading": 0.5, "scree": Budget(1, 1e-6), "score": 0.2}}, TypeError, "not both"),
    ({"split": [0.3, 0.3, 0.4]}, TypeError, "split must be a dict"),
    ({"scree": {"k": 1}}, ValueError, r"scree\['k'\] must be an integer in \[2, p=4\]"),
    ({"scree": {"k": 5}}, ValueError, r"scree\['k'\] must be an integer in \[2, p=4\]"),
    ({"scree": {"k": 2}, "score": {"axes": (1, 3)}}, ValueError, "from 1 to k=2"),
    ({"scree": "median"}, ValueError, "scree must be one of"),
    ({"score": "dense"}, ValueError, "score must be one of"),
    ({"scree": "pmwm"}, ValueError, r"control parameter.*scree=\{'method': 'pmwm', 'control'"),
    ({"scree": {"method": "huber", "control": {"x": 1}}}, ValueError, r"Unknown scree\['control"),
    ({"score": {"bins": (0, 3)}}, ValueError, r"score\['bins'\] must be an integer >= 1"),
    ({"loading": {"radius": 2.0}}, ValueError, "radius applies to"),
    ({"groups": ["x"]}, ValueError, "one label per row"),
    ({"X": np.ones((10, 1))}, ValueError, "at least 2 variables"),
    ({"X": pd.DataFrame(np.ones((10, 2)), columns=["a", "a"])}, ValueError, "unique"),
    ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
    ({"non_private": None}, TypeError, "non_private must be True or False"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD)
def test_errors_before_any_noise(kwargs, error, message):
    X, _ = _data(100)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    arguments = {"X": X, "epsilon": 3.0, "delta": 1e-5, "random_state": rng, **kwargs}
    with pytest.raises(error, match=message):
        dp_pca(**arguments)
    assert rng.bit_generator.state == state


def test_inputs_not_modified():
    X, labels = _data(200)
    before = X.copy()
    dp_pca(X, 3.0, 1e-5, groups=labels, random_state=0, non_private=True, on_weak="release")
    pd.testing.assert_frame_equal(X, before)


def test_pairs_and_sensitivity_reach_the_loading_release():
    """dp_pca passes pairs= and sensitivity= to the directions: the same release as dp_loading
    with the same settings and stream, recorded in the settings."""
    X, _ = _data()
    data = X.to_numpy()
    result = dp_pca(
        data,
        3.0,
        1e-5,
        random_state=2,
        on_weak="release",
        loading={"pairs": 4, "sensitivity": "paper"},
        noise={"composition": "basic"},
    )
    loading = dp_loading(
        data, 1.0, 1e-5 / 3, pairs=4, sensitivity="paper", random_state=2, on_weak="release"
    )
    assert result.settings["loading"]["pairs"] == 4
    assert result.settings["loading"]["sensitivity"] == "paper"
    assert np.allclose(result.directions, loading.directions)
    with pytest.raises(ValueError, match="pairs"):
        dp_pca(data, 3.0, 1e-5, on_weak="release", loading={"pairs": 0})


# --- given directions (the R package's V_dp) and the paper's calibration ---


def test_given_directions_are_used_as_they_are_and_spend_no_loading_budget():
    X, _ = _data()
    V, _ = np.linalg.qr(np.random.default_rng(5).standard_normal((4, 4)))
    result = dp_pca(
        X,
        2.0,
        1e-5,
        directions=V,
        random_state=0,
        on_weak="release",
        noise={"composition": "basic"},
    )
    assert np.array_equal(result.directions, V)
    assert result.kendall_eigenvalues is None and result.noise["kendall_sigma"] is None
    assert not result.privacy.select("loading").entries
    assert result.budgets.scree == Budget(1.0, 5e-6)
    assert result.privacy.total.isclose(Budget(2.0, 1e-5))
    bands = result.uncertainty(draws=20, random_state=0)
    assert (bands.loadings["lower"] == bands.loadings["upper"]).all()  # no noise on them
    again = DPPCAResult.from_json(result.to_json())
    assert again.kendall_eigenvalues is None and np.array_equal(again.directions, V)
    with pytest.raises(ValueError, match=r"exactly the keys \['scree', 'score'\]"):
        dp_pca(
            X,
            2.0,
            1e-5,
            directions=V,
            split={"loading": 0.2, "scree": 0.4, "score": 0.4},
            on_weak="release",
        )
    with pytest.raises(ValueError, match="orthonormal columns"):
        dp_pca(X, 2.0, 1e-5, directions=V * 2, on_weak="release")


def test_paper_mechanism_reproduces_the_r_packages_clipped_scree():
    """With ``mechanism="paper"`` and given directions, the clipped scree is the R package's:
    each ``W_jl`` clipped at ``C_clip``, the means released with noise sd
    ``sqrt(k) C_clip / (m mu(epsilon, delta))`` (mu the Gaussian-DP parameter), and the
    released values are the clipped means plus that noise."""
    from dppca.privacy.calibration import gdp_mu

    X, _ = _data()
    n, C = len(X), 5.0
    V = np.eye(4)
    result = dp_pca(
        X,
        2.0,
        2e-6,
        directions=V,
        random_state=0,
        on_weak="release",
        noise={"mechanism": "paper"},
        scree={"control": {"C_clip": C}, "mono": False},
    )
    scree = result.budgets.scree
    m = n // 2
    expected = math.sqrt(4) * C / (m * gdp_mu(scree.epsilon, scree.delta))
    # R's sd times the floating-point allowance of the means, 1 + 16 u m (never below R's).
    allowance = 1 + 16 * 2.0**-53 * m
    np.testing.assert_allclose(result.noise["scree_sd"], expected * allowance, rtol=1e-12)
    assert result.settings["scree_control"]["clip_by"] == "component"
    assert "component-clipped" in result.privacy.select("scree").entries[0].name
    with pytest.raises(ValueError, match="needs a public number C_clip"):
        dp_pca(X, 2.0, 2e-6, directions=V, on_weak="release", noise={"mechanism": "paper"})


def test_paper_mechanism_reproduces_the_r_packages_calibration():
    """``mechanism="paper"``: the R package's sigma for the directions,
    ``4 sqrt(2 ln(1.25 / delta)) / (n epsilon)`` on the loading budget, and for an additive
    histogram ``sqrt(2) sqrt(2 ln(1.25 / delta)) / epsilon`` on the histogram's (0.65 of the
    score budget's epsilon, all of its delta), with continuous noise; with given directions
    the histogram's calibration is the same."""
    X, _ = _data()
    n = len(X)
    with pytest.warns(match="not established"):
        result = dp_pca(
            X,
            3.0,
            3e-6,
            score="add",
            random_state=0,
            on_weak="release",
            noise={"mechanism": "paper"},
            scree={"control": {"C_clip": 5.0}},
        )
    loading = result.budgets.loading
    assert result.noise["kendall_sigma"] == pytest.approx(
        4 * math.sqrt(2 * math.log(1.25 / loading.delta)) / (n * loading.epsilon), rel=1e-12
    )
    score = result.budgets.score
    hist_epsilon = 0.65 * score.epsilon
    assert result.noise["histogram"]["add_sigma"] == pytest.approx(
        math.sqrt(2) * math.sqrt(2 * math.log(1.25 / score.delta)) / hist_epsilon, rel=1e-12
    )
    assert result.settings["sampler"] == "continuous" and result.settings["mechanism"] == "paper"
    V = result.directions
    given = dp_pca(
        X,
        2.0,
        2e-6,
        directions=V,
        score="add",
        random_state=0,
        on_weak="release",
        noise={"mechanism": "paper"},
        scree={"control": {"C_clip": 5.0}},
    )
    score = given.budgets.score
    assert given.noise["histogram"]["add_sigma"] == pytest.approx(
        math.sqrt(2) * math.sqrt(2 * math.log(1.25 / score.delta)) / (0.65 * score.epsilon),
        rel=1e-12,
    )
    with pytest.raises(ValueError, match=r"noise\['mechanism'\] must be one of"):
        dp_pca(X, 2.0, 1e-5, on_weak="release", noise={"mechanism": "r"})
    with pytest.raises(ValueError, match="mechanism must be one of"):
        dp_pca(X, 2.0, 1e-5, on_weak="release", noise=NoiseSettings(mechanism="r"))


def test_results_of_the_previous_json_version_still_load():
    X, _ = _data()
    data = dp_pca(X, 2.0, 1e-5, random_state=0, on_weak="release").to_dict()
    data["version"] = 4
    del data["scales"]
    del data["budgets"]["scale"]
    again = DPPCAResult.from_dict(data)
    assert again.scales is None and again.budgets.scale == Budget(0.0, 0.0)


@pytest.mark.parametrize(
    "options",
    [
        {"scree": {"k": 3}},
        {"scree": {"k": 2}, "scale": "private"},
        {"split": {"loading": 0.6, "scree": 0.2, "score": 0.2}},
    ],
)
def test_plan_pca_previews_the_budget_each_release_spends(options):
    X = np.random.default_rng(0).normal(size=(3000, 5)) * [4.0, 3.0, 2.0, 1.0, 1.0]
    table = dppca.plan_pca(X.shape, 3.0, 1e-6, **options).budget_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dppca.NoiseDominatedWarning)
        ledger = dppca.dp_pca(
            X, 3.0, 1e-6, random_state=0, **options, on_weak="release"
        ).privacy.to_frame()
    spent = ledger.groupby("component")[["epsilon", "delta"]].sum()
    names = {
        "scale": "scales of the variables",
        "loading": "directions (Kendall matrix)",
        "scree": "variances along the directions",
        "score.frame": "score plot: frame",
        "score.histogram": "score plot: histogram",
    }
    planned = table.set_index("release")
    for component, row in spent.iterrows():
        assert planned.loc[names[component], "epsilon"] == pytest.approx(row["epsilon"], rel=1e-9)
        assert planned.loc[names[component], "delta"] == pytest.approx(row["delta"], rel=1e-9)
    assert len(planned) == len(spent) + 1  # and the composed total
    assert planned.iloc[-1].tolist() == [3.0, 1e-6]


def test_plan_pca_refuses_what_dp_pca_refuses_without_data():
    with pytest.raises(ValueError, match=r"scree\['k'\] must be an integer in \[2, p=4\]; got 9"):
        dppca.plan_pca((100, 4), 1.0, 1e-6, scree={"k": 9})
    with pytest.raises(ValueError, match="n must be at least 2; got 1"):
        dppca.plan_pca((1, 4), 1.0, 1e-6)
    with pytest.raises(TypeError, match=r"shape must be a pair \(n, p\)"):
        dppca.plan_pca(100, 1.0, 1e-6)
