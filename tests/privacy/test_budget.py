"""Budget values and the privacy ledger."""

from __future__ import annotations

import math

import pytest

from dppca import Budget, PrivacyLedger


def test_budget_arithmetic_and_order():
    a, b = Budget(0.5, 1e-6), Budget(0.25, 0.0)
    assert a + b == Budget(0.75, 1e-6)
    assert b <= a and b < a and a >= b and a > b
    assert not Budget(1.0, 0.0) <= Budget(0.5, 1e-6)
    assert not Budget(0.5, 1e-6) <= Budget(1.0, 0.0)  # a partial order
    assert Budget(1.0).delta == 0.0
    assert repr(a) == "Budget(epsilon=0.5, delta=1e-06)"
    assert (Budget(0.1) + Budget(0.2)).isclose(Budget(0.3))


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((-0.1, 0.0), ValueError, "epsilon must be >= 0"),
        ((float("inf"), 0.0), ValueError, "epsilon must be finite"),
        ((1.0, 1.0), ValueError, "delta must be < 1"),
        ((1.0, -1e-9), ValueError, "delta must be >= 0"),
        (("1", 0.0), TypeError, "epsilon must be a real number"),
    ],
)
def test_budget_errors(args, error, message):
    with pytest.raises(error, match=message):
        Budget(*args)


def test_ledger_records_and_totals():
    ledger = PrivacyLedger()
    assert ledger.total == Budget(0.0, 0.0)
    ledger.record("radius", "Durfee", Budget(0.1), "loading")
    ledger.record("matrix", "Gaussian", Budget(0.9, 1e-6), "loading")
    ledger.record("cells", "Gaussian", Budget(0.5, 1e-6), "score.histogram")
    assert len(ledger) == 3
    # The floats 0.1 + 0.9 + 0.5 add up to a little more than 1.5: the total rounds up.
    assert ledger.total == Budget(math.nextafter(1.5, 2.0), 2e-6)
    assert ledger.select("loading").total == Budget(math.nextafter(1.0, 2.0), 1e-6)
    assert ledger.select("score.histogram").total == Budget(0.5, 1e-6)
    assert [entry.name for entry in ledger.select("score.histogram")] == ["cells"]
    assert [entry.name for entry in ledger] == ["radius", "matrix", "cells"]
    frame = ledger.to_frame()
    columns = ["name", "mechanism", "epsilon", "delta", "component", "privacy loss"]
    assert list(frame.columns) == columns
    assert frame["epsilon"].tolist() == [0.1, 0.9, 0.5]
    # Entries recorded without losses compose by their (epsilon, delta).
    assert frame["privacy loss"].tolist() == [
        "epsilon = 0.1 (pure DP)",
        "(epsilon, delta) = (0.9, 1e-06)",
        "(epsilon, delta) = (0.5, 1e-06)",
    ]
    assert "total Budget(epsilon=1.5, delta=2e-06)" in repr(ledger)  # shown rounded
    assert ledger.entries[1].budget == Budget(0.9, 1e-6)
    with pytest.raises(AttributeError):
        ledger.entries[0].epsilon = 5.0


def test_ledger_refuses_an_unknown_component():
    with pytest.raises(ValueError, match="component must be one of scale, loading, scree"):
        PrivacyLedger().record("radius", "Durfee", Budget(0.1), "loadings")


def test_split_by_shares_never_exceeds_the_total():
    import math

    total = Budget(1.0, 1e-5)
    parts = total.split(loading=1 / 3, scree=1 / 3, score=1 / 3)
    assert list(parts) == ["loading", "scree", "score"]
    assert math.fsum(p.epsilon for p in parts.values()) <= 1.0
    assert math.fsum(p.delta for p in parts.values()) <= 1e-5
    assert parts["scree"].isclose(Budget(1 / 3, 1e-5 / 3))
    for shares in ([0.1, 0.2, 0.7], [0.7, 0.2, 0.1], [1 / 7, 2 / 7, 4 / 7]):
        budget = Budget(0.3, 3e-7)
        parts = budget.split(a=shares[0], b=shares[1], c=shares[2])
        assert math.fsum(p.epsilon for p in parts.values()) <= 0.3
        assert math.fsum(p.delta for p in parts.values()) <= 3e-7


def test_split_by_absolute_budgets_and_errors():
    total = Budget(1.0, 1e-5)
    parts = total.split(a=Budget(0.5, 5e-6), b=Budget(0.5, 5e-6))
    assert parts["b"] == Budget(0.5, 5e-6)
    with pytest.raises(ValueError, match="more than the total"):
        total.split(a=Budget(0.8), b=Budget(0.3))
    with pytest.raises(ValueError, match="sum to 1"):
        total.split(a=0.5, b=0.6)
    with pytest.raises(ValueError, match=r"split\['a'\] must be > 0"):
        total.split(a=0.0, b=1.0)
    with pytest.raises(TypeError, match="not both"):
        total.split(a=0.5, b=Budget(0.5))
    with pytest.raises(ValueError, match="at least one"):
        total.split()


def test_accountant_records_refuses_and_reports():
    from dppca import Accountant, BudgetExceededError

    accountant = Accountant(Budget(1.0, 1e-6), composition="basic")
    accountant.spend(Budget(0.3, 2e-7), name="first")
    accountant.spend(Budget(0.7, 8e-7))
    assert accountant.spent.isclose(Budget(1.0, 1e-6))
    assert [entry.name for entry in accountant.ledger] == ["first", "spend 2"]
    with pytest.raises(BudgetExceededError, match="would exceed"):
        accountant.spend(Budget(0.01))
    assert len(accountant.ledger) == 2
    assert accountant.remaining == Budget(0.0, 0.0)
    with pytest.raises(TypeError, match="Budget"):
        accountant.spend((0.1, 0.0))
    with pytest.raises(TypeError, match="total must be a Budget"):
        Accountant(1.0)
    assert "Accountant(total=Budget(epsilon=1" in repr(accountant)


def test_composed_costs_never_fall_below_the_exact_sum_of_their_parts():
    from fractions import Fraction

    for value, count in ((0.7 * 0.65, 3), (0.1, 3), (1 / 3, 7), (2.0**-1074, 5)):
        composed = Budget.compose([Budget(value, value / 10)] * count)
        assert Fraction(composed.epsilon) >= count * Fraction(value)
        assert Fraction(composed.epsilon) - count * Fraction(value) <= Fraction(
            abs(math.nextafter(composed.epsilon, 0.0) - composed.epsilon)
        )


def test_absolute_parts_are_summed_exactly_and_the_ledger_total_rounds_up():
    """Parts whose exact sum exceeds the total by less than the rounding of a float sum are
    refused, and a ledger's total is never below the exact sum of its entries."""
    from fractions import Fraction

    from dppca.privacy.budget import PrivacyLedger

    tiny = 2.0**-54
    parts = {name: Budget(0.25, 1e-7) for name in "abcd"}
    parts["d"] = Budget(0.25 + tiny, 1e-7)
    with pytest.raises(ValueError, match="more than the total"):
        Budget(1.0, 1e-6).split(**parts)
    ledger = PrivacyLedger()
    for name, part in parts.items():
        ledger.record(name, "test", part, "spend")
    exact = sum(Fraction(entry.epsilon) for entry in ledger.entries)
    assert Fraction(ledger.total.epsilon) >= exact > 1
