"""Privacy budgets and the privacy ledger.

A :class:`Budget` is an (epsilon, delta) pair. A :class:`PrivacyLedger` records every release a
function makes, with the mechanism and the budget it spent; its :attr:`PrivacyLedger.total` is the
total by basic (sequential) composition, the sum of the epsilons and of the deltas
(Dwork and Roth 2014, Theorem 3.16).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

import numpy as np
import pandas as pd

from dppca._stack import user_stacklevel
from dppca._validation import check_positive_int, check_real
from dppca.exceptions import PrivacyWarning
from dppca.privacy.composition import COMPOSITIONS, PrivacyLoss, composed_delta


@dataclass(frozen=True)
class Budget:
    """An (epsilon, delta) differential-privacy budget.

    Parameters
    ----------
    epsilon : float
        Finite, >= 0.
    delta : float, default 0
        In [0, 1).

    Notes
    -----
    Budgets add by basic composition (``a + b``). ``a <= b`` holds when both parts of ``a`` are at
    most those of ``b``: budgets are partially ordered, so ``not a <= b`` does not imply ``b < a``.

    Examples
    --------
    >>> from dppca import Budget
    >>> total = Budget(1.0, 1e-6)
    >>> total.split(directions=0.5, rest=0.5)["rest"]
    Budget(epsilon=0.5, delta=5e-07)
    >>> Budget(0.3, 1e-7) + Budget(0.2, 0.0) <= total
    True
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "epsilon", check_real(self.epsilon, "epsilon", low=0.0, low_inclusive=True)
        )
        object.__setattr__(
            self,
            "delta",
            check_real(self.delta, "delta", low=0.0, high=1.0, low_inclusive=True),
        )

    def __add__(self, other: Budget) -> Budget:
        if not isinstance(other, Budget):
            return NotImplemented
        return Budget.compose([self, other])

    @staticmethod
    def compose(budgets: Sequence[Budget]) -> Budget:
        """Basic composition: the sums of the epsilons and of the deltas, each rounded up, so
        that the result is never below the exact sum (a charge covers its ledger entries).

        Examples
        --------
        >>> Budget.compose([Budget(0.1, 1e-7)] * 3)
        Budget(epsilon=0.3, delta=3e-07)
        """
        return Budget(_sum_up([b.epsilon for b in budgets]), _sum_up([b.delta for b in budgets]))

    def __le__(self, other: Budget) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self.epsilon <= other.epsilon and self.delta <= other.delta

    def __lt__(self, other: Budget) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self <= other and self != other

    def __ge__(self, other: Budget) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return other <= self

    def __gt__(self, other: Budget) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return other < self

    def split(self, **parts: float | Budget) -> dict[str, Budget]:
        """Divide this budget among named parts.

        Either every part is a share (a positive number; the shares sum to 1 within 1e-8, and
        each part gets that share of epsilon and of delta), or every part is an absolute
        :class:`Budget` (together at most this budget). Shares are rounded so that the parts never
        add up to more than the total.

        Examples
        --------
        >>> Budget(3.0, 3e-6).split(loading=1/3, scree=1/3, score=1/3)["scree"]
        Budget(epsilon=1, delta=1e-06)
        """
        if not parts:
            raise ValueError("split needs at least one named part, e.g. split(loading=0.5, ...).")
        values = list(parts.values())
        budgets = {name: value for name, value in parts.items() if isinstance(value, Budget)}
        if len(budgets) == len(parts):
            total = Budget.compose(list(budgets.values()))  # the exact sums, rounded up
            if not total <= self:
                raise ValueError(
                    f"The absolute budgets add up to {total!r}, more than the total {self!r}."
                )
            return budgets
        if any(isinstance(value, Budget) for value in values):
            raise TypeError(
                "split takes either all shares (numbers) or all Budget values, not both."
            )
        shares = [check_real(value, f"split[{name!r}]", low=0.0) for name, value in parts.items()]
        if abs(math.fsum(shares) - 1.0) > 1e-8:
            raise ValueError(
                f"split shares must be positive and sum to 1 (within 1e-8); got {dict(parts)} "
                f"(sum {math.fsum(shares):.10g})."
            )
        epsilons = split_epsilon(self.epsilon, shares)
        deltas = split_epsilon(self.delta, shares)
        return {
            name: Budget(epsilon, delta)
            for name, epsilon, delta in zip(parts, epsilons, deltas, strict=True)
        }

    def shared(self, count: int) -> Budget:
        """An equal share of this budget for each of ``count`` releases: ``(epsilon / count,
        delta / count)``, rounded down so that ``count`` of them never add up to more than this
        budget (basic composition).

        Examples
        --------
        >>> Budget(1.0, 1e-6).shared(3)
        Budget(epsilon=0.333333, delta=3.33333e-07)
        >>> Budget.compose([Budget(1.0, 1e-6).shared(3)] * 3) <= Budget(1.0, 1e-6)
        True
        """
        if check_positive_int(count, "count (the number of releases sharing it)") == 1:
            return self
        parts = [
            split_epsilon(value, [1.0 / count] * count) for value in (self.epsilon, self.delta)
        ]
        return Budget(min(parts[0]), min(parts[1]))

    def isclose(self, other: Budget, *, rel_tol: float = 1e-9) -> bool:
        """Whether both parts agree within ``rel_tol`` (for sums of floating-point shares)."""
        return math.isclose(self.epsilon, other.epsilon, rel_tol=rel_tol) and math.isclose(
            self.delta, other.delta, rel_tol=rel_tol, abs_tol=0.0
        )

    def __repr__(self) -> str:
        return f"Budget(epsilon={self.epsilon:.6g}, delta={self.delta:.6g})"


