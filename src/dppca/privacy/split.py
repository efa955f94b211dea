"""How :func:`dppca.dp_pca` shares its total budget between its releases."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dppca.privacy.budget import Budget

#: Every release the pipeline can make, in the order it makes them.
PARTS = ("scale", "loading", "scree", "score")
#: The releases of a default call (no private scaling, estimated directions).
DEFAULT_PARTS = ("loading", "scree", "score")
#: Default weights of the parts a call makes (normalised over them): a third each for the three
#: default releases; a private scaling takes a tenth of the total next to them.
DEFAULT_WEIGHTS = {"scale": 1.0, "loading": 3.0, "scree": 3.0, "score": 3.0}
_UNUSED = Budget(0.0, 0.0)


@dataclass(frozen=True)
class PCASplit:
    """The budgets of the pipeline's releases: the directions (``loading``), the variances along
    them (``scree``), the score plot (``score``: frame and histogram) and, when the data are
    scaled privately, the variables' scales (``scale``). A release the call does not make has
    ``Budget(0, 0)``.

    Build it from the total with :meth:`from_total`; the parts together never exceed it.

    Examples
    --------
    >>> from dppca import Budget, PCASplit
    >>> split = PCASplit.from_total(Budget(3.0, 3e-6), {"loading": 0.5, "scree": 0.25,
    ...                                                 "score": 0.25})
    >>> split.loading, split.total
    (Budget(epsilon=1.5, delta=1.5e-06), Budget(epsilon=3, delta=3e-06))
    >>> PCASplit.from_total(Budget(1.0, 1e-6), parts=("scree", "score")).score
    Budget(epsilon=0.5, delta=5e-07)
    """

    loading: Budget
    scree: Budget
    score: Budget
    scale: Budget = _UNUSED

    @classmethod
    def from_total(
        cls, total: Budget, split: Any = None, *, parts: Sequence[str] = DEFAULT_PARTS
    ) -> PCASplit:
        """Split ``total`` between the releases ``parts`` (a subset of :data:`PARTS`) by
        ``split``: None (:data:`DEFAULT_WEIGHTS` over ``parts``: a third each for the default
        three), a :class:`PCASplit`, or a dict keyed by exactly ``parts`` of shares (positive,
        summing to 1 within 1e-8, applied to epsilon and delta alike) or of absolute
        :class:`Budget` values (together at most the total). Every part needs epsilon > 0 and
        delta > 0; the releases not in ``parts`` get ``Budget(0, 0)``."""
        parts = tuple(part for part in PARTS if part in parts)
        if isinstance(split, PCASplit):
            split = {
                name: budget
                for name, budget in split.as_dict().items()
                if budget.epsilon or budget.delta
            }
        if split is None:
            weight = sum(DEFAULT_WEIGHTS[name] for name in parts)
            split = {name: DEFAULT_WEIGHTS[name] / weight for name in parts}
        if not isinstance(split, dict):
            raise TypeError(
                f"split must be a dict with keys {list(parts)} (shares summing to 1, or Budget "
                f"values) or a PCASplit; got {split!r}."
            )
        if set(split) != set(parts):
            raise ValueError(
                f"split must have exactly the keys {list(parts)} (the releases of this call); "
                f"got {sorted(split)}."
            )
        shared = total.split(**{name: split[name] for name in parts})
        for name, part in shared.items():
            if part.epsilon <= 0 or part.delta <= 0:
                raise ValueError(
                    f"split gives the {name} component {part!r}; every component needs "
                    "epsilon > 0 and delta > 0."
                )
        return cls.from_parts(shared)

    @classmethod
    def from_parts(cls, parts: dict[str, Budget]) -> PCASplit:
        """The split of the given ``parts`` (names from :data:`PARTS`); the others unused.

        Examples
        --------
        >>> PCASplit.from_parts({"loading": Budget(1.0, 1e-6)}).scree
        Budget(epsilon=0, delta=0)
        """
        return cls(**{name: parts.get(name, _UNUSED) for name in PARTS})

    def scaled(self, factor: float) -> PCASplit:
        """Every used part's epsilon times ``factor`` (its delta kept): the parts a tight
        composition plans with (see :func:`dppca.privacy.composition.tightest_factor`)."""
        return PCASplit(
            **{
                name: Budget(budget.epsilon * factor, budget.delta) if budget.epsilon else budget
                for name, budget in self.as_dict().items()
            }
        )

    def as_dict(self) -> dict[str, Budget]:
        """The parts by name, in release order (unused ones included, as ``Budget(0, 0)``)."""
        return {name: getattr(self, name) for name in PARTS}

    @property
    def total(self) -> Budget:
        """What the parts spend together, by basic composition."""
        return sum(self.as_dict().values(), Budget(0.0, 0.0))
