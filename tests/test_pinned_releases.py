"""The same seeds give the same releases as when they were pinned (``tests/pinned.py``):
byte for byte where no matrix product of the data is involved, to 1e-12 relative elsewhere
(BLAS may order the sums of a product differently on another CPU).

The pins were made with numpy 2 (2.4), scipy 1.17, pandas 3.1 and scikit-learn 1.9. Byte for
byte holds with numpy 2; with numpy 1 (the declared floor, ``make test-floors``) its elementary
functions (``log``, ``expm1``) may round a last bit differently, so there those releases are
compared to 4 units in the last place."""

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


#: Whether this is the pinning's numpy (see the module's docstring).
PINNING_NUMPY = np.__version__.split(".")[0] == "2"


@pytest.mark.parametrize("name", sorted(PINNED))
def test_release_is_unchanged(name, current):
    if name in EXACT and PINNING_NUMPY:
        assert current[name] == PINNED[name], name  # the same floats, bit for bit
    elif name in EXACT:
        np.testing.assert_array_max_ulp(np.array(current[name]), np.array(PINNED[name]), 4)
    else:
        assert np.allclose(current[name], PINNED[name], rtol=1e-12, atol=1e-15), name
