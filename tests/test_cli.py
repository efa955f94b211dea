"""The dppca command line, end to end and on every error path."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dppca.cli import main

PANELS = ["scree", "score", "loading", "variable", "biplot", "page"]


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.standard_normal((2400, 4)) * [3, 2, 1, 1], columns=list("abcd"))
    table["site"] = rng.choice(["north", "south"], size=2400)
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
    assert "non_private" not in release
    assert release["composition"]["rule"] == "tight"  # the parts' own guarantees compose
    assert release["privacy_total"][0] == 3.0 and release["privacy_total"][1] <= 1e-6
    assert sum(entry["epsilon"] for entry in release["privacy"]) > 3.0
    assert release["feature_names"] == ["a", "b", "c", "d"]
    assert {group["label"] for group in release["groups"]} == {"north", "south"}
    report = (out / "report.html").read_text()
    assert "data:image/png;base64," in report and "What the guarantee means" in report
    assert "Kim, M. and Jung, S. (2025)" in report and "NOT differentially private" not in report
    assert not (out / "non_private").exists()


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
            "--non-private-reference",
            str(tmp_path / "reference"),
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    assert "non_private" not in json.loads((out / "release.json").read_text())
    folder = tmp_path / "reference"
    reference = json.loads((folder / "reference.json").read_text())
    assert "NOT differentially private" in reference["non_private"]["warning"]
    assert (folder / "page.png").stat().st_size > 1000
    assert "NOT differentially private" in (folder / "report.html").read_text()
    # The folder a user publishes holds nothing of the reference.
    report = (out / "report.html").read_text()
    assert "NOT differentially private" not in report and "non_private" not in report
    assert not any("non_private" in p.name or "reference" in p.name for p in out.iterdir())
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
        (["run", "{text}", "--epsilon", "1", "--delta", "1e-6"], "column 'site' is not numeric"),
        (["run", "{nan}", "--epsilon", "1", "--delta", "1e-6"], "column 'a' has missing"),
        (["run", "{indexed}", "--epsilon", "1", "--delta", "1e-6"], "--index-col 0"),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--index-col", "zz"],
            "--index-col zz is not a column",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scree-control", "a"],
            "--scree-control takes KEY=VALUE",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scree-control", "zz=1"],
            "Unknown --scree-control parameter(s)",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scree", "pmwm"],
            "for example --scree-control a=0.0 --scree-control b=10.0",
        ),
        (
            [
                "run",
                "{csv}",
                "--epsilon",
                "1",
                "--delta",
                "1e-6",
                "--scree-control",
                "C_clip=5",
                "--scree-control",
                "C_clip=6",
            ],
            "--scree-control sets C_clip twice",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scale", "robust"],
            "--scale must be 'private', 'none' or comma-separated numbers",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--scale", "1,2"],
            "4 positive numbers",
        ),
        (["frobnicate"], "invalid choice"),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--axes", "1", "1"],
            "axes must be two different PC numbers",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--axes", "1", "9"],
            "axes must be PC numbers from 1 to k=4",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--sampler", "fast"],
            "sampler must be one of",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--score", "pie"],
            "score must be one of",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--composition", "best"],
            "composition must be one of",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--bins", "0", "5"],
            "bins",
        ),
        (
            ["run", "{csv}", "--epsilon", "1", "--delta", "1e-6", "--group-levels", "a,b"],
            "--group-levels needs --group",
        ),
    ],
)
def test_errors_are_one_line_with_exit_code_2_and_no_output(
    csv, tmp_path, capsys, arguments, message
):
    table = pd.read_csv(csv)
    numeric, text, nan = tmp_path / "numeric.csv", tmp_path / "text.csv", tmp_path / "nan.csv"
    indexed = tmp_path / "indexed.csv"
    table.drop(columns="site").to_csv(numeric, index=False)
    table.drop(columns="site").to_csv(indexed)  # pandas writes its row index as a column
    table.to_csv(text, index=False)
    table.drop(columns="site").assign(a=lambda t: t["a"].where(t.index != 3)).to_csv(
        nan, index=False
    )
    arguments = [a.format(csv=numeric, text=text, nan=nan, indexed=indexed) for a in arguments]
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
    assert (out / "report.html").exists()
    assert (tmp_path / "demo-non-private" / "page.png").exists()
    release = json.loads((out / "release.json").read_text())
    assert release["n_samples"] == 2504 and len(release["groups"]) == 5
    assert "Report:" in capsys.readouterr().out
    assert main(["demo", "--out", str(out), "--seed", "0", "--quiet"]) == 2  # used folders
    assert "--overwrite" in capsys.readouterr().err
    assert main(["demo", "--out", str(out), "--seed", "1", "--quiet", "--overwrite"]) == 0
    assert json.loads((out / "release.json").read_text()) != release


def _run(csv, out, *extra):
    """A run with a fixed seed (an explicit ``--seed`` in ``extra`` wins)."""
    arguments = ["run", str(csv), "--seed", "0", "--epsilon", "2", "--delta", "1e-6"]
    arguments += ["--group", "site"]
    return main([*arguments, *extra, "--out", str(out), "--quiet"])


def test_a_used_folder_needs_overwrite_and_then_keeps_nothing_of_the_earlier_run(
    csv, tmp_path, capsys
):
    out = tmp_path / "result"
    assert _run(csv, out, "--seed", "1") == 0
    (out / "notes.txt").write_text("the user's own file")
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    capsys.readouterr()
    assert _run(csv, out) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "not empty" in error[0] and "--overwrite" in error[0]
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before  # untouched
    assert _run(csv, out, "--overwrite") == 0
    assert not (out / "notes.txt").exists()
    assert (out / "release.json").exists()
    assert not list(tmp_path.glob(".dppca-*"))


def test_overwrite_replaces_only_folders_dppca_wrote(csv, tmp_path, capsys, monkeypatch):
    """--overwrite never deletes a folder an earlier run did not write: not a user's folder,
    not the current folder, not the folder holding the input."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    assert _run(csv, mine, "--overwrite") == 2
    assert "not written by dppca" in capsys.readouterr().err
    assert (mine / "thesis.tex").read_text() == "years of work"
    monkeypatch.chdir(mine)
    assert _run(csv, ".", "--overwrite") == 2
    assert "current or the home folder" in capsys.readouterr().err
    assert _run(csv, csv.parent, "--overwrite") == 2  # the folder of the input
    assert "holds the input file" in capsys.readouterr().err
    assert csv.exists() and (mine / "thesis.tex").exists()


