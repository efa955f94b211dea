"""How :func:`dppca.dp_pca` shares its total budget between its three releases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dppca.privacy.budget import Budget

#: The releases of the pipeline, in order.
PARTS = ("loading", "scree", "score")


@dataclass(frozen=True)
class PCASplit:
    """The budgets of the pipeline's releases: the directions (``loading``), the variances along
    them (``scree``) and the score plot (``score``: frame and histogram).

    Build it from the total with :meth:`from_total`; the parts together never exceed it.

    Examples
    --------
    >>> split = PCASplit.from_total(Budget(3.0, 3e-6), {"loading": 0.5, "scree": 0.25,
    ...                                                 "score": 0.25})
    >>> split.loading, split.total
    (Budget(epsilon=1.5, delta=1.5e-06), Budget(epsilon=3, delta=3e-06))
    """

    loading: Budget
    scree: Budget
    score: Budget

    @classmethod
    def from_total(cls, total: Budget, split: Any = None) -> PCASplit:
        """Split ``total`` by ``split``: None (a third each), a :class:`PCASplit`, or a dict with
        keys ``"loading"``, ``"scree"``, ``"score"`` of shares (positive, summing to 1 within
        1e-8, applied to epsilon and delta alike) or of absolute :class:`Budget` values
        (together at most the total). Every part needs epsilon > 0 and delta > 0."""
        if isinstance(split, PCASplit):
            split = split.as_dict()
        if split is None:
            split = {name: 1 / 3 for name in PARTS}
        if not isinstance(split, dict):
            raise TypeError(
                "split must be a dict with keys 'loading', 'scree', 'score' (shares summing to 1, "
                f"or Budget values) or a PCASplit; got {split!r}."
            )
        if set(split) != set(PARTS):
            raise ValueError(
                f"split must have exactly the keys {list(PARTS)}; got {sorted(split)}."
            )
        parts = total.split(**{name: split[name] for name in PARTS})
        for name, part in parts.items():
            if part.epsilon <= 0 or part.delta <= 0:
                raise ValueError(
                    f"split gives the {name} component {part!r}; every component needs "
                    "epsilon > 0 and delta > 0."
                )
        return cls(**parts)

    def as_dict(self) -> dict[str, Budget]:
        """The parts by name, in pipeline order."""
        return {name: getattr(self, name) for name in PARTS}

    @property
    def total(self) -> Budget:
        """What the parts spend together, by basic composition."""
        return sum(self.as_dict().values(), Budget(0.0, 0.0))
