"""The dppca command line, end to end and on every error path."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dppca.cli import main

PANELS = ["scree", "score", "loading", "variable", "biplot", "page"]


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.standard_normal((600, 4)) * [3, 2, 1, 1], columns=list("abcd"))
    table["site"] = rng.choice(["north", "south"], size=600)
    path = tmp_path / "data.csv"
    table.to_csv(path, index=False)
    return path


def test_run_writes_release_figures_and_report(csv, tmp_path, capsys):
    out = tmp_path / "result"
    code = main(
        [
            "run",
            str(csv),
            "--epsilon",
            "3",
            "--delta",
            "1e-6",
            "--bins",
            "8",
            "8",
            "--group",
            "site",
            "--seed",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    assert f"Report: {out / 'report.html'}" in capsys.readouterr().out
    for panel in PANELS:
        assert (out / f"{panel}.png").stat().st_size > 1000
        assert (out / f"{panel}.svg").exists()
    release = json.loads((out / "release.json").read_text())
    assert "nonprivate" not in release
    assert sum(entry["epsilon"] for entry in release["privacy"]) == pytest.approx(3.0)
    assert sum(entry["epsilon"] for entry in release["privacy"]) <= 3.0
    assert release["feature_names"] == ["a", "b", "c", "d"]
    assert {group["label"] for group in release["groups"]} == {"north", "south"}
    report = (out / "report.html").read_text()
    assert "data:image/png;base64," in report and "What the guarantee means" in report
    assert "Kim, M. and Jung, S. (2025)" in report and "NOT differentially private" not in report
    assert not (out / "nonprivate_reference.json").exists()


def test_run_with_reference_columns_and_split(csv, tmp_path):
    out = tmp_path / "with-reference"
    code = main(
        [
            "run",
            str(csv),
            "--epsilon",
            "2",
            "--delta",
            "1e-6",
            "--columns",
            "a",
            "b",
            "c",
            "--split",
            "0.5",
            "0.25",
            "0.25",
            "--k",
            "3",
            "--score",
            "add",
            "--bins",
            "6",
            "6",
            "--nonprivate-reference",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    assert "nonprivate" not in json.loads((out / "release.json").read_text())
    reference = json.loads((out / "nonprivate_reference.json").read_text())
    assert "NOT differentially private" in reference["nonprivate"]["warning"]
    assert (out / "page_nonprivate.png").exists()
    assert "NOT differentially private" in (out / "report.html").read_text()
    assert json.loads((out / "release.json").read_text())["budgets"]["loading"][0] == 1.0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "missing.csv", "--epsilon", "1", "--delta", "1e-6"], "data file not found"),
        (["run", "{csv}", "--epsilon", "-1", "--delta", "1e-6"], "epsilon must be > 0"),
        (["run", "{csv}", "--epsilon", "abc", "--delta", "1e-6"], "invalid float value"),
        (["run", "{csv}", "--epsilon", "1", "--delta", "2"], "delta must be < 1"),
        (["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--colour", "x"], "unrecognized"),
        (["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--columns", "zz"], "not in"),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--split", "1", "1", "1"],
            "sum to 1",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scree", "median"],
            "scree must be one of",
        ),
        (["run", "{text}", "--epsilon", "1", "--delta", "1e-6"], "not numeric: 'site'"),
        (["run", "{nan}", "--epsilon", "1", "--delta", "1e-6"], "finite values"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_errors_are_one_line_with_exit_code_2_and_no_output(
    csv, tmp_path, capsys, arguments, message
):
    table = pd.read_csv(csv)
    numeric, text, nan = tmp_path / "numeric.csv", tmp_path / "text.csv", tmp_path / "nan.csv"
    table.drop(columns="site").to_csv(numeric, index=False)
    table.to_csv(text, index=False)
    table.drop(columns="site").assign(a=lambda t: t["a"].where(t.index != 3)).to_csv(
        nan, index=False
    )
    arguments = [a.format(csv=numeric, text=text, nan=nan) for a in arguments]
    out = tmp_path / "never"
    if arguments[0] == "run":
        arguments += ["--out", str(out), "--quiet"]
    code = main(arguments)
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dppca: error:") and message in lines[0]
    assert "Traceback" not in captured.err
    assert not out.exists()
    assert not list(tmp_path.glob(".dppca-*"))


def test_datasets_and_module_entry_point():
    completed = subprocess.run(
        [sys.executable, "-m", "dppca", "datasets"], capture_output=True, text=True, check=True
    )
    for name in ["1kg-kidd", "1kg-seldin", "adult", "gau_g"]:
        assert name in completed.stdout


def test_demo(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--seed", "0", "--quiet"]) == 0
    assert (out / "report.html").exists() and (out / "page_nonprivate.png").exists()
    release = json.loads((out / "release.json").read_text())
    assert release["n_samples"] == 2504 and len(release["groups"]) == 5
    assert "Report:" in capsys.readouterr().out