#: Above this epsilon a guarantee is weak: outputs may become ``e^10 > 22,000`` times as likely.
LARGE_EPSILON = 10.0


def weak_budget_notes(epsilon: float, delta: float, n: int) -> list[str]:
    """Why a budget gives little protection, from public values: ``epsilon > 10``, or
    ``delta >= 1/n`` (a mechanism that publishes one random row whole is (0, 1/n)-DP).

    Examples
    --------
    >>> weak_budget_notes(1.0, 1e-6, 1000)
    []
    >>> len(weak_budget_notes(20.0, 0.05, 50))
    2
    """
    notes = []
    if epsilon > LARGE_EPSILON:
        notes.append(
            f"epsilon={epsilon:g} is a weak guarantee: any output may become "
            f"{math.exp(min(epsilon, 700.0)):.3g} times as likely when one person's row changes."
        )
    if delta >= 1.0 / n:
        notes.append(
            f"delta={delta:g} >= 1/n = {1.0 / n:.3g} is a weak guarantee: it allows a release "
            "that publishes some person's row outright; use delta well below 1/n."
        )
    return notes


def warn_weak_budget(epsilon: float, delta: float, n: int) -> None:
    """Issue :func:`weak_budget_notes` as :class:`~dppca.exceptions.PrivacyWarning` (before any
    charge: public values only)."""
    for note in weak_budget_notes(epsilon, delta, n):
        warnings.warn(note, PrivacyWarning, stacklevel=user_stacklevel())


def check_repeated(budget: Budget, count: int, what: str) -> Budget:
    """The cost of ``count`` releases at ``budget`` each (basic composition), refused with the
    caller's names when the deltas add up to 1 or more."""
    if budget.delta * count >= 1.0:
        raise ValueError(
            f"delta={budget.delta:g} for each of the {count} {what} adds up to "
            f"{budget.delta * count:g}; the total must stay below 1."
        )
    return Budget.compose([budget] * count)


def _sum_up(values: list[float]) -> float:
    """The exact sum of ``values`` rounded up to a float."""
    exact = sum((Fraction(value) for value in values), Fraction(0))
    total = float(exact)
    return total if Fraction(total) >= exact else math.nextafter(total, math.inf)


def check_parts(parts: list[float], what: str) -> list[float]:
    """Refuse a split that leaves a part of zero (a subnormal total or a tiny share): every part
    of a release needs a positive budget. ``what`` names the caller's parameters.

    Examples
    --------
    >>> check_parts(split_epsilon(1.0, [0.25, 0.75]), "epsilon=1 and radius_share=0.25")
    [0.25, 0.75]
    """
    if min(parts) <= 0.0:
        raise ValueError(
            f"Splitting {what} leaves a part of the release with no budget (parts {parts}); use "
            "a larger epsilon (or delta) or a larger share."
        )
    return parts


def split_epsilon(total: float, shares: list[float]) -> list[float]:
    """Parts ``share * total`` whose exact (``math.fsum``) sum never exceeds ``total``.

    Used for epsilon and delta alike.

    Floating-point products (and shares that sum to slightly more than 1) can overshoot; the
    excess is taken from the last part at once, then the last part is nudged down an ulp at a
    time until the exact sum of the parts fits, so a split never spends more than it was given.
    """
    parts = [share * total for share in shares]
    excess = sum(Fraction(part) for part in parts) - Fraction(total)
    if excess > 0:
        parts[-1] = max(math.nextafter(parts[-1] - float(excess), 0.0), 0.0)
    while sum(Fraction(part) for part in parts) > Fraction(total):
        parts[-1] = math.nextafter(parts[-1], 0.0)
    return parts


