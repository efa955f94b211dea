"""Refusal before the charge: what the budget cannot locate, judged from public values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dppca
from dppca import Accountant, Budget, UnlocatableError
from dppca.exceptions import NoiseDominatedWarning
from dppca.privacy.quantiles import GridQuantile, locating_reach
from dppca.privacy.requirements import Requirement, enforce, locating

X_SMALL = np.random.default_rng(0).standard_normal((178, 13))


def test_locating_is_the_rule_of_safe_level():
    """Met exactly when a median of n values at epsilon lies within the data with 99.9 %:
    ``n / 2 >= r + 1`` with ``r = 2 (ln G + ln 1000) / epsilon``."""
    for grid, points in (("log", 600001), ("signed", 1200003), ("linear", 32769)):
        reach = 2 * (math.log(points) + math.log(1000)) / 1.0
        assert locating_reach(1.0, grid) == pytest.approx(reach)
        edge = 2 * (reach + 1)
        assert locating("r", "w", math.ceil(edge), 1.0, grid, "a").met
        assert not locating("r", "w", math.floor(edge) - 1, 1.0, grid, "a").met


def test_a_release_that_cannot_be_located_is_refused_before_anything_is_spent():
    accountant = Accountant(Budget(100.0, 1e-3))
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    with pytest.raises(UnlocatableError) as caught:
        dppca.dp_pca(X_SMALL, 4.0, 1e-6, accountant=accountant, random_state=rng)
    assert accountant.spent == Budget(0.0, 0.0) and not accountant.ledger.entries
    assert rng.bit_generator.state == state  # no noise was drawn
    message = str(caught.value)
    assert message.startswith("dp_pca cannot locate at n=178, epsilon=4: score: frame (centre)")
    assert "frame=((xmin, xmax), (ymin, ymax))" in message and "on_weak='release'" in message
    assert "\n" not in message


def test_the_named_minimums_are_the_edges_of_the_plan():
    """The smallest epsilon (at this n) and n (at this epsilon) the refusal names pass the
    plan; 1 % less epsilon (the bisection's edge, within 0.1 %, rounded up to three digits)
    and 1 % fewer rows (within 0.1 %) do not."""
    with pytest.raises(UnlocatableError) as caught:
        dppca.plan_pca((178, 13), 4.0, 1e-6).enforce()
    message = str(caught.value)
    epsilon = float(message.split("needs epsilon >= ")[1].split(" ")[0])
    n = int(message.split(" or n >= ")[1].split(" ")[0])
    assert not dppca.plan_pca((178, 13), 4.0, 1e-6).unmet[0].met
    assert not dppca.plan_pca((178, 13), epsilon, 1e-6).unmet
    assert dppca.plan_pca((178, 13), epsilon / 1.01, 1e-6).unmet
    assert not dppca.plan_pca((n, 13), 4.0, 1e-6).unmet
    assert dppca.plan_pca((int(n * 0.99), 13), 4.0, 1e-6).unmet


def test_public_alternatives_remove_the_requirement():
    """Public frame limits and a public clip level need nothing located."""
    plan = dppca.plan_pca(
        (178, 13),
        4.0,
        1e-6,
        score={"frame": ((-50, 50), (-50, 50))},
        scree={"control": {"C_clip": 100.0}},
    )
    assert plan.unmet == [] and plan.budget_table()["release"][2] == "score plot: frame (public)"
    assert plan.budget_table()["epsilon"][2] == 0.0
    with pytest.raises(UnlocatableError, match=r"scale \(clip levels, means\).*scale=\[\.\.\.\]"):
        dppca.plan_pca((178, 13), 4.0, 1e-6, scale="private").enforce()


def test_release_anyway_warns_once_per_requirement_before_the_charge():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dppca.dp_pca(X_SMALL, 4.0, 1e-6, random_state=0, on_weak="release")
    texts = [str(w.message) for w in caught if issubclass(w.category, NoiseDominatedWarning)]
    assert any(text.startswith("score: frame: centre") for text in texts)
    assert any(note.startswith("score: frame: centre") for note in result.notes)


@pytest.mark.parametrize(
    "call",
    [
        lambda on_weak: dppca.dp_frame(X_SMALL[:, :2], 0.5, on_weak=on_weak, random_state=0),
        lambda on_weak: dppca.dp_score(
            X_SMALL, 1.0, 1e-6, directions=np.eye(13), on_weak=on_weak, random_state=0
        ),
        lambda on_weak: dppca.dp_scree(
            X_SMALL, 3, 0.5, 1e-6, directions=np.eye(13), on_weak=on_weak, random_state=0
        ),
        lambda on_weak: dppca.dp_scale(X_SMALL, 4.0, 1e-6, on_weak=on_weak, random_state=0),
        lambda on_weak: dppca.dp_loading(
            X_SMALL, 1.0, 1e-6, transform="winsorized", radius="auto", on_weak=on_weak
        ),
        lambda on_weak: dppca.DPPCA(2, epsilon=1.0, on_weak=on_weak, random_state=0).fit(X_SMALL),
    ],
    ids=["dp_frame", "dp_score", "dp_scree", "dp_scale", "dp_loading", "DPPCA"],
)
def test_every_entry_point_refuses_and_releases_on_request(call):
    with pytest.raises(UnlocatableError, match="cannot locate at n=178"):
        call("refuse")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert call("release") is not None
    with pytest.raises(ValueError, match=r"on_weak must be one of \['refuse', 'release'\]"):
        call("sometimes")


def test_the_search_needs_a_plan_that_grows_with_budget_and_rows():
    """``enforce`` bisects a monotone predicate: a fake plan with a known edge at
    ``n epsilon = 1000`` is refused with that edge."""

    def plan(n, epsilon):
        return [Requirement("fake", "part", n * epsilon >= 1000, "x", "weak")]

    with pytest.raises(UnlocatableError) as caught:
        enforce(plan, 100, 1.0, "refuse", "call")
    message = str(caught.value)
    epsilon = float(message.split("needs epsilon >= ")[1].split(" ")[0])
    n = int(message.split(" or n >= ")[1].split(" ")[0])
    assert epsilon == pytest.approx(10.0, abs=0.1) and n == 1000


def test_a_positive_quantile_leaves_out_the_ties_at_zero():
    """90 % of the values tied at 0: the median of all is 0 (the grid's first point), the
    positive quantile is that of the rest."""
    rng = np.random.default_rng(3)
    values = np.r_[np.zeros(9000), rng.lognormal(size=1000)]
    noise = dppca.privacy.mechanisms.Noise("continuous", np.random.default_rng(0))
    every = GridQuantile("log", 0.5, 2.0).release(values, noise)
    positive = GridQuantile("log", 0.5, 2.0, positive=True).release(values, noise)
    assert every == 1e-300
    assert positive == pytest.approx(np.median(values[9000:]), rel=0.1)
    with pytest.raises(ValueError, match="positive applies to the log grid only"):
        GridQuantile("signed", 0.5, 1.0, positive=True)
