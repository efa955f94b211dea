"""The keyed permutation: a bijection of range(n) at every n, its inverse, an independent scalar
reference of the published construction, and the uniformity of the orders it draws."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dppca.numerics.permutation import ROUNDS, KeyedPermutation, random_permutation

MASK64 = 2**64 - 1


def splitmix_finaliser(word: int) -> int:
    """SplitMix64's finaliser (Steele, Lea and Flood 2014), in Python integers."""
    word = ((word ^ (word >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    word = ((word ^ (word >> 27)) * 0x94D049BB133111EB) & MASK64
    return word ^ (word >> 31)


def reference_row_at(position: int, n: int, keys: tuple[int, ...]) -> int:
    """The alternating Feistel network on ``m = max(2, ceil(log2 n))`` bits with cycle-walking,
    one value at a time."""
    bits = max(2, (n - 1).bit_length())
    low_bits = bits // 2
    high_bits = bits - low_bits
    value = position
    while True:
        high, low = value >> low_bits, value & ((1 << low_bits) - 1)
        for r, key in enumerate(keys):
            if r % 2 == 0:
                high ^= splitmix_finaliser(low ^ key) & ((1 << high_bits) - 1)
            else:
                low ^= splitmix_finaliser(high ^ key) & ((1 << low_bits) - 1)
        value = (high << low_bits) | low
        if value < n:
            return value


SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1023, 1024, 1025, 4097]


@pytest.mark.parametrize("n", SIZES)
def test_the_order_is_a_bijection_with_its_inverse_and_matches_the_reference(n):
    permutation = random_permutation(n, np.random.default_rng(n))
    order = permutation.order()
    assert order.dtype == np.int64 and sorted(order.tolist()) == list(range(n))
    assert np.array_equal(permutation.positions_of(order), np.arange(n))
    assert np.array_equal(permutation.rows_at(permutation.positions_of(np.arange(n))), np.arange(n))
    checked = range(n) if n <= 1025 else range(0, n, 37)
    assert [int(order[v]) for v in checked] == [
        reference_row_at(v, n, permutation.keys) for v in checked
    ]


def test_positions_keep_their_shape_and_out_of_range_is_refused():
    permutation = random_permutation(10, np.random.default_rng(0))
    grid = np.arange(10).reshape(2, 5)
    assert permutation.rows_at(grid).shape == (2, 5)
    assert permutation.rows_at(np.array([], dtype=np.int64)).shape == (0,)
    for bad in ([10], [-1]):
        with pytest.raises(ValueError, match=r"\[0, 10\)"):
            permutation.rows_at(np.array(bad))
    with pytest.raises(ValueError, match="at least 1"):
        random_permutation(0, np.random.default_rng(0))


def test_the_keys_take_the_same_draws_whatever_n():
    """The generator moves by ``ROUNDS`` words for any n, so later draws do not depend on n."""
    after = []
    for n in (2, 1000, 10**9):
        rng = np.random.default_rng(3)
        permutation = random_permutation(n, rng)
        assert len(permutation.keys) == ROUNDS and all(0 <= k < 2**64 for k in permutation.keys)
        after.append(rng.random())
    assert after[0] == after[1] == after[2]


@pytest.mark.parametrize("n", [2, 7, 100])
def test_pairs_and_halves_use_each_row_once(n):
    permutation = random_permutation(n, np.random.default_rng(n))
    order = permutation.order()
    first, second = permutation.pairs()
    assert len(first) == len(second) == n // 2
    assert np.array_equal(np.ravel(np.column_stack([first, second])), order[: 2 * (n // 2)])
    low, rest = permutation.halves()
    assert np.array_equal(np.concatenate([low, rest]), order) and len(low) == n // 2


def test_every_order_of_four_rows_is_about_equally_likely():
    """Over 24,000 keys, each of the 24 orders of four rows appears about 1,000 times: a
    chi-square test of uniformity at level 1e-4 (df = 23)."""
    rng = np.random.default_rng(20261204)
    counts = dict.fromkeys(itertools.permutations(range(4)), 0)
    for _ in range(24_000):
        counts[tuple(random_permutation(4, rng).order().tolist())] += 1
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4


def test_positions_and_neighbours_are_uniform_at_a_size_that_walks():
    """n = 37 (walking from 64 values): over 20,000 keys, the row at position 0 and the row
    that follows row 0 in the order are each uniform (chi-square at level 1e-4), and the
    order's fixed points average 1, as for a uniform permutation (4 standard errors)."""
    n, draws = 37, 20_000
    rng = np.random.default_rng(7)
    first = np.zeros(n, dtype=np.int64)
    following = np.zeros(n, dtype=np.int64)
    fixed = np.empty(draws)
    for t in range(draws):
        permutation = random_permutation(n, rng)
        order = permutation.order()
        first[order[0]] += 1
        position = int(permutation.positions_of(np.array([0]))[0])
        following[order[(position + 1) % n]] += 1
        fixed[t] = np.sum(order == np.arange(n))
    assert stats.chisquare(first).pvalue > 1e-4
    assert following[0] == 0  # row 0 never follows itself
    assert stats.chisquare(following[1:]).pvalue > 1e-4
    assert abs(fixed.mean() - 1.0) < 4 * math.sqrt(1.0 / draws)


def test_a_fixed_key_gives_a_fixed_order():
    keys = tuple(range(1, ROUNDS + 1))
    assert np.array_equal(KeyedPermutation(50, keys).order(), KeyedPermutation(50, keys).order())
    assert not np.array_equal(
        KeyedPermutation(50, keys).order(), KeyedPermutation(50, keys[::-1]).order()
    )
