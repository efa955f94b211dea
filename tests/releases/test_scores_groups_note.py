"""The set of group labels read from the data is published: said once per call, in the
caller's terms, and not when the levels are declared."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import dppca
from dppca.cli import main

X = np.random.default_rng(0).standard_normal((3000, 3)) * [3.0, 2.0, 1.0]
LABELS = np.random.default_rng(1).choice(["north", "south"], size=3000)


def _warnings(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, dppca.PrivacyWarning)]


def _dp_pca(**keywords):
    return dppca.dp_pca(X, 4.0, 1e-6, groups=LABELS, random_state=0, **keywords)


def _dp_score(**keywords):
    return dppca.dp_score(
        X, 2.0, 1e-6, groups=LABELS, directions=np.eye(3), random_state=0, **keywords
    )


@pytest.mark.parametrize(
    ("call", "declared"),
    [
        (_dp_pca, {"score": {"group_levels": ["north", "south"]}}),
        (_dp_score, {"group_levels": ["north", "south"]}),
    ],
    ids=["dp_pca", "dp_score"],
)
def test_undeclared_levels_are_said_to_be_published_once(call, declared):
    said = [m for m in _warnings(call) if m.startswith("groups without group_levels")]
    assert len(said) == 1 and "group_levels=[...]" in said[0]
    quiet = _warnings(lambda: call(**declared))
    assert not [m for m in quiet if m.startswith("groups without")]


def test_a_categoricals_categories_are_declared_levels():
    categorical = pd.Categorical(LABELS, categories=["north", "south", "west"])
    quiet = _warnings(lambda: dppca.dp_pca(X, 4.0, 1e-6, groups=categorical, random_state=0))
    assert not [m for m in quiet if m.startswith("groups without")]


def test_the_command_line_says_it_in_its_options(tmp_path, capsys):
    table = pd.DataFrame(X, columns=["a", "b", "c"])
    table["site"] = LABELS
    table.to_csv(tmp_path / "data.csv", index=False)
    common = ["run", str(tmp_path / "data.csv"), "--epsilon", "4", "--delta", "1e-6"]
    common += ["--group", "site", "--seed", "0"]
    assert main([*common, "--out", str(tmp_path / "first")]) == 0
    err = capsys.readouterr().err
    assert err.count("--group without --group-levels") == 1
    assert "declare the public set with --group-levels A,B,..." in err
    assert main([*common, "--group-levels", "north,south", "--out", str(tmp_path / "two")]) == 0
    assert "--group without --group-levels" not in capsys.readouterr().err
