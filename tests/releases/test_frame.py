"""The private square frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dppca import Budget, dp_frame
from dppca.exceptions import NoiseDominatedWarning
from dppca.privacy.quantiles import safe_level
from dppca.releases.frame import frame_shares


def test_frame_centre_half_width_and_ledger():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((20000, 2)) * [2.0, 1.0] + [100.0, -50.0]
    frame = dp_frame(scores, 3.0, random_state=1)
    # Medians on a grid of step scale / 16 (the median pair distance is about 2.4): within a
    # step, plus the rank noise (a few ranks of 20000).
    assert frame.center[0] == pytest.approx(100.0, abs=0.2)
    assert frame.center[1] == pytest.approx(-50.0, abs=0.2)
    distances = np.hypot(*(scores - frame.center).T)
    coverage = np.mean(distances <= frame.distance_quantile)
    assert frame.distance_level == 0.99
    assert 0.985 <= coverage <= 0.995
    assert frame.half_width == pytest.approx(1.2 * frame.distance_quantile, rel=1e-15)
    assert frame.xlim == (frame.center[0] - frame.half_width, frame.center[0] + frame.half_width)
    assert frame.ylim[1] - frame.ylim[0] == pytest.approx(2 * frame.half_width)
    entries = frame.privacy.entries
    shares = frame_shares(20000, 3.0)
    assert [entry.epsilon for entry in entries] == pytest.approx([3.0 * s for s in shares])
    assert shares[3] == pytest.approx(1 - sum(shares[:3])) and shares[3] >= 0.25
    assert all(entry.delta == 0 for entry in entries)
    assert frame.privacy.total <= Budget(3.0, 0.0)
    assert frame.limits(center=True) == ((-frame.half_width, frame.half_width),) * 2


def test_small_budget_lowers_the_distance_level_and_extrapolates():
    """At n = 500 and epsilon 1 for the frame the 0.99 level is out of reach: the level
    follows the rule and the half-width is extrapolated as for a bivariate normal."""
    scores = pd.DataFrame(np.random.default_rng(2).standard_normal((500, 2)), columns=["a", "b"])
    frame = dp_frame(scores, 1.0, inflate=0.0, random_state=0)
    level = safe_level(0.99, 500, frame_shares(500, 1.0)[3], "log")
    assert frame.distance_level == level < 0.99
    factor = np.sqrt(np.log(100) / -np.log1p(-level))
    assert frame.half_width == pytest.approx(factor * frame.distance_quantile, rel=1e-12)
    assert [entry.name for entry in frame.privacy.entries[:2]] == [
        "frame: scale",
        "frame: centre a",
    ]


@pytest.mark.parametrize("factor", [1e-3, 1e3])
def test_frame_is_equivariant_to_the_units(factor):
    """Same seed, data in other units: the same frame in those units (to 1e-9)."""
    scores = np.random.default_rng(3).standard_normal((3000, 2)) * [3.0, 1.0] + [2.0, -1.0]
    base = dp_frame(scores, 1.0, random_state=4)
    scaled = dp_frame(scores * factor, 1.0, random_state=4)
    assert np.allclose(scaled.center / factor, base.center, rtol=1e-9, atol=1e-9 * base.half_width)
    assert scaled.half_width / factor == pytest.approx(base.half_width, rel=1e-9)


def test_small_budget_warns_before_the_charge():
    scores = np.random.default_rng(5).standard_normal((200, 2))
    with pytest.warns(NoiseDominatedWarning, match="frame: scale"):
        dp_frame(scores, 0.1, random_state=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scores": np.ones((10, 3))}, ValueError, "exactly 2 columns"),
        ({"scores": np.ones(10)}, ValueError, "scores must be 2-D"),
        ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
        ({"inflate": -0.1}, ValueError, "inflate must be >= 0"),
    ],
)
def test_errors(kwargs, error, message):
    arguments = {"scores": np.ones((10, 2)), "epsilon": 1.0, **kwargs}
    with pytest.raises(error, match=message):
        dp_frame(**arguments)
