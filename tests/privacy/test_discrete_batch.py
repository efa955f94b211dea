"""The array samplers: exact distributions (also when every comparison takes the exact
fallback), the same stream for a key, and a fixed amount of stream per batch."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import dppca.privacy.discrete_batch as batch_module
from dppca.privacy.discrete import SecureBits
from dppca.privacy.discrete_batch import (
    LazyUniform,
    gaussian_batch,
    gaussian_integers,
    laplace_batch,
    laplace_integers,
)
from integer_samples import chi_square, secure_source

DRAWS = 100_000


VARIANCES = [
    Fraction(1, 100),
    Fraction(1, 4),
    Fraction(9, 4),
    Fraction(307, 10),
    Fraction(12_345, 7),
]


@pytest.mark.parametrize("variance", VARIANCES)
def test_the_gaussian_batch_matches_its_distribution(variance):
    samples = gaussian_batch(secure_source(11), variance, DRAWS)
    bound = int(4 * math.sqrt(variance)) + 1
    weight = lambda y: math.exp(-(y * y) / (2 * variance))  # noqa: E731
    assert chi_square(samples, weight, bound) > 1e-4
    assert abs(samples.mean()) < 5 * math.sqrt(float(variance) / DRAWS) + 1e-9


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 1), (1, 2), (5, 2), (3, 40), (2**36, 3 * 2**37)])
def test_the_laplace_batch_matches_its_distribution(a, b):
    samples = laplace_batch(secure_source(a + b), a, b, DRAWS)
    scale = b / a
    bound = int(4 * scale) + 1
    weight = lambda y: math.exp(-abs(y) * a / b)  # noqa: E731
    assert chi_square(samples, weight, bound) > 1e-4


def _undecided_everywhere(monkeypatch):
    """Every float comparison leaves the decision to the exact integer fallback."""

    def nothing_decided(x_lo, x_hi):
        return np.zeros_like(x_lo), np.ones_like(x_lo)

    def no_logarithm(tops):
        return np.zeros(len(tops), np.int64), np.ones(len(tops), bool)

    monkeypatch.setattr(batch_module, "exp_neg_interval", nothing_decided)
    monkeypatch.setattr(batch_module, "_floor_minus_log", no_logarithm)


@pytest.mark.long  # the exact fallback is pure Python: 8,000 draws take seconds
@pytest.mark.parametrize("variance", [Fraction(1, 4), Fraction(307, 10)])
def test_the_exact_fallback_alone_gives_the_same_distribution(monkeypatch, variance):
    _undecided_everywhere(monkeypatch)
    samples = gaussian_batch(secure_source(3), variance, 4_000)
    bound = int(3 * math.sqrt(variance)) + 1
    weight = lambda y: math.exp(-(y * y) / (2 * variance))  # noqa: E731
    assert chi_square(samples, weight, bound) > 1e-4
    laplace = laplace_batch(secure_source(4), 1, 3, 4_000)
    assert chi_square(laplace, lambda y: math.exp(-abs(y) / 3), 13) > 1e-4


class _FixedBits:
    """A source that returns given 64-bit chunks."""

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def bits(self, k):
        assert k == 64
        return self.chunks.pop(0)


def test_a_lazy_uniform_draws_bits_until_the_comparison_is_decided():
    mpmath.mp.prec = 400
    q = Fraction(1, 3)
    scaled = mpmath.exp(-mpmath.mpf(1) / 3) * mpmath.mpf(2) ** 53
    top = int(mpmath.floor(scaled))  # the first 53 bits agree with exp(-1/3)
    following = int(mpmath.floor((scaled - top) * mpmath.mpf(2) ** 64))
    # The next 64 bits equal to those of exp(-1/3): undecided again; then one bit decides.
    below = LazyUniform(top, _FixedBits([following, 0]))
    assert below.below_exp(q) is True and below.known == 53 + 128
    above = LazyUniform(top, _FixedBits([following, 2**64 - 1]))
    assert above.below_exp(q) is False
    assert LazyUniform(top + 1, _FixedBits([0])).below_exp(q) is False
    assert LazyUniform(top - 1, _FixedBits([2**64 - 1])).below_exp(q) is True


def test_a_key_gives_the_same_draws_and_keys_differ():
    first = gaussian_integers(secure_source(1), Fraction(10**6), 500)
    assert np.array_equal(first, gaussian_integers(secure_source(1), Fraction(10**6), 500))
    assert not np.array_equal(first, gaussian_integers(secure_source(2), Fraction(10**6), 500))
    assert np.array_equal(
        laplace_integers(secure_source(1), Fraction(5, 2), 50),
        laplace_integers(secure_source(1), Fraction(5, 2), 50),
    )


class _CountingBits(SecureBits):
    def __init__(self, key):
        super().__init__(key)
        self.taken = 0

    def take(self, size):
        self.taken += size
        return super().take(size)


def test_the_stream_used_depends_on_the_size_alone():
    # Each batch takes 4 words per proposal for a number of proposals set by the size; a second
    # batch (rare) depends only on how many proposals were kept, never on their values.
    sizes = {}
    for seed in range(40):
        source = _CountingBits(np.random.default_rng(seed).bytes(32))
        gaussian_batch(source, Fraction(10**6), 2_000)
        sizes[seed] = source.taken
    first = 32 * batch_module._proposal_count(2_000, batch_module._gaussian_kept_rate(1001))
    assert sum(taken == first for taken in sizes.values()) >= 38


def test_parameters_beyond_the_array_range_take_the_scalar_sampler():
    huge = Fraction(2**84)  # sigma = 2^42 > LARGEST_SCALE
    draws = gaussian_integers(secure_source(5), huge, 3)
    assert draws.shape == (3,) and np.all(np.abs(draws) < 2.0**50)


@pytest.mark.parametrize("variance", [Fraction(9, 100), Fraction(4), Fraction(9, 2)])
def test_one_batch_suffices_at_the_least_kept_rates(variance):
    # sigma^2 near 0.09 and 4 keep the fewest proposals (exact sums): the public batch size
    # still gives the draws in one batch almost always.
    batches = 0
    original = batch_module._proposal_count
    for seed in range(20):
        source = _CountingBits(np.random.default_rng(seed).bytes(32))
        gaussian_batch(source, variance, 20_000)
        t = math.isqrt(variance.numerator // variance.denominator) + 1
        one = 32 * original(20_000, batch_module._gaussian_kept_rate(t))
        batches += source.taken > one
    assert batches <= 1


def test_the_float_bounds_refuse_arguments_outside_their_domain():
    with pytest.raises(ValueError, match="0 <= x_lo <= x_hi"):
        batch_module.exp_neg_interval(np.array([-1.0]), np.array([1.0]))
    with pytest.raises(ValueError, match="0 <= x_lo <= x_hi"):
        batch_module.exp_neg_interval(np.array([np.nan]), np.array([1.0]))
