"""Budget values and the privacy ledger."""

from __future__ import annotations

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
    ledger.record("radius", "Durfee", Budget(0.1))
    ledger.record("matrix", "Gaussian", Budget(0.9, 1e-6))
    assert len(ledger) == 2
    assert ledger.total == Budget(1.0, 1e-6)
    assert [entry.name for entry in ledger] == ["radius", "matrix"]
    frame = ledger.to_frame()
    assert list(frame.columns) == ["name", "mechanism", "epsilon", "delta"]
    assert frame["epsilon"].tolist() == [0.1, 0.9]
    assert "total Budget(epsilon=1, delta=1e-06)" in repr(ledger)
    assert ledger.entries[1].budget == Budget(0.9, 1e-6)
    with pytest.raises(AttributeError):
        ledger.entries[0].epsilon = 5.0
