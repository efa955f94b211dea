"""Each column's most frequent bin from thresholded Gaussian noise on the occupied bins: the bins
against a direct count, their sensitivity under adversarial replacements, the threshold's tail
against exact references for both samplers, and the coupling term in the composition."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from dppca.numerics.bins import bin_centres, column_bins
from dppca.privacy.composition import PrivacyLoss, composed_delta
from dppca.privacy.gaussian_budget import GaussianBudget
from dppca.privacy.mechanisms import Noise
from dppca.privacy.modes import ColumnModes


def _counts(binned):
    return [dict(zip(keys.tolist(), counts.tolist(), strict=True)) for keys, counts in binned]


def test_the_bins_are_a_direct_count():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 3)) * [1.0, 1e-3, 1e3] + [0.0, 5.0, -7e3]
    width, offsets = 0.37, rng.random(3)
    for column, counted in enumerate(_counts(column_bins(X, width, offsets))):
        direct = Counter(math.floor(value / width - offsets[column]) for value in X[:, column])
        assert counted == {float(key): count for key, count in direct.items()}
    keys = np.array([2.0, -1.0, 0.0])
    np.testing.assert_allclose(bin_centres(keys, width, offsets), (keys + offsets + 0.5) * width)


@pytest.mark.parametrize("seed", range(20))
def test_replacing_one_row_moves_at_most_one_count_down_and_one_up_per_column(seed):
    """Adversarial replacements (huge, tiny, subnormal, duplicates, at a bin's edge): the counts
    of all columns move by at most sqrt(2 d) in L2, attained when every column's bin changes."""
    rng = np.random.default_rng(seed)
    n, d = 200, 4
    X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-3, 3, d)
    width = float(10.0 ** rng.uniform(-3, 3))
    offsets = rng.random(d)
    rows = [
        np.full(d, 1.7e308),
        np.full(d, -1.7e308),
        np.full(d, 5e-324),
        X[1].copy(),
        (np.floor(X[0] / width) + offsets) * width,
        X[0] + rng.standard_normal(d) * width * 1e-9,
        X[0] + 1e6 * width,
    ]
    before = _counts(column_bins(X, width, offsets))
    for row in rows:
        Y = X.copy()
        Y[0] = row
        after = _counts(column_bins(Y, width, offsets))
        moved = 0.0
        for old, new in zip(before, after, strict=True):
            changes = [new.get(k, 0) - old.get(k, 0) for k in set(old) | set(new)]
            assert sorted(c for c in changes if c) in ([], [-1, 1])
            moved += sum(c * c for c in changes)
        assert math.sqrt(moved) <= math.sqrt(2 * d)
    Y = X.copy()
    Y[0] = X[0] + 1e6 * width
    after = _counts(column_bins(Y, width, offsets))
    total = sum(
        (new.get(k, 0) - old.get(k, 0)) ** 2
        for old, new in zip(before, after, strict=True)
        for k in set(old) | set(new)
    )
    assert total == 2 * d  # attained


def test_the_threshold_holds_the_coupling_probability_for_the_continuous_sampler():
    """``d P[N(0, sigma^2) >= T] <= delta_c`` (scipy's normal tail), and below it by no more
    than the Chernoff bound's own slack, about ``z sqrt(2 pi)`` (Mills' ratio)."""
    for columns, epsilon, delta in [(1, 0.1, 0.005), (50, 1.0, 2.5e-9), (500, 8.0, 1e-14)]:
        modes = ColumnModes(columns, epsilon, delta)
        z = modes.threshold(1.0)
        tail = columns * stats.norm.sf(z)
        assert modes.coupling / (2 * z * math.sqrt(2 * math.pi)) < tail <= modes.coupling
        assert (1 + math.exp(epsilon)) * modes.coupling <= delta  # what the ledger enters
    far = ColumnModes(5, 800.0, 1e-8)  # e^-800 is 0 in floating point: no threshold to set
    assert not far.usable
    with pytest.raises(ValueError, match="no representable probability"):
        far.threshold(1.0)


@pytest.mark.parametrize("sigma", [0.8, 3.7, 41.0, 1234.5])
def test_the_threshold_holds_the_coupling_probability_for_the_discrete_gaussian(sigma):
    """The exact tail of the discrete Gaussian of parameter sigma^2 (its pmf summed in log
    space) at the threshold is within delta_c / d."""
    modes = ColumnModes(20, 1.0, 1e-8)
    threshold = modes.threshold(sigma)
    k = np.arange(-math.ceil(80 * sigma) - 10, math.ceil(80 * sigma) + 11, dtype=float)
    log_pmf = -(k**2) / (2 * sigma**2)
    log_total = np.logaddexp.reduce(log_pmf)
    log_tail = np.logaddexp.reduce(log_pmf[k >= threshold]) - log_total
    assert log_tail <= math.log(modes.coupling / modes.columns)


@pytest.mark.parametrize("sampler", ["continuous", "discrete"])
def test_empty_bins_pass_the_threshold_as_rarely_as_the_tail_says(sampler):
    """Sampled: with delta = 0.005 at epsilon 0.1 (a threshold of 3.5 sd), 40,000 empty bins
    pass at most about as often as the coupling probability allows (binomial, 5 sd)."""
    modes = ColumnModes(1, 0.1, 0.005)
    budget = GaussianBudget(1.0, 1e-6, sampler)
    part = budget.part(modes.sensitivity, 1, 1.0, integer=True)
    noise = Noise(sampler, np.random.default_rng(7))
    draws = part.randomise(np.zeros(40_000), noise)
    passed = int(np.sum(draws >= modes.threshold(part.scale)))
    expected = 40_000 * modes.coupling
    assert passed <= expected + 5 * math.sqrt(expected)


def test_the_modes_are_the_largest_kept_counts_and_missing_ones_are_nan():
    modes = ColumnModes(2, 4.0, 1e-8)
    part = GaussianBudget(4.0, 1e-6, "continuous").part(modes.sensitivity, 1, 1.0, integer=True)
    binned = [
        (np.array([-2.0, 3.0, 9.0]), np.array([5, 4000, 300])),
        (np.array([1.0]), np.array([2])),  # far below the threshold
    ]
    found = modes.release(binned, part, Noise("continuous", np.random.default_rng(0)))
    assert found[0] == 3.0 and np.isnan(found[1])
    with pytest.raises(ValueError, match="integer part of sensitivity"):
        plain = GaussianBudget(4.0, 1e-6).part(2.0, 1, 1.0)
        modes.release(binned, plain, Noise("continuous", np.random.default_rng(0)))


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 5.0])
def test_a_coupling_loss_adds_one_plus_e_to_the_epsilon_times_its_probability(epsilon):
    """Without (Gaussian and pure parts) and with a zCDP part (the discrete sampler's route)."""
    coupling = PrivacyLoss("coupling", delta=1e-9)
    for others in (
        [PrivacyLoss("gaussian", mu=0.7), PrivacyLoss("pure", epsilon=0.2)],
        [PrivacyLoss("zcdp", rho=0.05), PrivacyLoss("pure", epsilon=0.1)],
    ):
        extra = composed_delta([*others, coupling, coupling], epsilon) - composed_delta(
            others, epsilon
        )
        assert extra == pytest.approx((1 + math.exp(epsilon)) * 2e-9, rel=1e-6)
    assert "probability 1e-09" in coupling.describe()
    # beyond epsilon 700, (1 + e^epsilon) delta_c is no bound in floating point: no guarantee
    assert composed_delta([PrivacyLoss("pure", epsilon=750.0), coupling], 750.0) == 1.0
