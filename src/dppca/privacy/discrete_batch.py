"""Exact discrete Laplace and Gaussian noise for whole arrays, with a fixed amount of work.

The algorithms are those of :mod:`dppca.privacy.discrete` (Canonne, Kamath and Steinke 2020,
Algorithms 2 and 3), run on whole arrays of proposals at once:

1. ``X`` with ``P(X = x) ∝ exp(-x / b)`` is ``U + b V``: ``U`` is a 64-bit word modulo ``b``
   (kept when the word lies below the largest multiple of ``b``, so ``U`` is exactly uniform on
   ``{0 .. b - 1}``), kept with probability ``exp(-U / b)``; ``V = floor(-ln X_V)`` for a uniform
   ``X_V``, so ``P(V >= v) = exp(-v)``;
2. the discrete Laplace ``Y = ±floor(X / a)``, a negative zero discarded (Algorithm 2);
3. the discrete Gaussian keeps a discrete Laplace proposal of scale ``t = floor(sigma) + 1``
   with probability ``exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2))`` (Algorithm 3).

Every proposal that fails a test is discarded: each test is a rejection step whose outcome is
drawn independently of the other proposals, so the kept proposals are independent draws of the
target distribution, and the first ``size`` of them are returned. Each comparison
``X < exp(-q)`` of a uniform ``X`` is made on its first 53 bits against the certified float
bounds of :func:`dppca.numerics.exp_bounds.exp_neg_interval`; the rare comparison those bits
cannot decide (probability below ``2^-42``, about ``2^-44`` measured) draws more bits of the
same ``X`` and compares it with integer bounds on ``exp(-q)``
(:func:`~dppca.numerics.exp_bounds.exp_neg_scaled`) until it is decided. So every draw has
exactly the stated distribution, as with the scalar samplers (``V`` stops at ``2^62 / b``,
which it reaches with probability below ``exp(-2^22)``).

**Work that does not follow the noise.** A batch draws three 64-bit words per proposal (four
for the Gaussian) and runs the same array operations whatever their values; the number of
proposals depends only on ``size`` and public parameters; another batch is drawn only when too
few proposals were kept, an event independent of the kept values. The time of a release
therefore does not depend on its noise, except through the undecided comparisons (a release of
125,250 draws meets one with probability about ``4e-8``), which take longer, and through the
hardware's integer division, whose latency may vary with its operands (``%`` and ``//`` on the
drawn words, averaged over every proposal).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from dppca.numerics.exp_bounds import exp_neg_interval, exp_neg_scaled, exp_neg_table
from dppca.privacy.discrete import (
    SecureBits,
    scalar_gaussian_integers,
    scalar_laplace_integers,
)

#: Parameters up to this size run here (their proposals stay exact in floats); larger ones
#: (noise beyond ``2^40`` grid steps) take the scalar samplers.
LARGEST_SCALE = 2**40
#: The largest ``V`` the first 53 bits of a uniform can decide: ``exp(-37) < 2^-53``.
_LARGEST_FLOAT_V = 37
_TOP = 2.0**-53
#: ``X = U + b V`` is held in 64-bit integers: ``V`` stops at ``2^62 / b``, which it reaches
#: with probability ``exp(-2^62 / b) < exp(-2^22)``.
_LARGEST_X = 2**62


class LazyUniform:
    """A uniform ``X`` in ``[0, 1)`` whose first 53 bits are ``top``; later bits are drawn from
    ``source`` when a comparison needs them, and kept."""

    def __init__(self, top: int, source: SecureBits) -> None:
        self.prefix, self.known, self.source = int(top), 53, source

    def below_exp(self, q: Fraction) -> bool:
        """Whether ``X < exp(-q)``, decided exactly."""
        while True:
            lo, hi = exp_neg_scaled(q, self.known)
            if self.prefix + 1 <= lo:
                return True
            if self.prefix >= hi:
                return False
            self.prefix = (self.prefix << 64) | self.source.bits(64)
            self.known += 64


def _tops(words: np.ndarray) -> np.ndarray:
    """The top 53 bits of 64-bit words, as exact floats."""
    return (words >> np.uint64(11)).astype(np.float64)


def _below_exp(
    tops: np.ndarray, q_lo: np.ndarray, q_hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For uniforms with first 53 bits ``tops``: where ``X < exp(-q)`` is certain for every
    ``q`` in ``[q_lo, q_hi]``, and where the 53 bits do not decide."""
    lo, hi = exp_neg_interval(q_lo, q_hi)
    below = (tops + 1.0) * _TOP <= lo
    above = tops * _TOP >= hi
    return below, ~(below | above)


