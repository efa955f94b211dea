"""Several scree and histogram methods in one dp_pca release: each on an equal share of its
part's budget, the first feeding every other release, all of them shown and exported."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import matplotlib
import numpy as np
import pandas as pd
import pytest

import dppca
from dppca import Budget, DPPCAResult, NoiseSettings, dp_pca, plan_pca

matplotlib.use("Agg")

SPREAD = [3.0, 2.0, 1.0, 0.5]
BASIC = NoiseSettings(composition="basic", sampler="continuous")


def _data(n=20_000, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 4)) * SPREAD


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _release(X, epsilon=4.0, delta=1e-6, **options):
    """dp_pca without its notes' warnings (the releases' values are what is tested here)."""
    return _quiet(dp_pca, X, epsilon, delta, progress=False, **options)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
@pytest.mark.parametrize("total", [Budget(1.0, 1e-6), Budget(0.1, 3e-7), Budget(4.0, 1e-7)])
def test_equal_shares_never_add_up_to_more_than_the_part(total, count):
    share = total.shared(count)
    assert count * Fraction(share.epsilon) <= Fraction(total.epsilon)
    assert count * Fraction(share.delta) <= Fraction(total.delta)
    assert share.epsilon == pytest.approx(total.epsilon / count, rel=1e-15)
    assert share.delta == pytest.approx(total.delta / count, rel=1e-15)


@pytest.mark.parametrize(
    ("count", "error"), [(0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError)]
)
def test_a_budget_is_shared_among_a_positive_whole_number_of_releases(count, error):
    with pytest.raises(error, match=r"count \(the number of releases sharing it\) must be an "):
        Budget(1.0, 1e-6).shared(count)


def test_a_histogram_share_of_delta_that_rounds_to_zero_is_refused_by_the_plan():
    settings = dppca.ScoreSettings(("thresholded", "add", "sparse"))
    with pytest.raises(ValueError, match=r"delta=4.94066e-324 among 3 histograms leaves a part"):
        settings.plan(20_000, Budget(4.0, 5e-324), NoiseSettings(), shared=True)


def test_an_additive_histogram_compared_that_comes_out_empty_is_marked_not_raised():
    """At this seed every noisy count of the compared additive histogram is clipped to 0: as
    the first method it would raise EmptyHistogramError after the charge, losing the first
    method's releases; compared, it is marked and blank, and its budget is in the ledger."""
    X = _data(200)
    score = {"method": ("thresholded", "add"), "bins": (2, 2), "frame": ((-10, 10), (-10, 10))}
    result = _release(X, 0.02, score=score, random_state=66, on_weak="release")
    assert result.status["histogram (add)"].state == "lost in the noise"
    assert not result.status["histogram (add)"].usable
    assert result.compared.histograms["add"]["prob"].isna().all()
    assert result.histogram["prob"].notna().all()
    assert "score: histogram (add)" in [entry.name for entry in result.privacy]
    from dppca.plotting import ScoreHistogramDisplay

    panel = ScoreHistogramDisplay.from_result(result, method="add")
    assert panel.ax_.get_title().startswith("DP score histogram\n(add, 1 of 2 sharing score ε=")
    text = " ".join(panel.ax_.texts[0].get_text().split())
    assert text.startswith("The histogram (add) is not usable: lost in the noise")


def test_the_plan_gives_each_method_an_equal_share_of_its_part():
    plan = plan_pca(
        (20_000, 4),
        4.0,
        1e-6,
        scree={"method": ("clipped", "huber")},
        score={"method": ("thresholded", "add", "sparse")},
        noise={"composition": "basic"},
    )
    parts = plan.planner.budgets
    plans = plan.planner(plan.factor)
    assert [each.budget for each in plans.scree] == [parts.scree.shared(2)] * 2
    score = plans.score
    histogram = Budget(score.histogram_epsilon, score.histogram_delta)
    whole = Budget(parts.score.epsilon - score.frame_epsilon, parts.score.delta)
    assert histogram == whole.shared(3)
    table = plan.budget_table()
    assert table["release"].tolist()[1:3] == [
        "variances along the directions (clipped)",
        "variances along the directions (huber)",
    ]
    assert table["release"].str.startswith("score plot: histogram (").sum() == 3


