"""The private square frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dppca import Accountant, Budget, Frame, UnlocatableError, dp_frame
from dppca.exceptions import NoiseDominatedWarning
from dppca.numerics.grids import LINEAR_GRID_LIMIT
from dppca.privacy.quantiles import safe_level
from dppca.releases.frame import WINDOW_SCALES, WINDOW_SPREAD, frame_shares


def test_frame_centre_half_width_and_ledger():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((20000, 2)) * [2.0, 1.0] + [100.0, -50.0]
    frame = dp_frame(scores, 3.0, random_state=1)
    # The window about the first step has half-width 0.0046 * 100 + 8 * scale (about 2.4):
    # its step is below 0.002, so the medians are off by the rank noise (a few ranks of 20000).
    assert frame.center[0] == pytest.approx(100.0, abs=0.05)
    assert frame.center[1] == pytest.approx(-50.0, abs=0.05)
    distances = np.hypot(*(scores - frame.center).T)
    coverage = np.mean(distances <= frame.distance_quantile)
    assert frame.distance_level == 0.99
    assert 0.985 <= coverage <= 0.995
    assert frame.half_width == pytest.approx(1.2 * frame.distance_quantile, rel=1e-15)
    assert frame.xlim == (frame.center[0] - frame.half_width, frame.center[0] + frame.half_width)
    assert frame.ylim[1] - frame.ylim[0] == pytest.approx(2 * frame.half_width)
    names = [entry.name for entry in frame.privacy.entries]
    assert names == [
        "frame: scale",
        "frame: centre X1 (first step)",
        "frame: centre X1",
        "frame: centre X2 (first step)",
        "frame: centre X2",
        "frame: distance quantile",
    ]
    scale, centre_x, centre_y, distance = (3.0 * share for share in frame_shares(20000, 3.0))
    spent = [entry.epsilon for entry in frame.privacy.entries]
    assert spent[0] == pytest.approx(scale) and spent[5] == pytest.approx(distance)
    assert spent[1] + spent[2] == pytest.approx(centre_x)
    assert spent[3] + spent[4] == pytest.approx(centre_y)
    assert frame.privacy.total.isclose(Budget(3.0, 0.0))


def test_small_budget_lowers_the_distance_level_and_extrapolates():
    """At n = 2000 and epsilon 1 for the frame the 0.99 level is out of reach: the level
    follows the rule and the half-width is extrapolated as for a bivariate normal."""
    scores = pd.DataFrame(np.random.default_rng(2).standard_normal((2000, 2)), columns=["a", "b"])
    frame = dp_frame(scores, 1.0, inflate=0.0, random_state=0)
    level = safe_level(0.99, 2000, frame_shares(2000, 1.0)[3], "log")
    assert frame.distance_level == level < 0.99
    factor = np.sqrt(np.log(100) / -np.log1p(-level))
    assert frame.half_width == pytest.approx(factor * frame.distance_quantile, rel=1e-12)
    assert frame.privacy.entries[1].name == "frame: centre a (first step)"


@pytest.mark.parametrize("factor", [1e-3, 1e3])
@pytest.mark.parametrize("shift", [5.0, -1e6])
def test_frame_is_equivariant_to_the_units(factor, shift):
    """Same seed, data in other units: the same frame in those units (to 1e-9) when the
    medians lie away from 0 (the first step's run then moves along the grid with the units)."""
    scores = np.random.default_rng(3).standard_normal((3000, 2)) * [3.0, 1.0] + shift
    base = dp_frame(scores, 1.0, random_state=4)
    scaled = dp_frame(scores * factor, 1.0, random_state=4)
    assert np.allclose(scaled.center / factor, base.center, rtol=1e-9, atol=1e-9 * base.half_width)
    assert scaled.half_width / factor == pytest.approx(base.half_width, rel=1e-9)


def test_frame_near_zero_is_equivariant_in_distribution():
    """Medians near 0: the first step's run through 0 has a length that depends on the units,
    so the same seed may give another draw; over seeds the frames agree in distribution."""
    scores = np.random.default_rng(3).standard_normal((3000, 2)) * [3.0, 1.0]
    for factor in (1e-3, 1e3):
        base = [dp_frame(scores, 1.0, random_state=seed) for seed in range(20)]
        scaled = [dp_frame(scores * factor, 1.0, random_state=seed) for seed in range(20)]
        widths = [
            np.median([f.half_width / c for f in frames])
            for frames, c in ((base, 1.0), (scaled, factor))
        ]
        assert widths[1] == pytest.approx(widths[0], rel=0.05)
        for frames, c in ((base, 1.0), (scaled, factor)):
            centres = np.array([f.center / c for f in frames])
            assert np.all(np.abs(centres) < [0.75, 0.25])  # a quarter of each axis sd


@pytest.mark.parametrize("shift", [1e6, -1e6, 1e-6, 3e4])
def test_a_shifted_frame_is_the_frame_shifted_to_the_windows_resolution(shift):
    """Data moved by ``shift``: the same seed gives the frame moved by ``shift``, up to the
    refining window's resolution (a window about ``|m| = |shift|`` has step
    ``(0.0046 |m| + 8 s) / 2^14``) plus the rank noise of the two medians, and it still covers
    the data."""
    scores = np.random.default_rng(5).standard_normal((5000, 2)) * [2.0, 1.0]
    base = dp_frame(scores, 2.0, random_state=6)
    moved = dp_frame(scores + shift, 2.0, random_state=6)
    step = (WINDOW_SPREAD * abs(shift) + WINDOW_SCALES * base.scale) / LINEAR_GRID_LIMIT
    assert np.all(np.abs(moved.center - shift - base.center) <= 2 * step + 0.05)
    assert moved.half_width == pytest.approx(base.half_width, rel=0.05)
    inside = np.abs(scores + shift - moved.center).max(axis=1) <= moved.half_width
    assert inside.mean() > 0.99


def test_an_unlocatable_frame_is_refused_before_the_charge_or_released_with_a_warning():
    scores = np.random.default_rng(5).standard_normal((200, 2))
    accountant = Accountant(Budget(10.0, 1e-6))
    with pytest.raises(UnlocatableError, match=r"dp_frame cannot locate at n=200, epsilon=0.1"):
        dp_frame(scores, 0.1, random_state=0, accountant=accountant)
    assert accountant.spent == Budget(0.0, 0.0)
    with pytest.warns(NoiseDominatedWarning, match="frame: scale"):
        dp_frame(scores, 0.1, random_state=0, on_weak="release")


def test_the_refusal_names_the_smallest_budget_and_size_that_work():
    """The epsilon and n the message names are the edges: they are accepted, and 2 % less is
    refused."""
    scores = np.random.default_rng(5).standard_normal((400, 2))
    with pytest.raises(UnlocatableError) as caught:
        dp_frame(scores, 0.5, random_state=0)
    message = str(caught.value)
    epsilon = float(message.split("needs epsilon >= ")[1].split(" ")[0])
    n = int(message.split(" or n >= ")[1].split(" ")[0])
    big = np.random.default_rng(6).standard_normal((n, 2))
    dp_frame(scores, epsilon, random_state=0)
    dp_frame(big, 0.5, random_state=0)
    with pytest.raises(UnlocatableError):
        dp_frame(scores, epsilon * 0.98, random_state=0)
    with pytest.raises(UnlocatableError):
        dp_frame(big[: int(n * 0.98)], 0.5, random_state=0)


def test_a_public_frame_is_the_square_about_the_limits_at_no_cost():
    frame = Frame.public(((-2.0, 2.0), (1.0, 3.0)))
    assert frame.center.tolist() == [0.0, 2.0] and frame.half_width == 2.0
    assert frame.is_public and not frame.privacy.entries
    with pytest.raises(ValueError, match="increasing pairs"):
        Frame.public(((2.0, -2.0), (1.0, 3.0)))
    with pytest.raises(ValueError, match=r"frame must be None or limits"):
        Frame.public((1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="frame must be"):
        Frame.public(((np.nan, 2.0), (1.0, 3.0)))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scores": np.ones((10, 3))}, ValueError, "exactly 2 columns"),
        ({"scores": np.ones(10)}, ValueError, "scores must be 2-D"),
        ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
        ({"inflate": -0.1}, ValueError, "inflate must be >= 0"),
        ({"on_weak": "maybe"}, ValueError, "on_weak must be one of"),
    ],
)
def test_errors(kwargs, error, message):
    arguments = {"scores": np.ones((10, 2)), "epsilon": 1.0, **kwargs}
    with pytest.raises(error, match=message):
        dp_frame(**arguments)
