"""Every dp_* function charges an accountant with exactly what its ledger records."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

import dppca
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
    "dp_pca": lambda acc: dp_pca(X, 1.5, 3e-6, accountant=acc, random_state=0, score={"bins": 5}),
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


SCALED = np.random.default_rng(3).standard_normal((20000, 3)) * [1.0, 100.0, 0.01]


def _scaled_pca(accountant, composition=None, scale="private"):
    """dp_pca on SCALED at (4, 1e-6), privately scaled by default."""
    return dp_pca(
        SCALED,
        4.0,
        1e-6,
        scale=scale,
        accountant=accountant,
        random_state=0,
        noise={"composition": composition},
    )


@pytest.mark.parametrize("composition", ["tight", "basic"])
def test_a_staged_call_composes_as_its_ledger(composition):
    """With private scales the call is charged in stages (the scales, then each release); a
    tight accountant composes them to the call's own total, a basic one adds them up to it."""
    accountant = Accountant(Budget(4.0, 1e-6), composition=composition)
    result = _scaled_pca(accountant, composition)
    names = [entry.name for entry in accountant.ledger]
    assert names == [
        "dp_pca: private scales",
        "dp_pca: directions",
        "dp_pca: scree",
        "dp_pca: score plot",
    ]
    assert accountant.spent.isclose(result.privacy.total, rel_tol=1e-9)


def test_a_basic_accountant_takes_a_tight_staged_call_whole():
    """A tightly planned call's parts each have more than their share of epsilon, so a basic
    accountant could not add them up within the total: it is charged the total, once."""
    accountant = Accountant(Budget(4.0, 1e-6), composition="basic")
    _scaled_pca(accountant)
    assert [entry.name for entry in accountant.ledger] == ["dp_pca"]
    assert accountant.spent == Budget(4.0, 1e-6)


@pytest.mark.parametrize("composition", ["tight", "basic"])
def test_a_staged_call_that_cannot_be_afforded_records_nothing(composition):
    accountant = Accountant(Budget(3.9, 1e-6), composition=composition)
    with pytest.raises(BudgetExceededError):
        _scaled_pca(accountant, composition)
    assert len(accountant.ledger) == 0


def test_staged_charges_exact_parts_fill_a_basic_total():
    from dppca.privacy.accountant import StagedCharge

    total = Budget(1.0, 1e-6)
    parts = total.split(a=0.1, b=0.2, c=0.7)
    accountant = Accountant(total, composition="basic")
    staged = StagedCharge(
        accountant, total, "call", {k: (v, ()) for k, v in parts.items()}, "basic"
    )
    staged.pay("a")
    assert [e.name for e in accountant.ledger] == ["call: a"]
    staged.pay()
    assert sum(Fraction(e.epsilon) for e in accountant.ledger) <= Fraction(1.0)
    assert not accountant.can_spend(Budget(1e-9, 0.0))


@pytest.mark.parametrize("accountant_composition", ["tight", "basic"])
@pytest.mark.parametrize("call_composition", ["tight", "basic"])
def test_an_accountant_is_charged_what_the_call_records_in_every_composition(
    accountant_composition, call_composition
):
    """Staged only where the accountant composes as the call does (then the stages compose to
    the call's own total); otherwise the total, once, so that a roomy basic accountant is not
    charged a tight call's parts (each above its share) and a tight one not less than the
    call's own total."""
    from dppca.privacy.composition import composed_delta

    accountant = Accountant(Budget(40.0, 1e-5), composition=accountant_composition)
    result = _scaled_pca(accountant, call_composition)
    if accountant_composition != call_composition:
        assert [(e.name, e.budget) for e in accountant.ledger] == [("dp_pca", Budget(4.0, 1e-6))]
    elif call_composition == "basic":
        assert len(accountant.ledger) == 4 and accountant.spent.isclose(result.privacy.total)
        assert accountant.spent <= Budget(4.0, 1e-6)
    else:
        assert len(accountant.ledger) == 4
        charged = composed_delta(accountant.ledger.losses, 4.0)
        assert charged == pytest.approx(result.privacy.total.delta, rel=1e-9)


def test_a_tight_accountant_admits_a_basic_call_with_or_without_private_scales_alike():
    """The whole is checked as one charge first: whether a call is admitted does not depend on
    how it is staged."""
    for scale in ("private", None):
        accountant = Accountant(Budget(4.0, 1e-6 * (1 - 2e-7)))
        with pytest.raises(BudgetExceededError):
            _scaled_pca(accountant, "basic", scale)
        assert len(accountant.ledger) == 0


