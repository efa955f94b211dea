"""A privacy accountant: a total budget that releases draw from, by basic composition.

Every ``dp_*`` function accepts ``accountant=``: after validating its inputs and before drawing
any noise it charges the accountant with the full cost of its releases, and the accountant
refuses (with :class:`~dppca.exceptions.BudgetExceededError`, recording nothing) any spend that
would take the total over its limit.
"""

from __future__ import annotations

from fractions import Fraction

from dppca.exceptions import BudgetExceededError
from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger


class Accountant:
    """Tracks spending against a total (epsilon, delta) budget.

    Parameters
    ----------
    total : Budget
        The most that may be spent, summed over all spends (basic composition).

    Examples
    --------
    >>> accountant = Accountant(Budget(1.0, 1e-6))
    >>> _ = accountant.spend(Budget(0.4, 5e-7), name="directions")
    >>> accountant.remaining
    Budget(epsilon=0.6, delta=5e-07)
    """

    def __init__(self, total: Budget) -> None:
        if not isinstance(total, Budget):
            raise TypeError(f"total must be a Budget; got {type(total).__name__}.")
        self.total = total
        self.ledger = PrivacyLedger()

    @property
    def spent(self) -> Budget:
        """What the recorded spends add up to (basic composition)."""
        return self.ledger.total

    @property
    def remaining(self) -> Budget:
        """What is left of the total (0 where a part is used up)."""
        spent = self.spent
        return Budget(
            max(self.total.epsilon - spent.epsilon, 0.0), max(self.total.delta - spent.delta, 0.0)
        )

    def can_spend(self, budget: Budget) -> bool:
        """Whether ``budget`` fits in what remains, compared exactly (the sums of the binary
        values, no rounding, no slack): parts from :meth:`Budget.split` always fit."""
        budgets = [entry.budget for entry in self.ledger.entries] + [budget]
        epsilon = sum((Fraction(b.epsilon) for b in budgets), Fraction(0))
        delta = sum((Fraction(b.delta) for b in budgets), Fraction(0))
        return epsilon <= Fraction(self.total.epsilon) and delta <= Fraction(self.total.delta)

    def spend(self, budget: Budget, name: str | None = None) -> LedgerEntry:
        """Record a spend, or raise :class:`BudgetExceededError` (recording nothing)."""
        if not isinstance(budget, Budget):
            raise TypeError(f"budget must be a Budget; got {type(budget).__name__}.")
        if not self.can_spend(budget):
            raise BudgetExceededError(
                f"Spending {budget!r}{'' if name is None else f' on {name}'} would exceed the "
                f"total {self.total!r}: {self.spent!r} is spent and {self.remaining!r} remains."
            )
        label = name if name is not None else f"spend {len(self.ledger) + 1}"
        return self.ledger.record(label, "as charged", budget, "spend")

    def __copy__(self) -> Accountant:
        """An accountant is one shared budget: copies (``copy``, ``deepcopy``, scikit-learn's
        ``clone`` of an estimator holding it) are the same object, so no spend escapes it."""
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Accountant:
        return self

    def __repr__(self) -> str:
        return f"Accountant(total={self.total!r}, spent={self.spent!r})"


def charge(accountant: Accountant | None, cost: Budget, name: str) -> None:
    """Charge ``cost`` to ``accountant`` if one was given (called before any noise is drawn)."""
    if accountant is None:
        return
    if not isinstance(accountant, Accountant):
        raise TypeError(f"accountant must be a dppca.Accountant or None; got {accountant!r}.")
    accountant.spend(cost, name=name)
