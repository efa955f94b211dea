"""Exact samplers of integer noise from a cryptographically secure random stream.

Floating-point noise samplers can leak through the low bits of their output (Mironov 2012; Jin
et al. 2022). The samplers here use integer arithmetic only, so each returns an integer with
exactly the stated distribution (Canonne, Kamath and Steinke 2020, Algorithms 1-3):

* :func:`bernoulli_exp_neg`: ``Bernoulli(exp(-a/b))`` for integers ``a >= 0, b > 0``;
* :func:`discrete_laplace`: ``P(y) ∝ exp(-|y| a/b)`` on the integers;
* :func:`one_sided_geometric`: ``P(y) ∝ exp(-y a/b)`` on ``y = 0, 1, 2, ...``;
* :func:`discrete_gaussian`: ``P(y) ∝ exp(-y^2 / (2 sigma^2))`` on the integers, ``sigma^2 = a/b``.

Random bits come from SHAKE-256 (FIPS 202) in counter mode, keyed with 32 bytes: a
cryptographically secure stream. The key is drawn from the release's random generator, which
``random_state=None`` seeds with 128 bits of the operating system's entropy (numpy's
``SeedSequence``); that generator is used inside the release only, so its outputs are never
published. A fixed seed makes the noise reproducible (for research and tests, like every seed):
anyone who knows it knows the noise, and so does anyone who can reconstruct a Generator the
caller passed in and later used for published values.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

#: Bytes of the stream produced at a time.
_BLOCK = 4096


class SecureBits:
    """Uniform integers from SHAKE-256 in counter mode under a 32-byte ``key``."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 32:
            raise ValueError("the key of a secure stream must have at least 32 bytes")
        self._key = bytes(key)
        self._counter = 0
        self._buffer = b""
        self._position = 0

    def _refill(self) -> None:
        self._counter += 1
        message = self._key + self._counter.to_bytes(16, "little")
        self._buffer = hashlib.shake_256(message).digest(_BLOCK)
        self._position = 0

    def take(self, size: int) -> bytes:
        """The next ``size`` bytes of the stream."""
        end = self._position + size
        if end <= len(self._buffer):  # the common case: the request fits in the block
            chunk = self._buffer[self._position : end]
            self._position = end
            return chunk
        parts = []
        while size > 0:
            if self._position >= len(self._buffer):
                self._refill()
            step = min(size, len(self._buffer) - self._position)
            parts.append(self._buffer[self._position : self._position + step])
            self._position += step
            size -= step
        return b"".join(parts)

    def bits(self, k: int) -> int:
        """``k`` uniform random bits as an integer in ``[0, 2^k)`` (from fresh whole bytes)."""
        return int.from_bytes(self.take((k + 7) >> 3), "little") & ((1 << k) - 1)

    def words(self, count: int) -> np.ndarray:
        """``count`` uniform 64-bit words (``uint64``), the stream's next ``8 count`` bytes read
        little-endian."""
        return np.frombuffer(self.take(8 * count), dtype="<u8").astype(np.uint64)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (``n >= 1``), by rejection: exact."""
        return uniform_below(self.bits, n)


def uniform_below(bits: Callable[[int], int], n: int) -> int:
    """A uniform integer in ``[0, n)`` (``n >= 1``) from a source of ``k`` uniform bits, by
    rejection: exact."""
    k = (n - 1).bit_length()
    while True:
        value = bits(k)
        if value < n:
            return value


def bernoulli(source: SecureBits, numerator: int, denominator: int) -> bool:
    """``True`` with probability exactly ``numerator / denominator`` (in ``[0, 1]``)."""
    return source.below(denominator) < numerator


def bernoulli_exp_neg(source: SecureBits, a: int, b: int) -> bool:
    """``True`` with probability exactly ``exp(-a/b)``, ``a >= 0``, ``b >= 1``.

    For ``gamma = a/b <= 1``: draw ``A_k ~ Bernoulli(gamma / k)`` for ``k = 1, 2, ...`` until one
    is 0; the answer is whether that ``k`` is odd. Larger ``gamma`` is split into ``floor(gamma)``
    factors ``exp(-1)`` and one ``exp(-(gamma - floor(gamma)))`` (CKS 2020, Algorithm 1).
    """
    whole, rest = divmod(a, b)
    for _ in range(whole):
        if not _bernoulli_exp_neg_unit(source, 1, 1):
            return False
    return _bernoulli_exp_neg_unit(source, rest, b)


def _bernoulli_exp_neg_unit(source: SecureBits, a: int, b: int) -> bool:
    k = 1
    while bernoulli(source, a, b * k):
        k += 1
    return k % 2 == 1


def _geometric_unit(source: SecureBits, b: int) -> int:
    """``X >= 0`` with ``P(X = x) ∝ exp(-x / b)``: ``U + b V`` with ``U`` uniform on
    ``{0..b-1}`` kept with probability ``exp(-U/b)`` and ``V ~ Geometric(exp(-1))``."""
    while True:
        u = source.below(b)
        if bernoulli_exp_neg(source, u, b):
            break
    v = 0
    while bernoulli_exp_neg(source, 1, 1):
        v += 1
    return u + b * v


def one_sided_geometric(source: SecureBits, a: int, b: int) -> int:
    """``Y = 0, 1, 2, ...`` with ``P(Y = y) = (1 - r) r^y``, ``r = exp(-a/b)`` (``a, b >= 1``):
    ``floor(X / a)`` for ``X`` with ``P(X = x) ∝ exp(-x / b)``."""
    return _geometric_unit(source, b) // a


def discrete_laplace(source: SecureBits, a: int, b: int) -> int:
    """``Y`` in the integers with ``P(Y = y) ∝ exp(-|y| a/b)`` (scale ``b/a``; CKS Algorithm 2)."""
    while True:
        magnitude = one_sided_geometric(source, a, b)
        negative = source.bits(1) == 1
        if negative and magnitude == 0:
            continue  # 0 would otherwise be counted twice
        return -magnitude if negative else magnitude


def discrete_gaussian(source: SecureBits, variance: Fraction) -> int:
    """``Y`` in the integers with ``P(Y = y) ∝ exp(-y^2 / (2 sigma^2))``, ``sigma^2 = variance``.

    A discrete Laplace proposal of scale ``t = floor(sigma) + 1`` is kept with probability
    ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))`` (CKS 2020, Algorithm 3).
    """
    a, b = variance.numerator, variance.denominator
    t = math.isqrt(a // b) + 1
    # (|y| - sigma^2 / t)^2 / (2 sigma^2) = (|y| b t - a)^2 / (2 a b t^2), in integers.
    denominator = 2 * a * b * t * t
    while True:
        y = discrete_laplace(source, 1, t)
        gap = abs(y) * b * t - a
        if bernoulli_exp_neg(source, gap * gap, denominator):
            return y


def rational_at_least(value: float, bits: int = 40) -> Fraction:
    """A rational ``>= value`` (a positive float) with a denominator of at most ``2^bits``
    relative to its magnitude: rounding noise parameters up keeps every guarantee."""
    exponent = math.frexp(value)[1] - bits
    return Fraction(math.ceil(math.ldexp(value, -exponent))) * Fraction(2) ** exponent


def rational_at_most(value: float, bits: int = 40) -> Fraction:
    """A rational ``<= value`` (a positive float), as :func:`rational_at_least` from below."""
    exponent = math.frexp(value)[1] - bits
    return Fraction(math.floor(math.ldexp(value, -exponent))) * Fraction(2) ** exponent


def scalar_gaussian_integers(source: SecureBits, variance: Fraction, size: int) -> np.ndarray:
    """``size`` independent discrete Gaussians with variance parameter ``variance``, as floats,
    one at a time (:func:`dppca.privacy.discrete_batch.gaussian_integers` draws whole arrays)."""
    return np.array([float(discrete_gaussian(source, variance)) for _ in range(size)])


def scalar_laplace_integers(source: SecureBits, scale: Fraction, size: int) -> np.ndarray:
    """``size`` independent discrete Laplace variables with ``P(y) ∝ exp(-|y| / scale)``, as
    floats, one at a time (:func:`dppca.privacy.discrete_batch.laplace_integers`: whole arrays)."""
    a, b = scale.denominator, scale.numerator
    return np.array([float(discrete_laplace(source, a, b)) for _ in range(size)])
