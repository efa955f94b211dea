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

import os
import threading
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dppca._stack import user_stacklevel
from dppca.exceptions import BudgetExceededError, DetachedAccountantError, PrivacyWarning
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

    Notes
    -----
    **Threads and processes.** An accountant is one budget: copies in the same process
    (``copy``, ``deepcopy``, scikit-learn's ``clone``) are the same object, and a charge (its
    check and its record) is one step under a lock, so threads sharing it cannot overspend
    together. Another process cannot reach it: a pickled copy (``GridSearchCV(n_jobs=2)`` and
    other joblib workers, a saved and loaded model) is a :class:`DetachedAccountant`, which
    refuses every charge with :class:`~dppca.exceptions.DetachedAccountantError` before
    anything is released. Run such searches in one process (``n_jobs=1``), or give each worker
    an accountant of its own.
    """

    def __init__(self, total: Budget, composition: str | None = None) -> None:
        if not isinstance(total, Budget):
            raise TypeError(f"total must be a Budget; got {type(total).__name__}.")
        composition = resolve_composition(composition)
        self.total = total
        self.composition = composition
        self.ledger = PrivacyLedger.for_total(total.epsilon, composition)
        self._calls: Counter[str] = Counter()
        self._lock = threading.RLock()
        self._process = os.getpid()

    def __reduce__(self) -> tuple[Any, ...]:
        """A pickled accountant is a :class:`DetachedAccountant`: it cannot charge this one."""
        return (DetachedAccountant, (self.total, self.composition, self.spent))

    def calls(self, name: str) -> int:
        """How many calls named ``name`` (``"dp_pca"``, ``"DPPCA.fit"``) were charged."""
        return self._calls[name]

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
        :meth:`Budget.split` always fit); tight, those sums or the composed delta of every
        charge (this one by its ``losses``, or its budget) at the total epsilon, whichever
        fits (each bounds the charges together, as the ledger's total takes the smaller). A
        single charge of exactly the total always fits."""
        return self.can_spend_all([(budget, losses)])

    def can_spend_all(self, charges: Sequence[tuple[Budget, Sequence[PrivacyLoss]]]) -> bool:
        """Whether every charge ``(budget, losses)`` fits, each counted as :meth:`can_spend`
        counts one."""
        budgets = [entry.budget for entry in self.ledger.entries] + [b for b, _ in charges]
        epsilon = sum((Fraction(b.epsilon) for b in budgets), Fraction(0))
        delta = sum((Fraction(b.delta) for b in budgets), Fraction(0))
        if epsilon <= Fraction(self.total.epsilon) and delta <= Fraction(self.total.delta):
            return True
        if self.composition == "tight":
            new = [loss for budget, losses in charges for loss in (losses or budget_losses(budget))]
            return composed_delta(self.ledger.losses + new, self.total.epsilon) <= self.total.delta
        return False

    def require(
        self, budget: Budget, name: str | None = None, losses: Sequence[PrivacyLoss] = ()
    ) -> None:
        """Raise :class:`BudgetExceededError` unless a charge fits (:meth:`can_spend`);
        records nothing."""
        if not isinstance(budget, Budget):
            raise TypeError(f"budget must be a Budget; got {type(budget).__name__}.")
        if os.getpid() != self._process:  # a forked child's copy, never pickled
            raise DetachedAccountantError(
                "This accountant was copied into a forked process (multiprocessing, a pool "
                "worker): it cannot charge its owner's budget, so it refuses "
                f"{name or 'this charge'} before anything is released. Charge the accountant in "
                "the process that made it (n_jobs=1), or give the child one of its own."
            )
        if not self.can_spend(budget, losses):
            spent = "" if self.composition == "tight" else f" and {self.remaining!r} remains"
            raise BudgetExceededError(
                f"Spending {budget!r}{'' if name is None else f' on {name}'} would exceed the "
                f"total {self.total!r} ({self.composition} composition): {self.spent!r} is "
                f"spent{spent}."
            )

    def spend(
        self, budget: Budget, name: str | None = None, losses: Sequence[PrivacyLoss] = ()
    ) -> LedgerEntry:
        """Record a charge of ``budget`` (with its releases' ``losses`` when they were planned
        tightly), or raise :class:`BudgetExceededError` (recording nothing)."""
        with self._lock:  # the check and the record, as one step for every thread
            self.require(budget, name, losses)
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