def test_a_copy_in_another_process_refuses_every_charge():
    """pickle and joblib copies are detached: they refuse to charge, before anything is
    released, naming n_jobs; copies in the process are the accountant itself."""
    import copy
    import pickle

    import joblib

    from dppca import DetachedAccountantError
    from dppca.privacy.accountant import DetachedAccountant

    owner = Accountant(Budget(10.0, 1e-5))
    owner.spend(Budget(1.0, 1e-6), "first")
    assert copy.copy(owner) is owner and copy.deepcopy(owner) is owner
    for detached in (pickle.loads(pickle.dumps(owner)), joblib.load(_dumped(owner))):
        assert isinstance(detached, DetachedAccountant)
        assert detached.spent_when_copied == owner.spent
        with pytest.raises(DetachedAccountantError, match=r"n_jobs=1"):
            detached.spend(Budget(0.1, 0.0), "a fit")
        with pytest.raises(DetachedAccountantError):
            dppca.dp_loading(np.eye(40, 3), 1.0, 1e-6, accountant=detached)
        assert isinstance(pickle.loads(pickle.dumps(detached)), DetachedAccountant)
    assert owner.spent == Budget(1.0, 1e-6)


def _dumped(accountant):
    import io

    import joblib

    buffer = io.BytesIO()
    joblib.dump(accountant, buffer)
    buffer.seek(0)
    return buffer


def test_a_grid_search_in_two_processes_cannot_spend_past_the_owner():
    """GridSearchCV(n_jobs=2) unpickles the model in its workers: every fit there is refused
    (nothing spent, the search fails saying why), where before seven fits passed a cap of 10."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 4)) * [3.0, 2.0, 1.0, 0.5]
    y = (X[:, 0] + rng.standard_normal(3000) > 0).astype(int)
    owner = Accountant(Budget(10.0, 1e-5))
    model = make_pipeline(
        dppca.DPPCA(n_components=1, epsilon=4.0, accountant=owner), LogisticRegression()
    )
    search = GridSearchCV(model, {"dppca__n_components": [1, 2]}, cv=3, n_jobs=2)
    with pytest.raises(ValueError, match="copy made by pickling"):
        search.fit(X, y)
    assert owner.spent == Budget(0.0, 0.0)


def test_threads_sharing_an_accountant_cannot_overspend_together():
    """Eight threads each charging epsilon 1 against a basic total of 5: exactly five charges
    pass."""
    import threading

    from dppca import BudgetExceededError

    owner = Accountant(Budget(5.0, 1e-6), composition="basic")
    passed, barrier = [], threading.Barrier(8)

    def charge_once():
        barrier.wait()
        try:
            owner.spend(Budget(1.0, 0.0), "a thread")
            passed.append(True)
        except BudgetExceededError:
            pass

    threads = [threading.Thread(target=charge_once) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(passed) == 5 and owner.spent == Budget(5.0, 0.0)


def test_a_forked_copy_refuses_and_a_detached_copy_reports_what_was_spent():
    """A child made by fork holds a live-looking copy (never pickled): it refuses to charge;
    a pickled copy reports what had been spent and that it can spend nothing."""
    import multiprocessing
    import pickle

    owner = Accountant(Budget(1.0, 1e-6), composition="basic")
    owner.spend(Budget(0.4, 0.0), "first")

    def child(queue):
        try:
            owner.spend(Budget(0.5, 0.0), "in the child")
            queue.put("charged")
        except Exception as error:  # the test reads the type's name
            queue.put(type(error).__name__)

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    process.join(30)
    assert queue.get(timeout=5) == "DetachedAccountantError"
    assert owner.spent == Budget(0.4, 0.0)
    copy = pickle.loads(pickle.dumps(owner))
    assert copy.spent == Budget(0.4, 0.0) and not copy.can_spend(Budget(0.1, 0.0))


@pytest.mark.parametrize("composition", ["tight", "basic"])
@pytest.mark.parametrize(("epsilon", "delta"), [(4.0, 1e-7), (0.1, 1e-5), (1.0, 1e-6)])
@pytest.mark.parametrize("call", ["dp_loading", "dp_scree", "dp_score", "dp_pca"])
def test_one_call_of_exactly_the_total_fits_and_a_second_does_not(
    composition, epsilon, delta, call
):
    """Composing the one release's own (epsilon, delta) by privacy losses rounds its delta up
    (a tight accountant of (4, 1e-7) once refused dp_loading at (4, 1e-7)); the sums bound it
    too, and a tight accountant takes the smaller, as the ledger's total does."""
    options = {"random_state": 0, "on_weak": "release"}  # epsilon 0.1 locates no frame here
    runs = {
        "dp_loading": lambda acc: dp_loading(X, epsilon, delta, accountant=acc, **options),
        "dp_scree": lambda acc: dp_scree(
            X, 2, epsilon, delta, directions=np.eye(3), accountant=acc, **options
        ),
        "dp_score": lambda acc: dp_score(
            X, epsilon, delta, directions=np.eye(3), accountant=acc, **options
        ),
        "dp_pca": lambda acc: dp_pca(X, epsilon, delta, accountant=acc, **options),
    }
    accountant = Accountant(Budget(epsilon, delta), composition=composition)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weak-budget notes at epsilon 0.1
        runs[call](accountant)
    spent = accountant.spent
    assert spent.epsilon <= epsilon and spent.delta <= delta
    with pytest.raises(BudgetExceededError):
        runs[call](accountant)
