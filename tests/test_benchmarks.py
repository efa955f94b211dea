"""The benchmark scripts run in a tiny mode, so that they cannot rot."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dppca.audit import scenarios

pytestmark = pytest.mark.long

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    import sys

    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))  # the scripts import their shared helpers
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kendall_speed_quick(tmp_path, capsys):
    table = _load("kendall_speed").main(["--quick", "--repeats", "1", "--out", str(tmp_path)])
    assert list(table[["n", "d"]].itertuples(index=False, name=None)) == [(300, 5), (600, 10)]
    assert (table["max_abs_diff"] < 1e-12).all()
    assert (table[["ours_s", "direct_s", "products_s"]] > 0).all().all()
    saved = (tmp_path / "kendall_speed_quick.md").read_text()
    assert "direct/ours" in saved and "| 600 | 10 |" in saved
    assert (tmp_path / "kendall_speed_quick.csv").exists()
    assert "ours" in capsys.readouterr().out


def test_dask_scale_small(tmp_path):
    pytest.importorskip("distributed")
    arguments = ["--rows", "8000", "--chunk", "2000", "--repeats", "1"]
    table = _load("dask_scale").main(
        [*arguments, "--data", str(tmp_path / "data"), "--out", str(tmp_path)]
    )
    assert len(table) == 3 and table["same release"].all()
    assert (table[["Dask s", "in memory s"]] > 0).all().all()
    assert "client peak MiB, 2,000 rows" in (tmp_path / "dask_scale.md").read_text()


def test_privacy_audit_quick(tmp_path):
    table = _load("privacy_audit").main(["--quick", "--out", str(tmp_path)])
    assert len(table) == len(scenarios()) and (tmp_path / "privacy_audit_quick.md").exists()
    assert table["within claim"].all()


def test_speed_quick(tmp_path):
    table = _load("speed").main(["--quick", "--out", str(tmp_path)])
    assert "g-DPPCA spherical (ours)" in set(table["method"])
    assert (table["seconds"] > 0).all() and (tmp_path / "speed_quick.md").exists()


def test_accuracy_tiny(tmp_path):
    summary = _load("accuracy").main(["--tiny", "--out", str(tmp_path)])
    assert {"g-DPPCA spherical (ours)", "AG", "AG, oracle tuning", "NSGGD"} <= set(
        summary["method"]
    )
    assert summary["mean"].between(0, 1).all()
    assert (summary["low"] <= summary["mean"]).all() and (summary["mean"] <= summary["high"]).all()
    assert (summary["count"] == 2).all() and (summary["runs"] == 2).all()
    assert (tmp_path / "accuracy_tiny.csv").exists()
    assert not (tmp_path / "accuracy_tiny.partial.csv").exists()  # the checkpoint is removed
    report = (tmp_path / "accuracy_tiny.md").read_text()
    assert "## d = 4, n = 400, epsilon = 2" in report
    again = _load("accuracy").main(["--tiny", "--out", str(tmp_path), "--only", "SGPCA"])
    keys = ["distribution", "method"]  # the same samples and seeds: the same rows, replaced
    assert again.sort_values(keys, ignore_index=True).equals(
        summary.sort_values(keys, ignore_index=True)
    )
    assert "| g-DPPCA spherical (ours) | " in report


def test_directions_tiny(tmp_path):
    """Every method on every distribution, shift and k, paired by repetition; a release refused
    or marked unusable counts as the worst error, 1, and is listed."""
    directions = _load("directions")
    results = directions.main(["--tiny", "--out", str(tmp_path)])
    assert set(results["method"]) == set(directions.METHODS)
    assert set(results["data"]) == set(directions.DISTRIBUTIONS)
    assert results[["k1", "k3"]].stack().between(0, 1).all()
    per_fit = results.groupby(["data", "shift", "epsilon", "rep"])["method"].nunique()
    # the SSCM and AG about the origin only where the origin is the true centre
    expected = np.where(per_fit.index.get_level_values("shift") == 0, 7, 5)
    assert (per_fit.to_numpy() == expected).all()
    report = (tmp_path / "directions_tiny.md").read_text()
    assert "## Goals" in report and "## gaussian, k = 3" in report
    assert not (tmp_path / "directions_tiny.partial.csv").exists()
    marked = directions.scored(np.full((4, 3), np.nan), np.eye(4), (1, 3))
    assert marked == {"k1": 1.0, "k3": 1.0, "outcome": "marked unusable"}
    assert directions.scored(None, np.eye(4), (2,)) == {"k2": 1.0, "outcome": "refused"}
    # a fresh stream draws neither the committed run's samples nor its confirmations'
    key = [10, 2000, 0]
    first = {
        directions.streamed(stream_key, stream).random()
        for stream_key, stream in [(key, 0), ([*key, 1], 0), (key, 1), ([*key, 1], 1)]
    }
    assert len(first) == 4


def test_sscm_adaptation_tiny(tmp_path):
    """Every range and AG on the same samples; the library's range is restored after each fit."""
    import dppca.releases.loading.weights as weights

    library_range = weights.ADAPTATION_RANGE
    adaptation = _load("sscm_adaptation")
    results = adaptation.main(["--tiny", "--out", str(tmp_path)])
    assert library_range == weights.ADAPTATION_RANGE
    assert adaptation.RANGES[adaptation.LIBRARY] == library_range
    per_sample = results.groupby(["data", "rep", "k"])["method"].nunique()
    assert (per_sample == len(adaptation.METHODS)).all()
    assert results["sin_theta"].between(0, 1).all()
    assert adaptation.ratio_band(1000, 5, 6.0) == "400 to 600"
    assert adaptation.ratio_band(10, 5, 6.0) == "below 50"
    report = (tmp_path / "sscm_adaptation_tiny.md").read_text()
    assert "| gaussian | 5 | 1000 | 6 | 3 |" in report


