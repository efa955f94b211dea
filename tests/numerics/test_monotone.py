"""Order-constrained fits and apportionment, against independent references."""

from __future__ import annotations

import numpy as np
from sklearn.isotonic import IsotonicRegression

from dppca.numerics.monotone import antitonic, largest_remainder, proportions


def test_antitonic_agrees_with_scikit_learn_isotonic_regression():
    rng = np.random.default_rng(0)
    for size in (1, 2, 5, 30):
        for _ in range(50):
            values = rng.standard_normal(size) * rng.choice([0.1, 1.0, 100.0])
            clipped = np.maximum(values, 0.0)
            expected = (
                clipped
                if size < 2
                else IsotonicRegression(increasing=False).fit_transform(np.arange(size), clipped)
            )
            assert np.allclose(antitonic(values), expected, rtol=1e-12, atol=1e-15)


def test_largest_remainder_rule():
    assert largest_remainder(np.array([5, 3, 2]), 7).tolist() == [4, 2, 1]
    assert largest_remainder(np.array([1, 1, 1]), 10).tolist() == [
        4,
        3,
        3,
    ]  # ties go to the earlier group
    assert largest_remainder(np.array([661, 504, 503, 489, 347]), 2504).tolist() == [
        661,
        504,
        503,
        489,
        347,
    ]
    assert largest_remainder(np.array([1, 1]), 1).tolist() == [1, 0]
    for sizes, total in [([3, 9, 1, 7], 11), ([2, 2, 2], 5), ([10], 3)]:
        shares = largest_remainder(np.array(sizes), total)
        assert shares.sum() == total
        assert np.all(np.abs(shares - total * np.array(sizes) / sum(sizes)) < 1)


def test_proportions_of_a_sum_that_is_not_positive_and_finite_are_zero():
    assert proportions(np.array([0.0, 0.0])).tolist() == [0.0, 0.0]
    assert proportions(np.array([np.inf, 1.0])).tolist() == [0.0, 0.0]
    assert proportions(np.array([1.0, 3.0])).tolist() == [0.25, 0.75]
