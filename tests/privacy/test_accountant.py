"""Every dp_* function charges an accountant with exactly what its ledger records."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dppca import (
    Accountant,
    Budget,
    BudgetExceededError,
    dp_frame,
    dp_loading,
    dp_pca,
    dp_quantile,
    dp_score,
    dp_scree,
)

X = np.random.default_rng(0).standard_normal((4000, 3)) * [3.0, 2.0, 1.0]
CALLS = {
    "dp_loading": lambda acc: dp_loading(X, 0.5, 1e-6, accountant=acc, random_state=0),
    "dp_quantile": lambda acc: dp_quantile(X[:, 0], 0.5, 0.3, accountant=acc, random_state=0),
    "dp_frame": lambda acc: dp_frame(X[:, :2], 0.4, accountant=acc, random_state=0),
    "dp_score": lambda acc: dp_score(
        X,
        0.6,
        1e-6,
        bins=5,
        loading_epsilon=0.5,
        loading_delta=1e-6,
        accountant=acc,
        random_state=0,
    ),
    "dp_scree": lambda acc: dp_scree(
        X, 3, 0.6, 1e-6, loading_epsilon=0.5, loading_delta=1e-6, accountant=acc, random_state=0
    ),
    "dp_pca": lambda acc: dp_pca(X, 1.5, 3e-6, bins=5, accountant=acc, random_state=0),
}


@pytest.mark.parametrize("name", CALLS)
def test_charge_equals_the_ledger_total(name):
    accountant = Accountant(Budget(10.0, 1e-4))
    result = CALLS[name](accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger.entries[0].name == name
    assert accountant.spent.isclose(result.privacy.total)
    assert result.privacy.total <= Budget(accountant.spent.epsilon * (1 + 1e-12), 1e-4)


@pytest.mark.parametrize("name", CALLS)
def test_refusal_records_nothing(name):
    accountant = Accountant(Budget(0.1, 1e-9))
    with pytest.raises(BudgetExceededError):
        CALLS[name](accountant)
    assert len(accountant.ledger) == 0


def test_spending_is_compared_exactly_with_no_slack():
    from dppca import Accountant, Budget, BudgetExceededError

    accountant = Accountant(Budget(1.0, 1e-6), composition="basic")
    with pytest.raises(BudgetExceededError):
        accountant.spend(Budget(1.0 + 9e-13, 1e-6))
    parts = Budget(1.0, 1e-6).split(a=0.3, b=0.3, c=0.4)
    for part in parts.values():  # a split always fits, to the last bit
        accountant.spend(part)
    assert not accountant.can_spend(Budget(5e-324, 0.0))


def test_splits_with_shares_just_over_one_are_fast_and_fit():
    import time

    from dppca import Budget

    start = time.perf_counter()
    parts = Budget(1.0, 1e-6).split(a=0.5, b=0.5 + 9e-9)
    assert time.perf_counter() - start < 0.5
    total = sum(Fraction(part.epsilon) for part in parts.values())
    assert total <= 1 and float(total) == pytest.approx(1.0, rel=1e-8)