def _floor_minus_log(tops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``floor(-ln X)`` where the 53 bits ``tops`` decide it, and where they do not."""
    table_lo, table_hi = exp_neg_table()
    guess = np.floor(-np.log((tops + 0.5) * _TOP))
    guess = np.clip(guess, 0, _LARGEST_FLOAT_V).astype(np.intp)
    certain = ((tops + 1.0) * _TOP <= table_lo[guess]) & (tops * _TOP >= table_hi[guess + 1])
    return guess.astype(np.int64), ~certain


def _exact_floor_minus_log(uniform: LazyUniform, cap: int) -> int:
    """``min(floor(-ln X), cap)``, decided exactly."""
    v = 0
    while v < cap and uniform.below_exp(Fraction(v + 1)):
        v += 1
    return v


def _geometric_proposals(
    source: SecureBits, b: int, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``X = U + b V`` from three rows of words, and which proposals are kept (step 1)."""
    count = words.shape[1]
    multiple = (2**64 // b) * b
    kept = np.ones(count, bool) if multiple == 2**64 else words[0] < np.uint64(multiple)
    u = (words[0] % np.uint64(b)).astype(np.int64)
    q = u / float(b)  # b < 2^40: u and b are exact, q is correctly rounded
    tops = _tops(words[1])
    accepted, undecided = _below_exp(
        tops, np.maximum(np.nextafter(q, -np.inf), 0.0), np.nextafter(q, np.inf)
    )
    for i in np.flatnonzero(undecided & kept):
        accepted[i] = LazyUniform(int(tops[i]), source).below_exp(Fraction(int(u[i]), b))
    v_tops = _tops(words[2])
    v, unknown = _floor_minus_log(v_tops)
    kept &= accepted
    for i in np.flatnonzero(unknown & kept):
        v[i] = _exact_floor_minus_log(LazyUniform(int(v_tops[i]), source), _LARGEST_X // b)
    return u + b * v, kept


def _laplace_proposals(
    source: SecureBits, a: int, b: int, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Discrete Laplace proposals ``P(y) ∝ exp(-|y| a / b)`` and which are kept (step 2); the
    sign is the lowest bit of the third row (its top 53 bits make ``V``)."""
    x, kept = _geometric_proposals(source, b, words)
    magnitude = x // a
    negative = (words[2] & np.uint64(1)).astype(bool)
    kept &= ~(negative & (magnitude == 0))
    return np.where(negative, -magnitude, magnitude), kept


def _kept_rate(a: int, b: int) -> float:
    """The probability that a discrete Laplace proposal is kept: ``U`` kept with probability
    ``(1 - e^-1) / (b (1 - e^(-1/b)))``, a negative zero discarded with probability
    ``(1 - e^(-a/b)) / 2``; 2 % below, so that a second batch stays rare."""
    u_kept = (1.0 - math.exp(-1.0)) / (b * -math.expm1(-1.0 / b))
    return 0.98 * u_kept * (1.0 - 0.5 * -math.expm1(-a / b))


def _gaussian_kept_rate(t: int) -> float:
    """A lower bound on the Gaussian's kept rate: Algorithm 3 keeps at least 44.5 % of its
    Laplace proposals for ``t <= 2`` (at ``sigma^2`` near 0.09) and 66.3 % beyond (at
    ``sigma^2 = 4``), from exact sums over ``y``."""
    return _kept_rate(1, t) * (0.44 if t <= 2 else 0.66)


def _proposal_count(needed: int, rate: float) -> int:
    """Proposals for ``needed`` kept draws at a kept rate of at least ``rate``: enough that a
    second batch is rare (a public function of ``needed``)."""
    mean = needed / rate
    return int(mean + 4.0 * math.sqrt(mean) + 16)


def _collect(
    needed: int, rate: float, batch: Callable[[int], tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """The first ``needed`` kept proposals of batches of :func:`_proposal_count` proposals."""
    parts, total = [], 0
    while total < needed:
        values, kept = batch(_proposal_count(needed - total, rate))
        part = values[kept][: needed - total]
        parts.append(part)
        total += len(part)
    return np.concatenate(parts).astype(np.float64) if parts else np.zeros(0)


def laplace_batch(source: SecureBits, a: int, b: int, size: int) -> np.ndarray:
    """``size`` independent integers with ``P(y) ∝ exp(-|y| a / b)``, as floats.

    Parameters
    ----------
    source : SecureBits
    a, b : int
        ``1 <= a < 2^62`` and ``1 <= b <= LARGEST_SCALE``: the scale is ``b / a``.
    size : int

    Examples
    --------
    >>> draws = laplace_batch(SecureBits(bytes(32)), 1, 3, 5)
    >>> draws.shape, bool(np.all(draws == np.round(draws)))
    ((5,), True)
    """

    def batch(count: int) -> tuple[np.ndarray, np.ndarray]:
        words = source.words(3 * count).reshape(3, count)
        return _laplace_proposals(source, a, b, words)

    return _collect(size, _kept_rate(a, b), batch)


def _interval(value: Fraction) -> tuple[float, float]:
    """Floats around a positive rational (Python's int division rounds correctly)."""
    nearest = value.numerator / value.denominator
    return math.nextafter(nearest, 0.0), math.nextafter(nearest, math.inf)


def gaussian_batch(source: SecureBits, variance: Fraction, size: int) -> np.ndarray:
    """``size`` independent discrete Gaussians ``P(y) ∝ exp(-y^2 / (2 variance))``, as floats.

    Parameters
    ----------
    source : SecureBits
    variance : fractions.Fraction
        ``sigma^2``, positive, with ``floor(sigma) + 1 <= LARGEST_SCALE``.
    size : int

    Examples
    --------
    >>> draws = gaussian_batch(SecureBits(bytes(32)), Fraction(9, 4), 4)
    >>> draws.shape, bool(np.all(draws == np.round(draws)))
    ((4,), True)
    """
    a, b = variance.numerator, variance.denominator
    t = math.isqrt(a // b) + 1
    centre_lo, centre_hi = _interval(Fraction(a, b * t))  # sigma^2 / t
    twice_lo, twice_hi = _interval(2 * variance)
    denominator = 2 * a * b * t * t

    def batch(count: int) -> tuple[np.ndarray, np.ndarray]:
        words = source.words(4 * count).reshape(4, count)
        y, kept = _laplace_proposals(source, 1, t, words[:3])
        m = np.abs(y).astype(np.float64)  # exact below 2^53 (beyond: undecided, below)
        gap_lo = np.nextafter(m - centre_hi, -np.inf)
        gap_hi = np.nextafter(m - centre_lo, np.inf)
        # (|y| - sigma^2 / t)^2 over the interval of the gap, rounded outward
        square_hi = np.nextafter(np.maximum(gap_lo * gap_lo, gap_hi * gap_hi), np.inf)
        nearest = np.where(gap_lo > 0, gap_lo, np.where(gap_hi < 0, -gap_hi, 0.0))
        square_lo = np.nextafter(nearest * nearest, 0.0)
        q_lo = np.nextafter(square_lo / twice_hi, 0.0)
        q_hi = np.nextafter(square_hi / twice_lo, np.inf)
        tops = _tops(words[3])
        accepted, undecided = _below_exp(tops, q_lo, q_hi)
        undecided |= m >= 2.0**53  # beyond, |y| is not exact in a float
        for i in np.flatnonzero(undecided & kept):
            gap = abs(int(y[i])) * b * t - a
            accepted[i] = LazyUniform(int(tops[i]), source).below_exp(
                Fraction(gap * gap, denominator)
            )
        return y, kept & accepted

    return _collect(size, _gaussian_kept_rate(t), batch)


def gaussian_integers(source: SecureBits, variance: Fraction, size: int) -> np.ndarray:
    """``size`` independent discrete Gaussians with variance parameter ``variance``, as floats
    (exact below ``2^53``; beyond, the release is pure noise and rounding it is harmless):
    :func:`gaussian_batch`, or the scalar sampler for ``sigma`` beyond ``LARGEST_SCALE``."""
    if math.isqrt(variance.numerator // variance.denominator) + 1 > LARGEST_SCALE:
        return scalar_gaussian_integers(source, variance, size)
    return gaussian_batch(source, variance, size)


def laplace_integers(source: SecureBits, scale: Fraction, size: int) -> np.ndarray:
    """``size`` independent discrete Laplace variables with ``P(y) ∝ exp(-|y| / scale)``, as
    floats: :func:`laplace_batch`, or the scalar sampler for parameters beyond its range."""
    a, b = scale.denominator, scale.numerator
    if b > LARGEST_SCALE or a >= _LARGEST_X:
        return scalar_laplace_integers(source, scale, size)
    return laplace_batch(source, a, b, size)
