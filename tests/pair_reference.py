"""The scree's pair matrix recomputed for tests: the first draw of a release's generator pairs
the rows, as the releases do."""

from __future__ import annotations

import numpy as np

from dppca.numerics.pairs import half_squared_gaps
from dppca.numerics.permutation import random_permutation


def half_squared_differences(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``(v_b - v_a)^2 / 2`` over the random disjoint pairs of the rows of ``values``."""
    first, second = random_permutation(values.shape[0], rng).pairs()
    return half_squared_gaps(values[first], values[second])
