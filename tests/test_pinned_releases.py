"""The same seeds give the same releases as when they were pinned (``tests/pinned.py``):
byte for byte where no matrix product of the data is involved, to 1e-12 relative elsewhere
(BLAS may order the sums of a product differently on another CPU)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pinned import PATH, releases

PINNED = json.loads(PATH.read_text())


@pytest.fixture(scope="module")
def current():
    return releases()


#: Releases on given identity directions or of one column: no BLAS product of the data.
EXACT = {"dp_scree pmwm", "dp_scree huber", "dp_score", "dp_quantile"}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_release_is_unchanged(name, current):
    if name in EXACT:
        assert current[name] == PINNED[name], name  # the same floats, bit for bit
    else:
        assert np.allclose(current[name], PINNED[name], rtol=1e-12, atol=1e-15), name
