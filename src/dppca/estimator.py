"""``DPPCA``: g-DPPCA as a scikit-learn transformer."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from dppca._validation import (
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
    check_real,
    refuse_masked_or_sparse,
)
from dppca.numerics.monotone import proportions
from dppca.pipeline import directions_and_scree
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, PrivacyLedger, check_parts, warn_weak_budget
from dppca.privacy.mechanisms import resolve_sampler
from dppca.releases.loading import plan_loading
from dppca.releases.scree import SCREE_METHODS, ScreePlan, check_scree_control, plan_scree


class DPPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Differentially private, robust PCA (g-DPPCA, Kim and Jung 2025).

    ``fit`` spends ``(epsilon, delta)`` once, on the Gaussian release of the generalized
    Kendall's tau matrix (see :func:`dppca.dp_loading`), and keeps its leading eigenvectors.

    Parameters
    ----------
    n_components : int, default 2
        Number of private directions kept, ``1 <= n_components <= n_features``.
    epsilon : float, default 1.0
        Privacy budget of ``fit`` (> 0).
    delta : float, default 1e-6
        In (0, 1); choose it well below ``1 / n_samples``.
    sign_transform : {"spherical", "winsorized"} or callable, default "spherical"
        Generalized spatial sign, the ``transform`` of :func:`dppca.dp_loading` (renamed because
        a scikit-learn transformer's ``transform`` is its projection method).
    radius : float or "auto", optional
        Winsorization radius or the declared bound of a callable ``sign_transform``.
    sensitivity : {"tight", "paper"}, default "tight"
    calibration : {"analytic", "classical"}, default "analytic"
    pairs : "all" or even int, default "all"
        All pairs or a ``k``-regular incomplete design (linear in ``n_samples``).
    scree : {"clipped", "pmwm", "huber"} or None, default None
        Also release a private scree of all components (see :func:`dppca.dp_scree`), which sets
        ``explained_variance_`` and ``explained_variance_ratio_``.
    scree_share : float, default 0.5
        With ``scree``: the share of epsilon and of delta spent on it (the rest on directions).
    scree_control : dict, optional
        Parameters of the scree method.
    random_state : None, int, SeedSequence or Generator, default None
        Seeds are for research and tests; use None for a real release. **Never refit with a
        fixed integer seed on data that differ in a few rows**: the same seed draws the same
        noise, and the difference of the two releases then shows the difference of the data
        exactly, with no privacy at all. A Generator draws fresh noise at every fit.
    accountant : Accountant, optional
        Charged with ``(epsilon, delta)`` by every ``fit`` (after validation, before any noise),
        so that refits draw on one total budget and stop when it is spent. The accountant is
        shared, never copied (``sklearn.base.clone`` keeps the same one).
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Private principal directions (rows), by descending noisy Kendall eigenvalue.
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when ``X`` has string column names.
    kendall_eigenvalues_ : ndarray of shape (n_features,)
        Eigenvalues of the noisy Kendall matrix.
    sigma_ : float
        Noise standard deviation used.
    privacy_spent_ : Budget
        The (epsilon, delta) that ``fit`` spent.
    privacy_ledger_ : PrivacyLedger
        Every release ``fit`` made.
    explained_variance_ : ndarray of shape (n_components,)
        With ``scree``: private variances along the kept directions.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        With ``scree``: those variances over the private total of all components.

    Notes
    -----
    ``transform`` projects rows onto the private directions, ``X @ components_.T``, without
    centring (centring by a sample mean would not be private). The projection of an individual
    row is **not** a private release: it is that row's data. Only ``components_`` (and what is
    computed from it alone) is private.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca import DPPCA
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> model = DPPCA(2, epsilon=2.0, delta=1e-6, random_state=1).fit(X)
    >>> model.transform(X).shape, model.privacy_spent_
    ((2000, 2), Budget(epsilon=2, delta=1e-06))
    """

    def __init__(
        self,
        n_components: int = 2,
        *,
        epsilon: float = 1.0,
        delta: float = 1e-6,
        sign_transform: Any = "spherical",
        radius: Any = None,
        sensitivity: str = "tight",
        calibration: str = "analytic",
        pairs: Any = "all",
        scree: str | None = None,
        scree_share: float = 0.5,
        scree_control: dict[str, Any] | None = None,
        random_state: Any = None,
        accountant: Accountant | None = None,
        sampler: str | None = None,
    ) -> None:
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.sign_transform = sign_transform
        self.radius = radius
        self.sensitivity = sensitivity
        self.calibration = calibration
        self.pairs = pairs
        self.scree = scree
        self.scree_share = scree_share
        self.scree_control = scree_control
        self.random_state = random_state
        self.accountant = accountant
        self.sampler = sampler

    def fit(self, X: Any, y: Any = None) -> DPPCA:
        """Spend the budget once and set the private directions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        refuse_masked_or_sparse(X, "X")
        with np.errstate(over="ignore", invalid="ignore"):  # finite extremes sum to inf here
            X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n_features = X.shape[1]
        n_components = check_positive_int(self.n_components, "n_components")
        if n_components > n_features:
            raise ValueError(
                f"n_components must be an integer in [1, n_features={n_features}]; got "
                f"n_components={n_components}."
            )
        total = budget = Budget(check_epsilon(self.epsilon), check_delta(self.delta))
        scree_plan: ScreePlan | None = None
        if self.scree is not None:
            method = check_option(self.scree, "scree", SCREE_METHODS)
            share = check_real(self.scree_share, "scree_share", low=0.0, high=1.0)
            control = check_scree_control(method, self.scree_control, n_features, "scree_control")
            parts = budget.split(loading=1.0 - share, scree=share)
            what = f"epsilon={budget.epsilon:g}, delta={budget.delta:g} and scree_share={share:g}"
            for part in parts.values():
                check_parts([part.epsilon, part.delta], what)
            scree_plan = plan_scree(
                method,
                control,
                X.shape[0],
                n_features,
                parts["scree"],
                resolve_sampler(self.sampler, self.calibration),
            )
            budget = parts["loading"]
        data = np.asarray(X, dtype=np.float64)
        plan = plan_loading(
            data.shape,
            budget,
            transform=self.sign_transform,
            radius=self.radius,
            sensitivity=self.sensitivity,
            calibration=self.calibration,
            pairs=self.pairs,
            sampler=self.sampler,
            transform_name="sign_transform",
        )
        rng = check_random_state(self.random_state)
        warn_weak_budget(total.epsilon, total.delta, X.shape[0])
        charge(self.accountant, total, "DPPCA.fit")
        names = [f"X{j + 1}" for j in range(n_features)]
        ledger = PrivacyLedger()
        result, scree = directions_and_scree(data, names, plan, scree_plan, rng, ledger)
        if scree is not None:
            values, _ = scree
            self.explained_variance_ = values[:n_components]
            self.explained_variance_ratio_ = proportions(values)[:n_components]
        self.components_ = result.directions[:, :n_components].T.copy()
        self.n_components_ = n_components
        self.kendall_eigenvalues_ = result.kendall_eigenvalues
        self.sigma_ = result.sigma
        self.privacy_ledger_: PrivacyLedger = ledger
        self.privacy_spent_: Budget = ledger.total
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Project ``X`` onto the private directions (not a private release; see Notes).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return X @ self.components_.T.astype(X.dtype, copy=False)

    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