class DetachedAccountant(Accountant):
    """An :class:`Accountant` copied into another process by pickling: its total, composition
    and what had been spent when it was copied, for reading; every charge is refused with
    :class:`~dppca.exceptions.DetachedAccountantError` (it cannot reach its owner's budget).

    Examples
    --------
    >>> import pickle
    >>> from dppca import Accountant, Budget
    >>> copy = pickle.loads(pickle.dumps(Accountant(Budget(1.0, 1e-6))))
    >>> type(copy).__name__, copy.spent_when_copied
    ('DetachedAccountant', Budget(epsilon=0, delta=0))
    """

    def __init__(self, total: Budget, composition: str, spent: Budget) -> None:
        super().__init__(total, composition)
        self.spent_when_copied = spent

    @property
    def spent(self) -> Budget:
        """What had been spent when the copy was made (a copy charges nothing)."""
        return self.spent_when_copied

    def can_spend_all(self, charges: Sequence[tuple[Budget, Sequence[PrivacyLoss]]]) -> bool:
        """Never: a copy cannot charge its owner's budget."""
        return False

    def __reduce__(self) -> tuple[Any, ...]:
        return (DetachedAccountant, (self.total, self.composition, self.spent_when_copied))

    def require(
        self, budget: Budget, name: str | None = None, losses: Sequence[PrivacyLoss] = ()
    ) -> None:
        """Refuse: a copy in another process cannot charge its owner's budget."""
        raise DetachedAccountantError(
            "This accountant is a copy made by pickling (a GridSearchCV(n_jobs=...) or joblib "
            "worker in another process, or a model saved and loaded): it cannot charge its "
            f"owner's budget, so it refuses {name or 'this charge'} before anything is "
            "released. Run the search in one process (n_jobs=1), where every fit charges the "
            "one accountant, or give this copy an Accountant of its own (a part of the total)."
        )

    def __repr__(self) -> str:
        return (
            f"DetachedAccountant(total={self.total!r}, spent when copied="
            f"{self.spent_when_copied!r}): refuses every charge"
        )


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
    accountant._calls[name] += 1


def warn_refits(accountant: Accountant | None, name: str) -> None:
    """After a call's charge: when ``accountant`` has been charged by more than one call named
    ``name`` (an estimator refitted, as a grid search does), a
    :class:`~dppca.exceptions.PrivacyWarning`, at the caller's line, says how many and what
    they spent in total."""
    if accountant is None or accountant.calls(name) < 2:
        return
    spent = accountant.spent
    warnings.warn(
        f"{accountant.calls(name)} calls of {name} have been charged to this accountant, "
        f"epsilon={spent.epsilon:.4g}, delta={spent.delta:.4g} in total "
        f"({accountant.composition} composition): every fit spends its budget again, so a "
        "search that refits (GridSearchCV: folds x candidates + 1 fits) spends them all, and "
        "its choice from validation scores computed without noise is not private.",
        PrivacyWarning,
        stacklevel=user_stacklevel(),
    )


class StagedCharge:
    """One call's charge, made in stages where the accountant composes as the call does: the
    whole is checked first, as one charge (a call the accountant cannot afford is refused
    before anything), then each stage is charged just before its releases, so a call that
    stops after a stage (on a released value) has spent only the stages before.

    The stages are charged one by one when they compose in the accountant exactly as in the
    call: a tight accountant and a tight call (the stages' losses compose to the call's), or
    a basic accountant and a basic call (the stages' budgets, parts of the total, add up to at
    most the total). Otherwise the total is charged whole, as one charge, with the first stage
    (a basic accountant would add up a tight call's parts, each above its share of epsilon,
    past the total; a tight one would compose a basic call's parts below the call's own
    total).

    The check and the charges are not one atomic step: two calls charging one accountant from
    two threads at once may see the later stage of one refused after its first was released
    (it is then not charged, and nothing after it is released).

    Parameters
    ----------
    accountant : Accountant or None
        Nothing is charged without one.
    total : Budget
        What the call spends, composed as the call composes.
    name : str
        The call's name; each staged charge is named ``"{name}: {stage}"``.
    stages : dict of str to (Budget, sequence of PrivacyLoss)
        Each stage's own guarantee and its releases' privacy losses (empty unless the call
        composes tightly), in the order they are charged.
    composition : {"tight", "basic"}
        How the call composes its stages.

    Examples
    --------
    >>> from dppca import Accountant, Budget
    >>> total = Budget(1.0, 1e-6)
    >>> parts = total.split(scales=0.25, rest=0.75)  # parts that fit the total exactly
    >>> accountant = Accountant(total, composition="basic")
    >>> staged = StagedCharge(accountant, total, "dp_pca",
    ...                       {name: (part, ()) for name, part in parts.items()}, "basic")
    >>> staged.pay("scales")
    >>> accountant.spent
    Budget(epsilon=0.25, delta=2.5e-07)
    >>> staged.pay()  # every stage not yet paid
    >>> [entry.name for entry in accountant.ledger]
    ['dp_pca: scales', 'dp_pca: rest']
    """

    def __init__(
        self,
        accountant: Accountant | None,
        total: Budget,
        name: str,
        stages: Mapping[str, tuple[Budget, Sequence[PrivacyLoss]]],
        composition: str,
    ) -> None:
        losses = [loss for _, stage_losses in stages.values() for loss in stage_losses]
        self.staged = True
        if accountant is not None:
            if not isinstance(accountant, Accountant):
                raise TypeError(
                    f"accountant must be a dppca.Accountant or None; got {accountant!r}."
                )
            accountant.require(total, name, losses)  # the whole, as one charge would be
            self.staged = accountant.composition == composition and accountant.can_spend_all(
                list(stages.values())
            )
            accountant._calls[name] += 1
        self.accountant = accountant
        self.total, self.name, self.losses = total, name, losses
        self._unpaid = dict(stages)
        self._whole_paid = False

    def pay(self, stage: str | None = None) -> None:
        """Charge ``stage``, or every stage not yet charged (in order)."""
        for label in [stage] if stage is not None else list(self._unpaid):
            budget, losses = self._unpaid.pop(label)
            if self.accountant is None:
                continue
            if self.staged:
                self.accountant.spend(budget, f"{self.name}: {label}", losses)
            elif not self._whole_paid:
                self.accountant.spend(self.total, self.name, self.losses)
                self._whole_paid = True