#: What a ledger entry releases: summaries and JSON group entries by it, never by their names.
#: ``"loading"`` (directions and their radius), ``"scree"`` (variances and their tuning),
#: ``"score.frame"`` and ``"score.histogram"`` (the score plot), ``"frame"`` (:func:`dp_frame`
#: alone), ``"quantile"`` (:func:`dp_quantile`), ``"spend"`` (an accountant's charge) and
#: ``"baseline"`` (a competitor's release).
Component = Literal[
    "scale",
    "loading",
    "scree",
    "score.frame",
    "score.histogram",
    "frame",
    "quantile",
    "spend",
    "baseline",
]
COMPONENTS: tuple[str, ...] = get_args(Component)


@dataclass(frozen=True)
class LedgerEntry:
    """One private release: its name, the mechanism used, the budget it spent and its component.

    Examples
    --------
    >>> entry = LedgerEntry("scree: means", "Gaussian", 0.5, 1e-6, "scree")
    >>> entry.budget
    Budget(epsilon=0.5, delta=1e-06)
    """

    name: str
    mechanism: str
    epsilon: float
    delta: float
    component: str
    losses: tuple[PrivacyLoss, ...] = ()

    def __post_init__(self) -> None:
        if self.component not in COMPONENTS:
            raise ValueError(
                f"component must be one of {', '.join(COMPONENTS)}; got {self.component!r}."
            )

    @property
    def budget(self) -> Budget:
        """The entry's (epsilon, delta): the release's own guarantee."""
        return Budget(self.epsilon, self.delta)

    @property
    def privacy_losses(self) -> tuple[PrivacyLoss, ...]:
        """How the release (or charge) composes: its recorded losses, or its (epsilon, delta)
        as an approximate-DP loss (always valid, loose for Gaussian releases)."""
        return self.losses or budget_losses(self.budget)


def _describe(entry: LedgerEntry) -> str:
    """An entry's privacy losses in words (its recorded ones, or its (epsilon, delta))."""
    return "; ".join(loss.describe() for loss in entry.privacy_losses)


def budget_losses(budget: Budget) -> tuple[PrivacyLoss, ...]:
    """An (epsilon, delta) guarantee as a privacy loss: approximate DP, or pure when delta is
    0 (valid for any release with that guarantee)."""
    if budget.delta > 0:
        return (PrivacyLoss("approximate", epsilon=budget.epsilon, delta=budget.delta),)
    return (PrivacyLoss("pure", epsilon=budget.epsilon),)