def test_the_reference_must_live_outside_the_published_folder(csv, tmp_path, capsys):
    out = tmp_path / "result"
    assert _run(csv, out, "--non-private-reference", str(out / "inside")) == 2
    assert "outside --out" in capsys.readouterr().err
    assert not out.exists()


def test_declared_group_levels_are_all_released(csv, tmp_path):
    out = tmp_path / "levels"
    assert _run(csv, out, "--group-levels", "east,north,south,west") == 0
    release = json.loads((out / "release.json").read_text())
    assert [group["label"] for group in release["groups"]] == ["east", "north", "south", "west"]


def test_an_empty_folder_may_be_used(csv, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    assert _run(csv, out) == 0 and (out / "report.html").exists()


def test_a_failed_run_leaves_no_folder_and_keeps_an_earlier_one(csv, tmp_path):
    out = tmp_path / "new"
    assert _run(csv, out, "--k", "99") == 2
    assert not out.exists() and not list(tmp_path.glob(".dppca-*"))
    kept = tmp_path / "kept"
    assert _run(csv, kept) == 0
    release = (kept / "release.json").read_text()
    assert _run(csv, kept, "--overwrite", "--k", "99") == 2
    assert (kept / "release.json").read_text() == release


def _unwritable(tmp_path):
    """A folder this process cannot create: inside a read-only folder, or, for root (who may
    write anywhere), under /sys."""
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if not os.access(locked, os.W_OK):
        return locked / "out"
    try:
        (Path("/sys") / "dppca-probe").mkdir()
    except OSError:
        return Path("/sys") / "dppca-out"
    pytest.skip("no folder here is unwritable for this user")


def test_an_unwritable_folder_gives_one_line_and_exit_2(csv, tmp_path, capsys):
    assert _run(csv, _unwritable(tmp_path)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dppca: error: cannot write the output")
    assert "Traceback" not in captured.err


def test_an_output_path_that_cannot_be_a_folder_gives_one_line_and_exit_2(csv, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert _run(csv, blocker / "out") == 2  # a folder inside a regular file
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dppca: error:")


def test_seeded_figures_do_not_replay_the_noise(csv, tmp_path, monkeypatch):
    """With --seed, the noise and the figures' synthetic points use independent streams."""
    import dppca.job
    import dppca.report

    seen = {}
    original_pca, original_figures = dppca.job.dp_pca, dppca.report.write_figures

    def spy_pca(*args, random_state=None, **kwargs):
        seen["noise"] = random_state
        return original_pca(*args, random_state=random_state, **kwargs)

    def spy_figures(result, folder, *, random_state, **kwargs):
        seen["figures"] = random_state
        return original_figures(result, folder, random_state=random_state, **kwargs)

    monkeypatch.setattr(dppca.job, "dp_pca", spy_pca)
    monkeypatch.setattr(dppca.report, "write_figures", spy_figures)
    assert _run(csv, tmp_path / "a", "--seed", "7") == 0
    noise = np.random.default_rng(seen["noise"]).random(1000)
    figures = seen["figures"].random(1000)
    assert not np.isin(figures, noise).any()
    assert not np.isin(figures, np.random.default_rng(7).random(1000)).any()


def test_version_and_help_name_every_option_with_an_example(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    from dppca import __version__

    assert capsys.readouterr().out.strip() == f"dppca {__version__}"
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "dppca run data.csv --epsilon 4" in text
    import argparse

    from dppca.cli_options import parser

    run = next(
        action.choices["run"]
        for action in parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    assert all(action.help for action in run._actions), "every option has help text"


def test_separator_index_column_scale_and_scree_control(tmp_path):
    """A tab-separated file saved with its pandas index, read with --sep and --index-col, with
    private scaling and a scree setting: the index is not a variable, the scales and the
    setting are in the release, and the ledger charges the scale."""
    rng = np.random.default_rng(1)
    table = pd.DataFrame(rng.standard_normal((4000, 3)) * [1.0, 1e3, 1e-3], columns=list("xyz"))
    path = tmp_path / "data.tsv"
    table.to_csv(path, sep="\t")
    out = tmp_path / "out"
    arguments = ["run", str(path), "--epsilon", "8", "--delta", "1e-8", "--seed", "0"]
    arguments += ["--sep", "\\t", "--index-col", "0", "--scale", "private"]
    arguments += ["--scree-control", "clip_level=0.8", "--out", str(out), "--quiet"]
    assert main(arguments) == 0
    release = json.loads((out / "release.json").read_text())
    assert release["feature_names"] == ["x", "y", "z"]
    scales = np.array(release["scales"])
    assert scales / [1.0, 1e3, 1e-3] == pytest.approx(1.0, rel=0.15)
    assert release["settings"]["scree_control"]["clip_level"] == 0.8
    charged = sum(e["epsilon"] for e in release["privacy"] if e["component"] == "scale")
    assert charged > 0.8  # a tenth of the total, times the tight composition's factor
    public = tmp_path / "public"
    arguments[arguments.index("private")] = "1,1000,0.001"
    arguments[arguments.index(str(out))] = str(public)
    assert main(arguments) == 0
    assert json.loads((public / "release.json").read_text())["scales"] == [1.0, 1000.0, 0.001]


def test_numeric_group_labels_print_as_labels(tmp_path):
    rng = np.random.default_rng(2)
    table = pd.DataFrame(rng.standard_normal((800, 3)) * [3, 2, 1], columns=list("abc"))
    table["sex"] = rng.choice([0.05068011873981862, -0.044641636506989], 800)
    path = tmp_path / "data.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "out"
    arguments = ["run", str(path), "--epsilon", "4", "--delta", "1e-7", "--group", "sex"]
    assert main([*arguments, "--seed", "0", "--out", str(out), "--quiet"]) == 0
    report = (out / "report.html").read_text()
    assert "group labels (public): -0.04464, 0.05068" in report
    assert "np.str_" not in report


def test_axes_sampler_and_k_end_to_end(csv, tmp_path):
    out = tmp_path / "out"
    code = _run(csv, out, "--axes", "1", "3", "--sampler", "continuous", "--k", "3")
    assert code == 0
    release = json.loads((out / "release.json").read_text())
    assert release["axes"] == [1, 3] and release["k"] == 3
    assert release["settings"]["sampler"] == "continuous"
    assert all("discrete" not in entry["mechanism"] for entry in release["privacy"])


def test_a_tab_separated_file_without_sep_gets_a_hint(tmp_path, capsys):
    table = pd.DataFrame(np.random.default_rng(0).standard_normal((50, 3)), columns=list("abc"))
    path = tmp_path / "data.tsv"
    table.to_csv(path, sep="\t", index=False)
    out = tmp_path / "out"
    assert main(["run", str(path), "--epsilon", "1", "--delta", "1e-6", "--out", str(out)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "looks separated by 'tab'; pass --sep 'tab'" in error[0]


def test_more_options_end_to_end(csv, tmp_path):
    """pmwm with its settings, the sparse histogram, --scale none, an index column by name,
    a split with private scaling (the scale takes a tenth first), an explicit discrete
    sampler."""
    table = pd.read_csv(csv).rename_axis("person").reset_index()
    named = tmp_path / "named.csv"
    table.to_csv(named, index=False)
    out = tmp_path / "pmwm"
    settings = ["--scree-control", "a=0", "--scree-control", "b=40"]
    settings += ["--scree-control", "trim_const=10", "--scree-control", "eta=0.01"]
    arguments = ["--scree", "pmwm", *settings, "--score", "sparse", "--scale", "none"]
    arguments += ["--index-col", "person", "--sampler", "discrete"]
    assert _run(named, out, *arguments) == 0
    release = json.loads((out / "release.json").read_text())
    assert release["feature_names"] == ["a", "b", "c", "d"] and release["scales"] is None
    assert release["settings"]["scree_method"] == "pmwm"
    assert release["settings"]["scree_control"]["b"] == 40
    assert release["settings"]["score_method"] == "sparse"
    assert release["settings"]["sampler"] == "discrete"
    split = tmp_path / "split"
    arguments = ["--scale", "private", "--split", "0.5", "0.25", "0.25", "--composition", "basic"]
    arguments += ["--on-weak", "release"]  # 2400 rows cannot locate private scales at epsilon 2
    assert _run(csv, split, *arguments) == 0
    assert json.loads((split / "release.json").read_text())["composition"]["rule"] == "basic"
    budgets = json.loads((split / "release.json").read_text())["budgets"]
    assert budgets["scale"][0] == pytest.approx(0.2) and budgets["loading"][0] == pytest.approx(0.9)


def test_several_methods_from_the_command_line(csv, tmp_path, capsys):
    out = tmp_path / "compared"
    settings = ["--scree-control", "pmwm.a=0", "--scree-control", "pmwm.b=40"]
    settings += ["--scree-control", "pmwm.trim_const=10", "--scree-control", "pmwm.eta=0.01"]
    arguments = ["--scree", "clipped,pmwm", *settings, "--score", "thresholded,add"]
    assert _run(csv, out, *arguments) == 0
    release = json.loads((out / "release.json").read_text())
    assert release["settings"]["scree_method"] == "clipped"
    assert release["settings"]["compared_scree"]["pmwm"]["control"]["b"] == 40
    assert set(release["compared"]["scree"]) == {"pmwm"}
    assert set(release["compared"]["histograms"]) == {"add"}
    assert (out / "histograms.png").exists() and (out / "histograms.svg").exists()
    capsys.readouterr()
    plain = ["--scree", "clipped,pmwm", "--scree-control", "b=40"]
    assert _run(csv, tmp_path / "refused", *plain) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert "with several --scree methods, --scree-control takes METHOD.KEY=VALUE" in error[0]
    assert _run(csv, tmp_path / "missing", "--scree", "clipped,pmwm") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert "for example --scree-control pmwm.a=0.0 --scree-control pmwm.b=10.0" in error[0]
    spaced = ["--scree", "clipped,huber", "--scree-control", " huber . T = 0"]
    assert _run(csv, tmp_path / "spaced", *spaced) == 2  # read as huber.T=0, then refused
    assert "T must be an integer >= 1; got 0." in capsys.readouterr().err


# Each refused option is named in the one-line message, with its rule and the value given.


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--scree", "huber", "--scree-control", "m2_frac=2"], "--scree-control m2_frac must be"),
        (
            ["--scree", "huber", "--scree-control", "T=0"],
            "--scree-control T must be an integer >= 1; got 0.",
        ),
        (
            ["--scree-control", "clip_level=abc"],
            "--scree-control clip_level must be a real number; got 'abc'",
        ),
        (["--scree-control", "clip_level=1.5"], "--scree-control clip_level must be"),
        (["--scree-control", "m2_frac=2"], "Unknown --scree-control parameter(s) ['m2_frac']"),
        (["--k", "9"], "--k must be an integer in [2, p=4]; got 9."),
        (["--k", "1"], "--k must be an integer in [2, p=4]; got 1."),
        (["--axes", "1", "9"], "--axes must be PC numbers from 1 to k=4; got (1, 9)."),
        (["--k", "3", "--axes", "1", "4"], "--axes must be PC numbers from 1 to k=3; got (1, 4)."),
        (
            ["--scale", "1,2"],
            "--scale must be 'private', 'none' or 4 positive numbers, one per variable "
            "(a, b, c, d); got 2",
        ),
        (["--scale", "1,2,3,-1"], "--scale must be > 0; got -1.0."),
        (["--bins", "0", "5"], "--bins must be an integer >= 1; got 0."),
        (["--split", "0.5", "0.5", "0.5"], "--split shares must be positive and sum to 1"),
        (["--sep", "tab"], "which looks separated by ','; pass --sep ','"),
    ],
)
def test_an_option_error_names_the_option(csv, tmp_path, capsys, options, message):
    numeric = tmp_path / "numeric.csv"
    pd.read_csv(csv).drop(columns="site").to_csv(numeric, index=False)
    out = tmp_path / "never"
    arguments = ["run", str(numeric), "--epsilon", "1", "--delta", "1e-6", *options]
    code = main([*arguments, "--out", str(out), "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("dppca: error: ") and message in lines[0], lines[0]
    assert not out.exists() and not list(tmp_path.glob(".dppca-*"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--group", "zz"], "--group zz is not a column of "),
        (["--group", "Site"], "; did you mean 'site'?"),
        (["--group", "site", "--columns", "a", "bb"], "column(s) not in "),
        (["--group", "site", "--columns", "a", "bb"], "bb; did you mean 'b'?"),
        (
            ["--group", "site", "--group-levels", "north"],
            "--group-levels must list every label of --group site; missing south",
        ),
        (
            ["--group", "site", "--group-levels", "north, east"],
            "--group-levels must list every label of --group site; missing south",
        ),
        (
            ["--group", "site", "--columns", "a", "b", "--scale", "1,2,3"],
            "--scale must be 'private', 'none' or 2 positive numbers, one per variable (a, b); "
            "got 3",
        ),
    ],
)
def test_group_and_column_errors_name_the_option(csv, tmp_path, capsys, options, message):
    out = tmp_path / "never"
    arguments = ["run", str(csv), "--epsilon", "1", "--delta", "1e-6", *options]
    code = main([*arguments, "--out", str(out), "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("dppca: error: ") and message in lines[0], lines[0]
    assert not out.exists() and not list(tmp_path.glob(".dppca-*"))


def test_a_refusal_of_the_clip_level_names_the_option_for_one_or_several_methods():
    from dppca import UnlocatableError
    from dppca.cli_options import in_option_terms
    from dppca.planning import plan_pca

    with pytest.raises(UnlocatableError) as caught:
        plan_pca((150, 4), 1.0, 1e-6, scree=("clipped", "huber")).enforce("refuse", "dp_pca")
    message = in_option_terms(str(caught.value))
    assert "scree (clipped) (clip level) needs epsilon" in message
    assert "(--scree-control C_clip=..., or clipped.C_clip=... with several --scree" in message
    assert "scree_control" not in message and "control)" not in message


def test_a_run_the_budget_cannot_locate_is_refused_in_one_line_before_anything_is_written(
    csv, tmp_path, capsys
):
    out = tmp_path / "weak"
    assert _run(csv, out, "--epsilon", "0.3") == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0 and message.startswith("dppca: error: dp_pca cannot locate")
    assert "--on-weak release" in message and "--frame XMIN XMAX YMIN YMAX" in message
    assert "on_weak=" not in message and not out.exists()
    assert _run(csv, out, "--epsilon", "0.3", "--on-weak", "release") == 0
    notes = json.loads((out / "release.json").read_text())["notes"]
    assert any("dominated by noise" in note for note in notes)


def test_public_frame_limits_spend_the_score_budget_on_the_histogram(csv, tmp_path):
    out = tmp_path / "framed"
    assert _run(csv, out, "--frame", "-10", "10", "-6", "6") == 0
    release = json.loads((out / "release.json").read_text())
    assert release["frame"]["center"] == [0.0, 0.0] and release["frame"]["half_width"] == 10.0
    assert release["status"]["frame"] == {"state": "ok", "reason": "public limits", "usable": True}
    assert not [entry for entry in release["privacy"] if "frame" in entry["name"]]
    assert _run(csv, tmp_path / "bad", "--frame", "1", "-1", "0", "1") == 2


def test_decimal_commas_are_read_with_the_option_and_named_without_it(tmp_path, capsys):
    rng = np.random.default_rng(3)
    table = pd.DataFrame(rng.standard_normal((2400, 3)) * [3, 2, 1], columns=list("abc"))
    path = tmp_path / "comma.csv"
    table.to_csv(path, sep=";", decimal=",", index=False)
    arguments = ["run", str(path), "--epsilon", "4", "--delta", "1e-7", "--sep", ";"]
    assert main([*arguments, "--out", str(tmp_path / "a"), "--quiet"]) == 2
    assert "pass --decimal , if it has decimal commas" in capsys.readouterr().err
    assert main([*arguments, "--decimal", ",", "--out", str(tmp_path / "b"), "--quiet"]) == 0
    release = json.loads((tmp_path / "b" / "release.json").read_text())
    assert release["feature_names"] == ["a", "b", "c"]


def test_an_unreliable_private_scale_stops_the_run_in_one_line_with_the_released_scales(
    tmp_path, capsys
):
    rng = np.random.default_rng(5)
    table = pd.DataFrame(rng.standard_normal((20000, 2)) * [1.0, 100.0], columns=["a", "b"])
    table["c"] = 0.0  # every pair tied: its scale cannot be told
    csv = tmp_path / "tied.csv"
    table.to_csv(csv, index=False)
    out = tmp_path / "tied"
    arguments = ["run", str(csv), "--seed", "0", "--epsilon", "4", "--delta", "1e-6"]
    assert main([*arguments, "--scale", "private", "--out", str(out), "--quiet"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0 and "scale of c is unreliable" in message
    assert "--on-weak release" in message and "--scale s1,s2,..." in message
    assert "c=nan" in message and 50 < float(message.split("b=")[1].split(",")[0]) < 200
    assert not out.exists()


def test_the_directions_statistic_is_an_option(csv, tmp_path, capsys):
    assert _run(csv, tmp_path / "sscm", "--epsilon", "4", "--statistic", "sscm") == 0
    release = json.loads((tmp_path / "sscm" / "release.json").read_text())
    assert release["settings"]["loading"]["statistic"] == "sscm"
    assert release["settings"]["call"]["loading"]["statistic"] == "sscm"
    assert _run(csv, tmp_path / "auto", "--epsilon", "4", "--statistic", "auto") == 0
    chosen = json.loads((tmp_path / "auto" / "release.json").read_text())["settings"]
    assert chosen["loading"]["statistic"] == "sscm"  # n epsilon 2400 x 4/3 for the directions
    assert chosen["call"]["loading"]["statistic"] == "sscm"  # as resolved: a rerun repeats it
    capsys.readouterr()
    assert _run(csv, tmp_path / "wrong", "--statistic", "tyler") == 2
    assert "--statistic" in capsys.readouterr().err


def test_a_public_centre_is_an_option(csv, tmp_path, capsys):
    given = ("--statistic", "sscm", "--center", "0,0,0,0")
    assert _run(csv, tmp_path / "centre", "--epsilon", "4", *given) == 0
    loading = json.loads((tmp_path / "centre" / "release.json").read_text())["settings"]["loading"]
    assert loading["centre_given"] and loading["centre"] == [0.0] * 4
    capsys.readouterr()
    for wrong, message in [
        ("0,0,0", "--center must have one value per variable (4); got 3."),
        ("0,x", "--center must be comma-separated numbers, one per variable; got '0,x'"),
    ]:
        assert _run(csv, tmp_path / "wrong", "--statistic", "sscm", "--center", wrong) == 2
        assert message in capsys.readouterr().err


def test_parquet_files_and_folders_are_read_in_memory(csv, tmp_path):
    """Parquet input without Dask (the ``parquet`` extra's engine): a file and a folder of
    files give the release of the same table read from CSV."""
    pytest.importorskip("pyarrow")
    table = pd.read_csv(csv)
    single = tmp_path / "data.parquet"
    table.to_parquet(single, index=False)
    folder = tmp_path / "parts"
    folder.mkdir()
    for part, rows in enumerate(np.array_split(np.arange(len(table)), 3)):
        table.iloc[rows].to_parquet(folder / f"part{part}.parquet", index=False)
    released = {}
    for name, data in (("csv", csv), ("file", single), ("folder", folder)):
        assert _run(data, tmp_path / name, "--epsilon", "4", "--seed", "1") == 0
        release = json.loads((tmp_path / name / "release.json").read_text())
        released[name] = release["directions"]
    assert released["file"] == released["csv"] == released["folder"]


def test_parquet_without_an_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    assert _run(tmp_path / "data.parquet", tmp_path / "out", "--epsilon", "4") == 2
    assert "pip install 'dppca[parquet]'" in capsys.readouterr().err


def test_the_report_gets_the_umasks_permissions_and_the_reference_stays_private(csv, tmp_path):
    old = os.umask(0o022)
    try:
        extra = ("--epsilon", "4", "--non-private-reference", str(tmp_path / "reference"))
        assert _run(csv, tmp_path / "report", *extra) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "report").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "reference").stat().st_mode) == 0o700


def test_a_centre_given_with_the_kendall_matrix_is_refused_in_option_terms(csv, tmp_path, capsys):
    assert _run(csv, tmp_path / "out", "--epsilon", "4", "--center", "0,0,0,0") == 2
    assert "--center applies to --statistic sscm (or auto)" in capsys.readouterr().err
