"""The private square frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dppca import Budget, dp_frame


def test_frame_centre_radius_and_ledger():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((20000, 2)) * [2.0, 1.0] + [100.0, -50.0]
    frame = dp_frame(scores, 3.0, random_state=1)
    # Medians within the two-sided grid's resolution (2 steps of 1 % at |v| + 1) plus rank noise.
    assert frame.center[0] == pytest.approx(100.0, abs=0.02 * 101 + 0.05)
    assert frame.center[1] == pytest.approx(-50.0, abs=0.02 * 51 + 0.05)
    distances = np.hypot(*(scores - frame.center).T)
    coverage = np.mean(distances <= frame.quantile_radius)
    assert 0.985 <= coverage <= 0.995
    assert frame.radius == pytest.approx(1.2 * frame.quantile_radius, rel=1e-15)
    assert frame.xlim == (frame.center[0] - frame.radius, frame.center[0] + frame.radius)
    assert frame.ylim[1] - frame.ylim[0] == pytest.approx(2 * frame.radius)
    entries = frame.privacy.entries
    assert len(entries) == 3
    assert all(entry.epsilon == pytest.approx(1.0) and entry.delta == 0 for entry in entries)
    assert frame.privacy.total <= Budget(3.0, 0.0)
    assert frame.limits(center=True) == ((-frame.radius, frame.radius),) * 2


def test_inflate_and_dataframe_input():
    scores = pd.DataFrame(np.random.default_rng(2).standard_normal((500, 2)), columns=["a", "b"])
    frame = dp_frame(scores, 1.0, inflate=0.0, random_state=0)
    assert frame.radius == frame.quantile_radius
    assert frame.privacy.entries[0].name == "frame: centre a"


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
