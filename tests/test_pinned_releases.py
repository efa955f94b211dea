"""The same seeds give the same releases as when they were pinned (``tests/pinned.py``), to
1e-12 relative (matrix products may round differently on another CPU)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pinned import PATH, releases

PINNED = json.loads(PATH.read_text())


@pytest.fixture(scope="module")
def current():
    return releases()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_release_is_unchanged(name, current):
    assert np.allclose(current[name], PINNED[name], rtol=1e-12, atol=1e-15), name