def test_the_first_method_gets_exactly_its_share_and_feeds_the_other_releases():
    """Under basic composition with absolute parts, the first scree method's release is the
    single-method release at half the scree's budget, bit for bit (same seed, same draws up to
    it); the directions too."""
    X = _data()
    parts = {"loading": Budget(1.0, 3e-7), "scree": Budget(1.0, 3e-7), "score": Budget(1.0, 3e-7)}
    both = _release(
        X,
        3.0,
        9e-7,
        split=parts,
        scree={"method": ("clipped", "huber")},
        noise=BASIC,
        random_state=5,
    )
    alone = _release(
        X,
        3.0,
        9e-7,
        split={**parts, "scree": parts["scree"].shared(2)},
        scree="clipped",
        noise=BASIC,
        random_state=5,
    )
    np.testing.assert_array_equal(both.directions, alone.directions)
    np.testing.assert_array_equal(both.scree, alone.scree)
    assert both.scree_methods == ("clipped", "huber")
    assert both.compared.scree["huber"] == pytest.approx(np.array(SPREAD) ** 2, rel=0.15)
    # The frame's width comes from the first method's scree: the same as alone.
    assert both.frame.half_width == pytest.approx(alone.frame.half_width, rel=0.2)
    scree_entries = [entry for entry in both.privacy if entry.component == "scree"]
    assert {entry.name.split(":")[0] for entry in scree_entries} == {
        "scree (clipped)",
        "scree (huber)",
    }
    spent = sum(Fraction(entry.epsilon) for entry in scree_entries)
    assert spent <= Fraction(parts["scree"].epsilon)
    assert both.privacy.total <= Budget(3.0, 9e-7)


def test_the_first_histogram_gets_exactly_its_share():
    X = _data()
    frame = ((-15.0, 15.0), (-15.0, 15.0))
    parts = {"loading": Budget(1.0, 3e-7), "scree": Budget(1.0, 3e-7), "score": Budget(1.0, 3e-7)}
    common = {"noise": BASIC, "random_state": 2, "directions": np.eye(4)}
    three = _release(
        X,
        2.0,
        6e-7,
        split={"scree": parts["scree"], "score": parts["score"]},
        score={"method": ("add", "thresholded", "sparse"), "frame": frame, "bins": 12},
        **common,
    )
    alone = _release(
        X,
        2.0,
        6e-7,
        split={"scree": parts["scree"], "score": parts["score"].shared(3)},
        score={"method": "add", "frame": frame, "bins": 12},
        **common,
    )
    pd.testing.assert_frame_equal(three.histogram, alone.histogram)
    assert three.histogram_methods == ("add", "thresholded", "sparse")
    for method in ("thresholded", "sparse"):
        table = three.compared.histograms[method]
        assert table["prob"].sum() == pytest.approx(1.0)
        assert list(table.columns) == list(three.histogram.columns)
    histograms = [entry for entry in three.privacy if entry.component == "score.histogram"]
    assert len(histograms) == 3
    assert sum(Fraction(entry.epsilon) for entry in histograms) <= Fraction(1.0)
    assert sum(Fraction(entry.delta) for entry in histograms) <= Fraction(3e-7)


def test_tight_composition_stays_within_the_total_with_more_methods():
    X = _data()
    total = Budget(2.0, 1e-6)
    result = _release(
        X,
        total.epsilon,
        total.delta,
        scree={"method": ("clipped", "huber")},
        score={"method": ("thresholded", "sparse")},
        random_state=0,
    )
    assert result.privacy.total <= total
    one = _release(X, total.epsilon, total.delta, random_state=0)
    # More mechanisms share the same total: the common factor can only go down.
    assert result.settings["composition"]["factor"] <= one.settings["composition"]["factor"]


def test_groups_release_every_method_per_group():
    X = _data(6000)
    labels = np.repeat(["a", "b", "c"], 2000)
    result = _release(
        X,
        groups=labels,
        score={"method": ("thresholded", "add")},
        random_state=3,
    )
    assert set(result.compared.groups) == {"add"}
    assert set(result.compared.groups["add"]) == {"a", "b", "c"}
    method, table, groups = result.histogram_tables("add")
    assert method == "add" and table is result.compared.histograms["add"]
    assert groups is result.compared.groups["add"]
    with pytest.raises(ValueError, match="histogram must be one of"):
        result.histogram_tables("sparse")
    points = dppca.sample_scores(result, n=300, random_state=0, histogram="add")
    assert len(points) == 300


