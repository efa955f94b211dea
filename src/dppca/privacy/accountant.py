"""A privacy accountant: a total budget that releases draw from.

Every ``dp_*`` function accepts ``accountant=``: after validating its inputs and before drawing
any noise it charges the accountant with the cost of its releases, and the accountant refuses
(with :class:`~dppca.exceptions.BudgetExceededError`, recording nothing) any charge that would
take the total over its limit. With ``composition="tight"`` (the default) the charges compose
by their privacy losses (:mod:`dppca.privacy.composition`): a call that plans its releases
tightly charges their losses, any other charge its (epsilon, delta); with ``"basic"`` the
charges' epsilons and deltas add up.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dppca.exceptions import BudgetExceededError
from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger, budget_losses
from dppca.privacy.composition import PrivacyLoss, composed_delta, resolve_composition


class Accountant:
    """Tracks spending against a total (epsilon, delta) budget.

    Parameters
    ----------
    total : Budget
        The most that may be spent.
    composition : {"tight", "basic"} or None, default None (tight)
        How the charges compose: by their privacy losses (a charge made without them counts
        as its (epsilon, delta)), or by adding epsilons and deltas.

    Examples
    --------
    >>> from dppca.privacy.composition import PrivacyLoss
    >>> from dppca import Accountant, Budget
    >>> accountant = Accountant(Budget(1.0, 1e-6), composition="basic")
    >>> _ = accountant.spend(Budget(0.4, 5e-7), name="directions")
    >>> accountant.remaining
    Budget(epsilon=0.6, delta=5e-07)
    >>> tight = Accountant(Budget(1.0, 1e-6))
    >>> gaussian = PrivacyLoss("gaussian", mu=0.1)
    >>> _ = [tight.spend(Budget(1.0, 1e-6), f"release {j}", [gaussian]) for j in range(3)]
    >>> round(tight.mu, 4)  # three 0.1-GDP releases are sqrt(3) 0.1-GDP
    0.1732
    """

    def __init__(self, total: Budget, composition: str | None = None) -> None:
        if not isinstance(total, Budget):
            raise TypeError(f"total must be a Budget; got {type(total).__name__}.")
        composition = resolve_composition(composition)
        self.total = total
        self.composition = composition
        self.ledger = PrivacyLedger.for_total(total.epsilon, composition)

    @property
    def spent(self) -> Budget:
        """What the charges spend together: their sums (basic), or the composed delta at the
        total epsilon (tight)."""
        return self.ledger.total

    @property
    def remaining(self) -> Budget:
        """What is left of the total (0 where a part is used up), by basic composition only:
        tight compositions do not subtract (use :meth:`can_spend`)."""
        if self.composition == "tight":
            raise ValueError(
                'remaining is defined for composition="basic": a tight composition of losses '
                "has no budget left over to split; ask can_spend(...) instead."
            )
        spent = self.spent
        return Budget(
            max(self.total.epsilon - spent.epsilon, 0.0), max(self.total.delta - spent.delta, 0.0)
        )

    @property
    def mu(self) -> float | None:
        """The charges' Gaussian-DP parameter (see :attr:`PrivacyLedger.mu`)."""
        return self.ledger.mu

    def delta_curve(self, epsilons: Sequence[float]) -> np.ndarray:
        """The spent guarantee as a whole curve (see :meth:`PrivacyLedger.delta_curve`)."""
        return self.ledger.delta_curve(epsilons)

    def can_spend(self, budget: Budget, losses: Sequence[PrivacyLoss] = ()) -> bool:
        """Whether a charge fits: basic, the exact sums (no rounding, no slack: parts from
        :meth:`Budget.split` always fit); tight, the composed delta of every charge (this one
        by its ``losses``, or its budget) at the total epsilon."""
        if self.composition == "tight":
            new = list(losses) or list(budget_losses(budget))
            return composed_delta(self.ledger.losses + new, self.total.epsilon) <= self.total.delta
        budgets = [entry.budget for entry in self.ledger.entries] + [budget]
        epsilon = sum((Fraction(b.epsilon) for b in budgets), Fraction(0))
        delta = sum((Fraction(b.delta) for b in budgets), Fraction(0))
        return epsilon <= Fraction(self.total.epsilon) and delta <= Fraction(self.total.delta)

    def spend(
        self, budget: Budget, name: str | None = None, losses: Sequence[PrivacyLoss] = ()
    ) -> LedgerEntry:
        """Record a charge of ``budget`` (with its releases' ``losses`` when they were planned
        tightly), or raise :class:`BudgetExceededError` (recording nothing)."""
        if not isinstance(budget, Budget):
            raise TypeError(f"budget must be a Budget; got {type(budget).__name__}.")
        if not self.can_spend(budget, losses):
            spent = "" if self.composition == "tight" else f" and {self.remaining!r} remains"
            raise BudgetExceededError(
                f"Spending {budget!r}{'' if name is None else f' on {name}'} would exceed the "
                f"total {self.total!r} ({self.composition} composition): {self.spent!r} is "
                f"spent{spent}."
            )
        label = name if name is not None else f"spend {len(self.ledger) + 1}"
        kept = tuple(losses) if self.composition == "tight" else ()
        return self.ledger.record(label, "as charged", budget, "spend", kept)

    def __copy__(self) -> Accountant:
        """An accountant is one shared budget: copies (``copy``, ``deepcopy``, scikit-learn's
        ``clone`` of an estimator holding it) are the same object, so no spend escapes it."""
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Accountant:
        return self

    def __repr__(self) -> str:
        return (
            f"Accountant(total={self.total!r}, spent={self.spent!r}, "
            f"composition={self.composition!r})"
        )

    def _repr_html_(self) -> str:
        """The total, what is spent (and mu where it applies) and every charge, for notebooks."""
        from dppca._html import card

        spent = self.spent
        facts = [
            ("total", f"epsilon = {self.total.epsilon:.4g}, delta = {self.total.delta:.4g}"),
            ("spent", f"epsilon = {spent.epsilon:.4g}, delta = {spent.delta:.4g}"),
            ("composition", self.composition),
        ]
        if self.mu is not None:
            facts.append(("Gaussian DP", f"mu = {self.mu:.4g}"))
        tables = [("Charges", self.ledger.budget_table())] if len(self.ledger) else []
        return card(f"Privacy accountant ({len(self.ledger)} charges)", facts, tables)


def charge(
    accountant: Accountant | None,
    cost: Budget,
    name: str,
    losses: Sequence[PrivacyLoss] | None = None,
) -> None:
    """Charge ``cost`` to ``accountant`` if one was given (called before any noise is drawn),
    with the releases' ``losses`` when they were planned tightly."""
    if accountant is None:
        return
    if not isinstance(accountant, Accountant):
        raise TypeError(f"accountant must be a dppca.Accountant or None; got {accountant!r}.")
    accountant.spend(cost, name=name, losses=losses or ())
