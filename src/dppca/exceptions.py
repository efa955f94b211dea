"""Warnings and errors raised by dppca."""

from __future__ import annotations

from typing import Any


class PrivacyWarning(UserWarning):
    """A requested setting does not establish the privacy guarantee it names.

    Raised, for example, by the classical Gaussian calibration with ``epsilon >= 1``, where the
    textbook proof (Dwork and Roth 2014, Theorem A.1) does not apply.

    Examples
    --------
    >>> import warnings, dppca
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     dppca.privacy.budget.warn_weak_budget(20.0, 1e-6, 1000)
    >>> caught[0].category.__name__
    'PrivacyWarning'
    """


class DurfeeStepLimitWarning(UserWarning):
    """A Durfee quantile search reached its step limit and returned the last grid point.

    Examples
    --------
    >>> import warnings, numpy as np, dppca
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = dppca.dp_quantile(np.full(100, 1e30), 0.5, 1.0, max_steps=100, random_state=0)
    >>> caught[0].category.__name__
    'DurfeeStepLimitWarning'
    """


class NoiseDominatedWarning(UserWarning):
    """A released output is dominated by the privacy noise.

    Judged only from released values and public settings (n, epsilon, delta, the noise scales),
    so the warning itself reveals nothing more about the data.

    Examples
    --------
    >>> import warnings, numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = dppca.dp_score(
    ...         X, 0.1, 1e-6, directions=np.eye(3), random_state=0, on_weak="release"
    ...     )
    >>> "NoiseDominatedWarning" in {w.category.__name__ for w in caught}
    True
    """


class DetachedAccountantError(RuntimeError):
    """A copy of an :class:`~dppca.Accountant` made by pickling (in another process: a
    ``GridSearchCV(n_jobs=2)`` or joblib worker, or a model saved and loaded) was asked to
    charge: it cannot reach its owner's budget, so it refuses every charge, before anything is
    released.

    Examples
    --------
    >>> import pickle
    >>> from dppca import Accountant, Budget, DetachedAccountantError
    >>> copy = pickle.loads(pickle.dumps(Accountant(Budget(1.0, 1e-6))))
    >>> try:
    ...     copy.spend(Budget(0.1, 0.0), "a fit")
    ... except DetachedAccountantError as error:
    ...     print(str(error).startswith("This accountant is a copy made by pickling"))
    True
    """


class EmptyHistogramError(ValueError):
    """An additive DP histogram is all zero after noise and clipping (its budget is spent).

    The R package ``dppca`` raises an error here rather than return a histogram; a larger epsilon or
    fewer bins avoids it.

    Examples
    --------
    >>> from dppca import EmptyHistogramError
    >>> issubclass(EmptyHistogramError, ValueError)
    True
    """


class UnlocatableError(ValueError):
    """A call's budget cannot locate one of its releases (a frame, a clip level, a scale), so
    it is refused before anything is charged (judged from public values only).

    The message names, per release, the smallest epsilon and the smallest number of rows that
    would work and the public alternative; ``on_weak="release"`` releases anyway.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(150, 4))
    >>> try:
    ...     dppca.dp_pca(X, 1.0, 1e-6)
    ... except dppca.UnlocatableError as error:
    ...     print(str(error)[:50])
    dp_pca cannot locate at n=150, epsilon=1: scree (c
    """


class UnreliableScaleError(ValueError):
    """A call with ``scale="private"`` stopped after releasing the scales, because some were
    flagged unreliable (judged from the released values) and no guess was consented to
    (``on_weak="release"``). Only the scales' part of the budget was spent.

    Attributes
    ----------
    result : ScaleResult
        The released scales (NaN where unreliable), their settings and ledger.

    Examples
    --------
    >>> from dppca import UnreliableScaleError
    >>> issubclass(UnreliableScaleError, ValueError)
    True
    """

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


class BudgetExceededError(ValueError):
    """An :class:`~dppca.Accountant` refused a spend that would exceed its total budget.

    Examples
    --------
    >>> from dppca import BudgetExceededError
    >>> import dppca
    >>> accountant = dppca.Accountant(dppca.Budget(1.0, 1e-6))
    >>> try:
    ...     accountant.spend(dppca.Budget(2.0, 0.0))
    ... except BudgetExceededError as error:
    ...     print(str(error)[:40])
    Spending Budget(epsilon=2, delta=0) woul
    """