def test_sscm_weights_tiny(tmp_path):
    """Every method on the same samples; the library's rule is restored after each fit."""
    import dppca.releases.loading.sscm as sscm_release

    originals = (sscm_release.matrix_radii, sscm_release.spread_epsilon)
    weights = _load("sscm_weights")
    results = weights.main(["--tiny", "--out", str(tmp_path)])
    assert (sscm_release.matrix_radii, sscm_release.spread_epsilon) == originals
    assert set(results["method"]) == set(weights.METHODS)
    per_sample = results.groupby(["data", "rep", "k"])["method"].nunique()
    assert (per_sample == len(weights.METHODS)).all()
    assert results["sin_theta"].between(0, 1).all()
    report = (tmp_path / "sscm_weights_tiny.md").read_text()
    assert "| outliers at 60 | 5 | 2000 | 4 | 3 |" in report


def test_real_data_tiny(tmp_path):
    table = _load("real_data").main(["--tiny", "--out", str(tmp_path)])
    assert set(table["data"]) == {"1000 Genomes (Kidd)", "Adult"}
    fitted = table[table["seeds"] > 0]  # projector PCA refuses its gap guess on 400 rows
    assert fitted["sin Theta vs PCA, median"].between(0, 1).all()
    assert (fitted["sin Theta vs PCA, median"] <= fitted["sin Theta vs PCA, worst"]).all()
    assert {"AG, private clip and centre", "NSGGD, private centre"} <= set(table["method"])
    assert (tmp_path / "real_data_tiny.md").exists() and (tmp_path / "real_data_tiny.csv").exists()


def test_samplers_quick(tmp_path):
    timing, summary = _load("samplers").main(["--quick", "--out", str(tmp_path)])
    assert set(summary["sampler"]) == {"continuous", "discrete"}
    assert (timing["discrete s"] > 0).all() and (tmp_path / "samplers_quick.md").exists()


def test_utility_quick(tmp_path):
    """The quick mode (Kidd, epsilon 4, 10 seeds for the goals). Its thresholds allow for ten
    seeds: over 200 seeds the largest PVE error has median 0.039, 90th percentile 0.08 and
    maximum 0.15, and the histogram distance median 0.2 (benchmarks/results/utility.md)."""
    path = _load("utility").main(["--quick", "--out", str(tmp_path)])
    text = path.read_text()
    assert "The demo's configuration against the goals (10 seeds)" in text
    runs = pd.read_csv(tmp_path / "utility_quick.csv.gz")
    assert set(runs["score"]) == {"thresholded", "sparse"}
    assert runs["pve_error"].median() < 0.08 and runs["pve_error"].max() < 0.15
    assert runs["tv"].median() < 0.3 and runs["sin_theta"].max() < 0.5
    assert (runs["empty_groups"] == 0).all()
    # The one warning seen here: the scree note on variances that increase by more than four
    # noise sd. Its threshold leaves out the random pairs' sampling error, so on components of
    # nearly equal variance it can fire by chance (seed 2, sparse: PC4 and PC8, true variances
    # 0.35 and 0.31, released -0.62 and 1.09 with noise sd 0.30).
    texts = runs["warning_texts"].astype("string").fillna("")  # all empty reads as floats
    assert all(
        part.startswith("The non-increasing scree fit pooled")
        for text in texts
        if text
        for part in text.split(" | ")
    )
    assert (runs["warnings"] > 0).sum() <= 1
    # Tight composition against basic on the same seeds: the directions' noise sd is the
    # factor search's (deterministic), and their error follows it.
    paired = pd.read_csv(tmp_path / "utility_quick_composition.csv.gz")
    medians = paired.groupby("composition")[["kendall_sigma", "sin_theta"]].median()
    assert medians.loc["tight", "kendall_sigma"] < 0.7 * medians.loc["basic", "kendall_sigma"]
    assert medians.loc["tight", "sin_theta"] < medians.loc["basic", "sin_theta"]
    assert "## Tight against basic composition" in text


