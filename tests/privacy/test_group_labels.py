"""Group labels: the set of labels is public, which row has which label is not.

Groups are ordered by label (the first row's label must not show), and no exact group count
leaves the library: sizes, mixture weights and synthetic sample sizes come from the noisy counts.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import dppca
from dppca.report import write_figures, write_report


def _data(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["north", "south", "west"], size=n, p=[0.5, 0.3, 0.2])
    centres = {"north": [0, 0, 0], "south": [6, 0, 0], "west": [0, 6, 0]}
    X = np.array([centres[g] for g in labels]) + rng.standard_normal((n, 3))
    return X, labels


def _release(X, labels, seed):
    return dppca.dp_pca(X, 3.0, 1e-6, groups=labels, random_state=seed, score={"bins": 6}).to_dict()


def test_changing_row_0s_label_changes_nothing_but_noisy_values():
    X, labels = _data()
    changed = labels.copy()
    changed[0] = "west" if labels[0] != "west" else "north"
    first, second = _release(X, labels, 3), _release(X, changed, 3)
    assert [g["label"] for g in first["groups"]] == ["north", "south", "west"]
    assert [g["label"] for g in second["groups"]] == ["north", "south", "west"]
    # Everything that does not involve labels is identical; the group histograms and the size
    # estimates are the only values that move (the counts of two groups moved by one, plus the
    # same noise).
    for key in ("directions", "scree", "pve", "frame", "privacy", "budgets", "feature_names"):
        assert first[key] == second[key], key
    assert first["settings"] == second["settings"]


def test_order_does_not_follow_first_appearance():
    X, labels = _data()
    for first_row in ("north", "south", "west"):
        row = int(np.flatnonzero(labels == first_row)[0])
        order = np.r_[row, np.delete(np.arange(len(labels)), row)]
        release = _release(X[order], labels[order], 1)
        assert [g["label"] for g in release["groups"]] == ["north", "south", "west"]


def test_group_sizes_are_noisy_estimates_not_exact_counts(tmp_path):
    X, labels = _data()
    exact = {g: int(np.sum(labels == g)) for g in ("north", "south", "west")}
    estimates = [
        {g["label"]: g["estimated_size"] for g in _release(X, labels, seed)["groups"]}
        for seed in range(6)
    ]
    for level, size in exact.items():
        seen = {estimate[level] for estimate in estimates}
        assert len(seen) > 1, f"{level}: the same size under every seed: {seen}"
        # Coarse (the sparse histogram drops cells below its threshold, sometimes all of a small
        # group's) but centred on the truth.
        assert abs(np.median([estimate[level] for estimate in estimates]) - size) < 0.3 * size
        assert all(sum(estimate.values()) == len(labels) for estimate in estimates)
    # The report and the synthetic points follow the estimates; no exact count is written.
    result = dppca.dp_pca(X, 3.0, 1e-6, groups=labels, random_state=0, score={"bins": 6})
    points = dppca.sample_scores(result, random_state=0)
    assert points["group"].value_counts().to_dict() == result.group_sizes
    images = write_figures(result, tmp_path, random_state=0)
    text = re.sub(
        r"<img[^>]*>", "", write_report(result, tmp_path, images, title="t", source="s").read_text()
    )
    for size in exact.values():
        if size not in result.group_sizes.values():
            assert not re.search(rf"\b{size}\b", text)
    assert "which person has which label is protected" in text.lower()
    assert "exact" not in json.dumps(result.to_dict())


def test_declared_levels_hide_whether_a_label_occurs():
    """With the set of labels declared, a data set whose only 'west' row is relabelled
    releases the same groups: whether a label occurs stays private."""
    import pandas as pd

    X, labels = _data()
    only = labels.copy()
    only[only == "west"] = "south"
    only[0] = "west"  # exactly one row carries the label
    neighbour = only.copy()
    neighbour[0] = "south"
    levels = ["north", "south", "west"]
    for groups, extra in [
        (only, {"group_levels": levels}),
        (pd.Categorical(only, categories=levels), {}),
    ]:
        other = neighbour if extra else pd.Categorical(neighbour, categories=levels)
        score = {"bins": 6, **extra}
        first = dppca.dp_pca(X, 3.0, 1e-6, groups=groups, random_state=0, score=score)
        second = dppca.dp_pca(X, 3.0, 1e-6, groups=other, random_state=0, score=score)
        assert list(first.groups) == list(second.groups) == levels
        assert str(first) == str(second)


def test_labels_outside_the_declared_levels_are_refused_before_the_charge():
    X, labels = _data()
    accountant = dppca.Accountant(dppca.Budget(10.0, 1e-3))
    with pytest.raises(ValueError, match="declared levels"):
        dppca.dp_pca(
            X,
            3.0,
            1e-6,
            groups=labels,
            accountant=accountant,
            score={"group_levels": ["north", "south"]},
        )
    with pytest.raises(ValueError, match="repeat"):
        dppca.dp_pca(
            X, 3.0, 1e-6, groups=labels, score={"group_levels": ["north", "north", "west"]}
        )
    with pytest.raises(ValueError, match="group_levels applies when groups are given"):
        dppca.dp_pca(X, 3.0, 1e-6, score={"group_levels": ["north"]})
    assert accountant.spent == dppca.Budget(0.0, 0.0)