def test_an_unlocatable_method_is_refused_before_the_charge():
    X = _data(4000)
    accountant = dppca.Accountant(Budget(10.0, 1e-5))
    with pytest.raises(dppca.UnlocatableError, match=r"scree \(huber\)"):
        dp_pca(X, 4.0, 1e-6, scree={"method": ("clipped", "huber")}, accountant=accountant)
    assert len(accountant.ledger) == 0


def test_json_keeps_every_method_and_reads_the_former_version():
    X = _data()
    result = _release(
        X,
        scree={"method": ("clipped", "huber"), "control": {"huber": {"T": 12}}},
        score={"method": ("thresholded", "add")},
        random_state=1,
    )
    text = result.to_json()
    again = DPPCAResult.from_json(text)
    assert again.scree_methods == ("clipped", "huber")
    np.testing.assert_array_equal(again.compared.scree["huber"], result.compared.scree["huber"])
    pd.testing.assert_frame_equal(
        again.compared.histograms["add"], result.compared.histograms["add"]
    )
    data = json.loads(text)
    assert data["settings"]["compared_scree"]["huber"]["control"]["T"] == 12
    assert data["status"]["scree (huber)"]["state"] == "ok"
    former = {key: value for key, value in data.items() if key != "compared"}
    former["version"] = 7
    old = DPPCAResult.from_dict(former)
    assert old.scree_methods == ("clipped",) and old.histogram_methods == ("thresholded",)


def test_the_plots_show_every_method():
    from dppca.plotting import ScreeDisplay, score_grid

    X = _data()
    result = _release(
        X,
        scree={"method": ("clipped", "huber")},
        score={"method": ("thresholded", "sparse")},
        random_state=1,
    )
    display = ScreeDisplay.from_result(result, kind="scree")
    labels = [line.get_label() for line in display.ax_.get_lines()]
    assert labels == ["Clipped (DP)", "Huber (DP)"]
    caption = " ".join(text.get_text() for text in display.ax_.texts)
    assert "share the scree's budget equally" in caption
    _, displays = score_grid(result, panels=("histogram",))
    assert sorted(displays) == [("histogram", "sparse"), ("histogram", "thresholded")]
    titles = [displays[key].ax_.get_title() for key in sorted(displays)]
    assert "sparse" in titles[0] and "thresholded" in titles[1]


def test_the_report_writes_the_histograms_side_by_side(tmp_path):
    from dppca.job import run_job

    job = _quiet(
        run_job,
        pd.DataFrame(_data(), columns=list("abcd")),
        4.0,
        1e-6,
        seed=1,
        score={"method": ("thresholded", "add")},
        scree={"method": ("clipped", "huber")},
    )
    job.write(tmp_path, title="t", source="s")
    assert (tmp_path / "histograms.png").stat().st_size > 10_000
    assert (tmp_path / "histograms.svg").exists()
    report = (tmp_path / "report.html").read_text()
    assert "Score histograms compared" in report
    assert "the clipped and huber methods side by side" in report
    release = json.loads((tmp_path / "release.json").read_text())
    assert set(release["compared"]["histograms"]) == {"add"}


def test_dpppca_estimator_takes_one_scree_method():
    with pytest.raises(ValueError, match="scree must name one method for DPPCA"):
        dppca.DPPCA(n_components=2, epsilon=2.0, delta=1e-6, scree=("clipped", "huber")).fit(
            _data(2000)
        )


def test_a_compared_scree_that_is_not_usable_is_said_and_not_drawn():
    from dataclasses import replace

    from dppca.plotting import ScreeDisplay
    from dppca.results.compared import ComparedMethods
    from dppca.results.status import ReleaseStatus

    result = _release(_data(), scree={"method": ("clipped", "huber")}, random_state=1)
    lost = ReleaseStatus("collapsed", "the private clip level's quantile is at its grid's bottom")
    marked = replace(
        result,
        status={**result.status, "scree (huber)": lost},
        compared=ComparedMethods(scree={"huber": np.full(4, np.nan)}),
    )
    display = ScreeDisplay.from_result(marked)
    caption = " ".join(" ".join(text.get_text().split()) for text in display.ax_.texts)
    assert "The huber scree is collapsed, not drawn." in caption
    drawn = {line.get_label(): line.get_ydata() for line in display.ax_.get_lines()}
    assert np.isnan(drawn["Huber (DP)"]).all() and np.isfinite(drawn["Clipped (DP)"]).all()