def test_head_to_head_tallies_paired_verdicts():
    """Three cells on the same samples: g-DPPCA clearly better, clearly worse, and equal up to
    symmetric noise; a rival's missing fits are left out of the pairs."""
    accuracy = _load("accuracy")
    rng = np.random.default_rng(0)
    rows = []
    for cell, offset in (("gaussian", 0.2), ("t3", -0.2), ("cauchy", 0.0)):
        for rep in range(20):
            base = rng.uniform(0.3, 0.5)
            noise = rng.choice([-0.01, 0.01]) if offset == 0.0 else 0.0
            key = {"d": 4, "n": 100, "epsilon": 1.0, "shift": 0.0, "distribution": cell}
            rows.append({**key, "rep": rep, "method": accuracy.OURS, "sin_theta": base})
            rival = base + offset + noise if rep < 18 else float("nan")
            rows.append({**key, "rep": rep, "method": "rival", "sin_theta": rival})
    table = accuracy.head_to_head(pd.DataFrame(rows)).set_index("method")
    assert table.loc["rival", "gaussian"] == "1/0/0"
    assert table.loc["rival", "t3"] == "0/0/1"
    assert table.loc["rival", "cauchy"] == "0/1/0"
    assert table.loc["rival", "all"] == "1/1/1"


def test_edges_quick(tmp_path):
    """The small tables are refused below their envelope, nothing released is ok but off, and
    the frame holds the rows wherever it is usable (moved by 1e6 too)."""
    path = _load("edges").main(["--quick", "--out", str(tmp_path)])
    runs = pd.read_csv(tmp_path / "edges_quick.csv.gz")
    assert "## Ok but off" in path.read_text()
    small = runs[runs["data"].str.startswith(("iris", "wine"))]
    assert (small["outcome"] == "refused").all()
    frames = runs[(runs["release"] == "frame") & runs["outcome"].isin(["usable", "flagged"])]
    assert len(frames) > 0 and frames["error"].min() > 0.9
    assert not (runs[runs["release"] == "frame"]["outcome"] == "ok but off").any()
    moved = runs[(runs["data"] == "Kidd + 1e6") & (runs["release"] == "frame")]
    assert (moved["outcome"] == "usable").all()


def test_coverage_quick(tmp_path):
    """The quick coverage run writes its tables; the scree's wrapped means are put back."""
    import dppca.releases.scree.clipped as scree_module

    original = scree_module.column_means
    path = _load("coverage").main(["--quick", "--out", str(tmp_path)])
    assert scree_module.column_means is original
    runs = pd.read_csv(tmp_path / "coverage_quick.csv.gz")
    assert "## Loadings of identified components" in path.read_text()
    assert runs.loc[runs["scree usable"], "scree"].mean() >= 0.9


def test_import_time_quick(tmp_path):
    table = _load("import_time").main(["--repeats", "1", "--out", str(tmp_path)])
    assert list(table["statement"])[2] == "import dppca"
    assert (table["median_s"] > 0).all() and (tmp_path / "import_time.md").exists()


def test_demo_time_quick(tmp_path):
    table = _load("demo_time").main(["--repeats", "1", "--out", str(tmp_path)])
    assert list(table["command"]) == ["dppca demo", "the release alone", "import dppca.cli"]
    assert (table["median_s"] > 0).all() and (tmp_path / "demo_time.md").exists()


def test_app_time_quick(tmp_path):
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("shiny")
    if not any(Path(folder, "chromium").exists() for folder in ("/usr/bin", "/usr/local/bin")):
        pytest.skip("Chromium is not installed (.ci/run installs it)")
    table = _load("app_time").main(["--repeats", "1", "--out", str(tmp_path)])
    assert table["step"].iloc[0] == "run: click to every panel"
    assert (table["median_s"] > 0).all() and (tmp_path / "app_time.md").exists()


def test_memory_quick(tmp_path):
    table = _load("memory").main(["--rows", "3000", "--out", str(tmp_path)])
    assert (table["peak_MiB"] > 0).all() and (tmp_path / "memory.md").exists()


def test_timing_channel_quick(tmp_path):
    timing = _load("timing_channel")
    timing.KERNELS = {"all pairs": (200, "all")}
    table = timing.main(["--repeats", "1", "--out", str(tmp_path)])
    assert set(table["data"]) == {
        "base",
        "a row at 1e50",
        "a row at 1e100",
        "a duplicate row",
        "a near duplicate",
        "a subnormal row",
    }
    assert (table["median_ms"] > 0).all() and (tmp_path / "timing_channel.md").exists()


def test_discrete_sampler_quick(tmp_path):
    tables = _load("discrete_sampler").main(
        ["--releases", "20", "--rows", "60", "--sizes", "300", "--out", str(tmp_path)]
    )
    assert set(tables["per_draw"]["sampler"]) == {"one at a time", "arrays"}
    assert (tables["share"]["share"] > 0).all() and (tmp_path / "discrete_sampler.md").exists()
