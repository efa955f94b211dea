"""A keyed pseudo-random permutation of ``range(n)`` that can be evaluated at any position on its
own: the random order behind the pairings and the incomplete design (data-independent).

A permutation drawn as an array (``rng.permutation(n)``) must be held whole by whoever moves
rows into its order: 8 bytes per row on a Dask client, and in the task graph it sends. A keyed
permutation is a few integers, and any worker computes the positions of its own rows from it
(:func:`dppca.numerics.dask_order.permuted`), so the client's memory does not grow with ``n``
and the NumPy and Dask paths use the same order for a seed.

The permutation is an alternating Feistel network on ``m = max(2, ceil(log2 n))`` bits, cut into
a high part of ``ceil(m / 2)`` bits and a low part of ``floor(m / 2)`` bits; round ``r`` adds
(exclusive or) to one part a keyed hash of the other, alternately, so each round, and the
network, is a bijection of ``[0, 2^m)`` (Luby and Rackoff 1988). Cycle-walking restricts it to
``[0, n)``: a value at or beyond ``n`` is encrypted again until it falls below ``n``, which is a
bijection of ``[0, n)`` (Black and Rogaway 2002); as ``2^m < 2n`` for ``n >= 3``, more than half
of the values land on the first step. The hash is SplitMix64's finaliser (Steele, Lea and Flood
2014) of the part combined with a 64-bit round key.

The order only needs to be independent of the data (privacy holds for every fixed order: each
row is in the same number of pairs whatever the order); its randomness makes the design's
accuracy independent of how the file is sorted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Feistel rounds (each part is hashed and changed four times).
ROUNDS = 8
_MULTIPLIERS = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))
_SHIFTS = (np.uint64(30), np.uint64(27), np.uint64(31))


def _hash(part: np.ndarray, key: np.uint64) -> np.ndarray:
    """SplitMix64's finaliser of ``part xor key`` (a bijection of 64-bit words)."""
    z = part ^ key
    z = (z ^ (z >> _SHIFTS[0])) * _MULTIPLIERS[0]
    z = (z ^ (z >> _SHIFTS[1])) * _MULTIPLIERS[1]
    return z ^ (z >> _SHIFTS[2])


@dataclass(frozen=True)
class KeyedPermutation:
    """A pseudo-random permutation of ``range(n)`` given by ``ROUNDS`` 64-bit keys.

    ``rows_at(v)`` is the row at position ``v`` of the order, ``positions_of(u)`` the position
    of row ``u``; ``order()`` is the whole order. It is not a uniform draw among the ``n!``
    orders (at ``n = 2^k`` a Feistel network gives only even permutations, and at ``n = 5`` or
    6 some orders are two to four times as likely as others), but each row's position is close
    to uniform and the order depends on ``n`` and the keys alone, never on the data: all that
    the pairings' sensitivity and the incomplete design's accuracy need.

    Examples
    --------
    >>> permutation = random_permutation(10, np.random.default_rng(0))
    >>> order = permutation.order()
    >>> sorted(order.tolist()) == list(range(10))
    True
    >>> bool((permutation.positions_of(order) == np.arange(10)).all())
    True
    """

    n: int
    keys: tuple[int, ...]

    @property
    def _bits(self) -> tuple[int, int]:
        """The widths of the high and the low part."""
        bits = max(2, (self.n - 1).bit_length())
        return bits - bits // 2, bits // 2

    def _rounds(self, values: np.ndarray, *, inverse: bool) -> np.ndarray:
        high_bits, low_bits = self._bits
        low_mask = np.uint64((1 << low_bits) - 1)
        high_mask = np.uint64((1 << high_bits) - 1)
        high, low = values >> np.uint64(low_bits), values & low_mask
        rounds = range(ROUNDS - 1, -1, -1) if inverse else range(ROUNDS)
        for r in rounds:
            key = np.uint64(self.keys[r])
            if r % 2 == 0:
                high = high ^ (_hash(low, key) & high_mask)
            else:
                low = low ^ (_hash(high, key) & low_mask)
        return (high << np.uint64(low_bits)) | low

    def _walk(self, values: np.ndarray, *, inverse: bool) -> np.ndarray:
        values = np.asarray(values)
        if values.size and (values.min() < 0 or values.max() >= self.n):
            raise ValueError(f"positions and rows must lie in [0, {self.n}).")
        out = self._rounds(values.astype(np.uint64).ravel(), inverse=inverse)
        outside = np.flatnonzero(out >= self.n)
        while outside.size:  # cycle-walking: at most 2^m - n further steps for any value
            out[outside] = self._rounds(out[outside], inverse=inverse)
            outside = outside[out[outside] >= self.n]
        return out.astype(np.int64).reshape(values.shape)

    def rows_at(self, positions: np.ndarray) -> np.ndarray:
        """The row at each position of the order (int64, the shape of ``positions``)."""
        return self._walk(positions, inverse=False)

    def positions_of(self, rows: np.ndarray) -> np.ndarray:
        """The position of each row in the order (the inverse of :meth:`rows_at`)."""
        return self._walk(rows, inverse=True)

    def order(self) -> np.ndarray:
        """The rows in their order: ``rows_at(arange(n))``."""
        return self.rows_at(np.arange(self.n))

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``floor(n / 2)`` disjoint pairs of rows at positions ``(2j, 2j + 1)`` of the order
        (an odd row out is unused): replacing one row changes at most one pair."""
        order = self.order()
        half = self.n // 2
        return order[0 : 2 * half : 2], order[1 : 2 * half : 2]

    def halves(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows at the first ``floor(n / 2)`` positions of the order and the rest."""
        order = self.order()
        return order[: self.n // 2], order[self.n // 2 :]


def random_permutation(n: int, rng: np.random.Generator) -> KeyedPermutation:
    """A :class:`KeyedPermutation` of ``range(n)`` with keys drawn from ``rng`` (``ROUNDS``
    64-bit words, whatever ``n``; data-independent).

    Examples
    --------
    >>> first, second = random_permutation(5, np.random.default_rng(0)).pairs()
    >>> len(first), len(second), len(set(first.tolist()) | set(second.tolist()))
    (2, 2, 4)
    """
    if n < 1:
        raise ValueError(f"n must be at least 1; got {n}.")
    words = rng.integers(0, 2**64, size=ROUNDS, dtype=np.uint64)
    return KeyedPermutation(int(n), tuple(int(word) for word in words))