class PrivacyLedger:
    """The record of every private release a computation made.

    Entries are appended with :meth:`record` and never removed. With ``composition="basic"``
    :attr:`total` composes them sequentially (sums of epsilons and deltas). With
    ``composition="tight"`` each entry's (epsilon, delta) is that release's own guarantee, and
    the entries do not add up: :attr:`total` is their composition by privacy losses
    (:mod:`dppca.privacy.composition`) at ``target_epsilon`` (the call's total epsilon, or the
    entries' summed epsilon if smaller, as for one component).

    Examples
    --------
    >>> from dppca import PrivacyLedger, Budget
    >>> ledger = PrivacyLedger()
    >>> _ = ledger.record("directions", "Gaussian", Budget(0.5, 1e-6), "loading")
    >>> _ = ledger.record("histogram", "Gaussian", Budget(0.3, 1e-6), "score.histogram")
    >>> ledger.total, ledger.select("score.histogram").total
    (Budget(epsilon=0.8, delta=2e-06), Budget(epsilon=0.3, delta=1e-06))
    """

    def __init__(
        self,
        entries: list[LedgerEntry] | None = None,
        *,
        composition: str = "basic",
        target_epsilon: float | None = None,
    ) -> None:
        self._entries: list[LedgerEntry] = list(entries or [])
        if composition not in COMPOSITIONS:
            raise ValueError(
                f"composition must be one of {', '.join(COMPOSITIONS)}; got {composition!r}."
            )
        if composition == "tight" and target_epsilon is None:
            raise ValueError('composition="tight" needs the target_epsilon of the total.')
        self.composition = composition
        self.target_epsilon = target_epsilon

    @classmethod
    def for_total(cls, total_epsilon: float, composition: str) -> PrivacyLedger:
        """An empty ledger for a call (or an accountant) whose total epsilon is
        ``total_epsilon``: tight ledgers compose their entries at it, basic ones add them up."""
        target = total_epsilon if composition == "tight" else None
        return cls(composition=composition, target_epsilon=target)

    def record(
        self,
        name: str,
        mechanism: str,
        budget: Budget,
        component: Component,
        losses: tuple[PrivacyLoss, ...] = (),
    ) -> LedgerEntry:
        """Append a release of ``component`` (one of :data:`COMPONENTS`), with its own
        guarantee ``budget`` and its privacy ``losses``, and return its entry."""
        entry = LedgerEntry(
            str(name), str(mechanism), budget.epsilon, budget.delta, component, tuple(losses)
        )
        self._entries.append(entry)
        return entry

    def extend(self, other: PrivacyLedger) -> None:
        """Append every entry of ``other`` (releases made by a sub-computation on the same data)."""
        self._entries.extend(other.entries)

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        """The entries, in the order they were recorded."""
        return tuple(self._entries)

    @property
    def total(self) -> Budget:
        """Total spent: by basic composition the exact sums of the entries, rounded up; by
        tight composition the composed delta at the target epsilon (see the class)."""
        if self.composition == "basic" or not self._entries:
            return Budget.compose([entry.budget for entry in self._entries])
        assert self.target_epsilon is not None  # checked in __init__
        summed_epsilon = _sum_up([entry.epsilon for entry in self._entries])
        epsilon = min(self.target_epsilon, summed_epsilon)
        delta = composed_delta(self.losses, epsilon)
        if epsilon >= summed_epsilon:  # basic composition bounds it too
            delta = min(delta, _sum_up([entry.delta for entry in self._entries]))
        return Budget(epsilon, delta)

    @property
    def losses(self) -> list[PrivacyLoss]:
        """Every entry's privacy losses: its recorded ones, or its (epsilon, delta)."""
        return [loss for entry in self._entries for loss in entry.privacy_losses]

    @property
    def mu(self) -> float | None:
        """The entries' Gaussian-DP parameter when every release is a continuous Gaussian
        mechanism: ``sqrt(sum mu_i^2)`` (Dong, Roth and Su 2022); None otherwise."""
        losses = self.losses
        if not losses or any(loss.kind != "gaussian" for loss in losses):
            return None
        return math.sqrt(math.fsum(loss.mu**2 for loss in losses))

    def delta_curve(self, epsilons: Sequence[float]) -> np.ndarray:
        """The spent guarantee as a whole curve: for each epsilon the smallest delta of the
        entries' composition by privacy losses (tight), or the sums' delta where epsilon covers
        the summed epsilon and 1 below it (basic).

        Examples
        --------
        >>> from dppca.privacy.composition import PrivacyLoss
        >>> ledger = PrivacyLedger(composition="tight", target_epsilon=1.0)
        >>> for name in ("a", "b"):
        ...     _ = ledger.record(name, "Gaussian", Budget(1.0, 1e-6), "loading",
        ...                       (PrivacyLoss("gaussian", mu=0.3),))
        >>> round(ledger.mu, 4), ledger.delta_curve([0.5, 1.0, 2.0]).round(8).tolist()
        (0.4243, [0.03145706, 0.00212477, 2.7e-07])
        """
        if self.composition == "basic":
            spent = self.total
            return np.array([spent.delta if e >= spent.epsilon else 1.0 for e in epsilons])
        losses = self.losses
        return np.array([composed_delta(losses, float(e)) for e in epsilons])

    def select(self, *components: str) -> PrivacyLedger:
        """A ledger of the entries of the given components (composed the same way)."""
        return PrivacyLedger(
            [e for e in self._entries if e.component in components],
            composition=self.composition,
            target_epsilon=self.target_epsilon,
        )

    def to_frame(self) -> pd.DataFrame:
        """The entries as a DataFrame with columns name, mechanism, epsilon, delta, component
        and privacy loss (how the release composes, in words)."""
        return pd.DataFrame(
            [
                (e.name, e.mechanism, e.epsilon, e.delta, e.component, _describe(e))
                for e in self._entries
            ],
            columns=["name", "mechanism", "epsilon", "delta", "component", "privacy loss"],
        )

    def budget_table(self) -> pd.DataFrame:
        """Epsilon, delta and privacy loss of every release (index: its name) and their total
        (tight: the composition of the privacy losses at the total epsilon; basic: the sums)."""
        total = self.total
        rule = "composed (tight)" if self.composition == "tight" else "sums (basic composition)"
        rows = [(e.epsilon, e.delta, _describe(e)) for e in self._entries]
        return pd.DataFrame(
            [*rows, (total.epsilon, total.delta, rule)],
            index=[*(e.name for e in self._entries), "Total"],
            columns=["epsilon", "delta", "privacy loss"],
        )

    def _repr_html_(self) -> str:
        from dppca._html import card

        total = self.total
        facts = [("total", f"epsilon = {total.epsilon:.4g}, delta = {total.delta:.4g}")]
        return card(f"Privacy ledger ({len(self)} releases)", facts, [("", self.budget_table())])

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        lines = [f"PrivacyLedger({len(self)} release(s), total {self.total!r})"]
        lines += [
            f"  {e.name}: {e.mechanism}, epsilon={e.epsilon:.6g}, delta={e.delta:.6g}"
            for e in self._entries
        ]
        return "\n".join(lines)
