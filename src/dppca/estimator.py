"""``DPPCA``: g-DPPCA as a scikit-learn transformer."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from dppca._estimator_params import FRACTION_UNUSABLE, check_center, check_n_components
from dppca._validation import (
    array_names,
    check_bool,
    check_delta,
    check_epsilon,
    check_random_state,
    check_real,
    refuse_masked_or_sparse,
)
from dppca.numerics.monotone import components_for, proportions
from dppca.orchestrator import Charging, PipelinePlanner, run_plans
from dppca.privacy.accountant import Accountant, warn_refits
from dppca.privacy.budget import Budget, PrivacyLedger, check_parts, warn_weak_budget
from dppca.privacy.composition import planning_factor
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.settings import NoiseSettings
from dppca.privacy.split import PCASplit
from dppca.releases.loading import LoadingSettings
from dppca.releases.notes import emit, one_variable_notes
from dppca.releases.scale import (
    SCALED_LIMIT,
    check_scale,
    scale_notes,
    scaled,
)
from dppca.releases.scree import ScreeSettings
from dppca.results.loading import unusable_loading
from dppca.results.status import ReleaseStatus, scale_status, scree_status


class DPPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Differentially private, robust PCA (g-DPPCA, Kim and Jung 2025).

    ``fit`` spends ``(epsilon, delta)`` once: on the Gaussian release of the generalized
    Kendall's tau matrix (see :func:`dppca.dp_loading`), whose leading eigenvectors are kept,
    on a private scree of all components (``scree_share`` of the budget, see
    :func:`dppca.dp_scree`), which sets ``explained_variance_`` and
    ``explained_variance_ratio_``, and with ``scale="private"`` on the variables' scales
    (``scale_share``, see :func:`dppca.dp_scale`).

    Parameters
    ----------
    n_components : int, float or None, default 2
        Number of private directions kept, ``1 <= n_components <= n_features``; None keeps all;
        a fraction in (0, 1) keeps the fewest leading directions whose share of the variance,
        read from the private scree (post-processing, no budget of its own), reaches it (all
        of them, with a note, when the scree is not usable).
    epsilon : float, default 1.0
        Privacy budget of ``fit`` (> 0).
    delta : float, default 1e-6
        In (0, 1); choose it well below ``1 / n_samples``.
    statistic : {"kendall", "sscm", "auto"}, default "kendall"
        The generalized Kendall matrix (g-DPPCA), the spatial sign covariance matrix about a
        private centre, or the one the benchmarks favour at this ``n``, ``p`` and epsilon (see
        :class:`~dppca.LoadingSettings`).
    center : None, "private" or array-like of shape (n_features,), default None
        What ``transform`` subtracts before projecting. None: nothing (the directions need no
        centre, and the scores are then uncentred; ``mean_`` is None). An array: a public centre
        known without the data (the SSCM's directions are taken about it too; the Kendall
        matrix needs none). ``"private"``: the SSCM's own private centre, released with the
        directions at no extra cost (``statistic="sscm"``, or ``"auto"`` where it chooses the
        SSCM; refused before the charge otherwise).
    sign_transform : {"spherical", "winsorized"} or callable, default "spherical"
        Generalized spatial sign, the ``transform`` of :func:`dppca.dp_loading` (renamed because
        a scikit-learn transformer's ``transform`` is its projection method).
    radius : float or "auto", optional
        Winsorization radius or the declared bound of a callable ``sign_transform``.
    sensitivity : {"tight", "paper"}, default "tight"
    calibration : {"analytic", "classical"}, default "analytic"
    pairs : "auto", "all" or even int, default "auto"
        All pairs or a ``k``-regular incomplete design (linear in ``n_samples``); ``"auto"``:
        all pairs up to 20,000 rows, ``pairs=64`` above.
    scale : None, "private" or array-like of shape (n_features,), default None
        Divide each variable by a scale before everything else, for data in mixed units:
        ``"private"`` releases robust scales (:func:`dppca.dp_scale`) with ``scale_share`` of
        the budget; an array gives public scales. ``transform`` and ``inverse_transform`` use
        the same scales (``scale_``).
    scale_share : float, default 0.1
        With ``scale="private"``: the share of epsilon and of delta spent on the scales.
    scree : {"clipped", "pmwm", "huber"} or None, default "clipped"
        The private scree of all components behind ``explained_variance_``; None spends the
        whole budget on the directions and sets neither attribute.
    scree_share : float, default 0.25
        The share of epsilon and of delta spent on the scree.
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
        shared, never copied, in the process (``sklearn.base.clone`` keeps the same one, and
        threads charge it one at a time); a model pickled into another process
        (``GridSearchCV(n_jobs=2)``, joblib, a saved model) carries a
        :class:`~dppca.privacy.accountant.DetachedAccountant`, whose fits are refused
        (:class:`~dppca.DetachedAccountantError`) before anything is spent: search in one
        process (``n_jobs=1``).
    sampler : {"discrete", "continuous"} or None, default None
        Exact integer noise on a secure stream (``"discrete"``, what None means unless the
        calibration is classical) or numpy's floating-point noise, for studies
        (:class:`~dppca.NoiseSettings` says more).
    composition : {"tight", "basic"} or None, default None
        None means ``"tight"``, or ``"basic"`` with the classical calibration. ``"tight"``: the
        releases of a fit (directions, scree, scales) are planned so that
        their exact composition (see :mod:`dppca.privacy.composition`) meets
        ``(epsilon, delta)``: every share's epsilon is multiplied by the largest common factor
        that keeps it, ``composition_factor_``, so each release gets less noise than its share
        alone would give. ``"basic"``: each release gets its share, and the shares add up.
    progress : bool, default True
        A progress bar on stderr while the Kendall matrix takes more than two seconds.
    on_weak : {"refuse", "release"}, default "refuse"
        What ``fit`` does when its budget cannot locate the scree's clip level or scales, the
        private scales or an automatic radius at this ``n_samples`` (public values,
        :mod:`dppca.privacy.requirements`): raise :class:`~dppca.UnlocatableError` before
        anything is spent, naming the smallest epsilon and number of rows that would work, or
        release anyway (for studies), with a warning. With ``scale="private"``, ``"refuse"``
        also stops after the scales (:class:`~dppca.UnreliableScaleError`, only their part
        spent) when a released scale is flagged unreliable; ``"release"`` consents to the
        other scales' geometric mean for it.

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
        Private principal directions (rows), by descending noisy eigenvalue, in the floating
        type of ``X`` (float32 or float64).
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when ``X`` has string column names.
    kendall_eigenvalues_ : ndarray of shape (n_features,)
        Eigenvalues of the noisy Kendall matrix.
    sigma_ : float
        Noise standard deviation used.
    scale_ : ndarray of shape (n_features,) or None
        The scales the variables are divided by (None without ``scale``).
    mean_ : ndarray of shape (n_features,) or None
        The centre ``transform`` subtracts, in the data's units (None without ``center``).
    explained_variance_ : ndarray of shape (n_components,)
        Private variances along the kept directions (with ``scree``).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Those variances over the private total of all components (with ``scree``).
    privacy_spent_ : Budget
        The (epsilon, delta) that ``fit`` spent: the composition of its releases.
    composition_factor_ : float
        What each share's epsilon was multiplied by (1 with ``composition="basic"``).
    privacy_ledger_ : PrivacyLedger
        Every release ``fit`` made.
    notes_ : tuple of str
        Warnings about noise-dominated scales and scree, from released values only.
    status_ : dict of str to ReleaseStatus
        How usable the scree (``"scree"``) and the private scales (``"scales"``) are
        (:mod:`dppca.results.status`); an unusable scree leaves ``explained_variance_`` and
        ``explained_variance_ratio_`` NaN.

    Notes
    -----
    ``transform`` projects rows onto the private directions, ``((X - mean_) / scale_) @
    components_.T``, by default without centring (centring by a sample mean would not be
    private; ``center`` gives a public or the SSCM's private centre), and ``inverse_transform``
    maps scores back, ``(T @ components_) * scale_ + mean_``. The projection of
    an individual row is **not** a private release: it is that row's data. Only what ``fit``
    stores (and what is computed from it alone) is private.

    **Scale privately, not with a scaler fitted on the data.** A ``StandardScaler`` (or any
    scaler fitted on ``X``) before ``DPPCA`` in a pipeline divides by the sample standard
    deviations, which are not private: the release then depends on them beyond the guarantee.
    Use ``scale="private"`` (a share of the budget) or public scales (``scale=[...]``, units
    known without the data). A note says when the first direction is almost one variable of
    unscaled data.

    **Model selection costs budget.** Every ``fit`` spends ``(epsilon, delta)`` anew, so a
    ``GridSearchCV`` over ``G`` candidates with 5 folds spends ``5 G (epsilon, delta)`` by basic
    composition, somewhat less composed tightly (an ``accountant`` shared by the clones counts
    every fit, refuses the one that would exceed its total, and from the second fit on a
    :class:`~dppca.PrivacyWarning` gives the number of fits and their total). Its choice is
    not private either: the validation scores are computed on the data without noise, so the
    chosen hyper-parameters reveal something about the data beyond every fit's guarantee.
    Choose the settings from public knowledge, or hold out data that are not protected.

    See Also
    --------
    sklearn.decomposition.PCA : Non-private PCA, whose interface this estimator follows.
    dppca.dp_pca : The whole private release (directions, scree, scores) as a result object.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca import DPPCA, Budget
    >>> X = np.random.default_rng(0).normal(size=(5000, 4)) * [3, 2, 1, 0.5]
    >>> model = DPPCA(2, epsilon=4.0, delta=1e-7, random_state=1).fit(X)
    >>> model.transform(X).shape
    (5000, 2)
    >>> model.privacy_spent_ <= Budget(4.0, 1e-7)  # the composition of the fit's releases
    True
    >>> round(model.composition_factor_, 2)  # each share's epsilon times this factor
    1.26
    >>> model.explained_variance_ratio_.round(1).tolist()  # non-private: 0.64, 0.28
    [0.6, 0.3]
    >>> model.inverse_transform(model.transform(X)).shape
    (5000, 4)
    """

    def __init__(
        self,
        n_components: int = 2,
        *,
        epsilon: float = 1.0,
        delta: float = 1e-6,
        statistic: str = "kendall",
        center: Any = None,
        sign_transform: Any = "spherical",
        radius: Any = None,
        sensitivity: str = "tight",
        calibration: str = "analytic",
        pairs: Any = "auto",
        scale: Any = None,
        scale_share: float = 0.1,
        scree: str | None = "clipped",
        scree_share: float = 0.25,
        scree_control: dict[str, Any] | None = None,
        random_state: Any = None,
        accountant: Accountant | None = None,
        sampler: str | None = None,
        composition: str | None = None,
        progress: bool = True,
        on_weak: str = "refuse",
    ) -> None:
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.statistic = statistic
        self.center = center
        self.sign_transform = sign_transform
        self.radius = radius
        self.sensitivity = sensitivity
        self.calibration = calibration
        self.pairs = pairs
        self.scale = scale
        self.scale_share = scale_share
        self.scree = scree
        self.scree_share = scree_share
        self.scree_control = scree_control
        self.random_state = random_state
        self.accountant = accountant
        self.sampler = sampler
        self.composition = composition
        self.progress = progress
        self.on_weak = on_weak

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
        given = X
        with np.errstate(over="ignore", invalid="ignore"):  # finite extremes sum to inf here
            X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n_samples, n_features = X.shape
        n_components, fraction = check_n_components(self.n_components, self.scree, n_features)
        total = Budget(check_epsilon(self.epsilon), check_delta(self.delta))
        noise = NoiseSettings(
            calibration=self.calibration, composition=self.composition, sampler=self.sampler
        )
        private_center, public_center = check_center(self.center, n_features)
        loading = LoadingSettings.named(
            {"transform": "sign_transform"},
            statistic=self.statistic,
            center=None if self.statistic == "kendall" else public_center,
            transform=self.sign_transform,
            radius=self.radius,
            sensitivity=self.sensitivity,
            pairs=self.pairs,
        )
        loading.check_shape(n_samples)
        loading.check_noise(noise)
        private_scale, public_scales = check_scale(self.scale, n_features)
        shares = {"loading": 1.0}
        if private_scale:
            shares["scale"] = check_real(self.scale_share, "scale_share", low=0.0, high=1.0)
        if self.scree is not None:
            shares["scree"] = check_real(self.scree_share, "scree_share", low=0.0, high=1.0)
        shares["loading"] = 1.0 - sum(value for name, value in shares.items() if name != "loading")
        if shares["loading"] <= 0:
            raise ValueError(
                f"scale_share and scree_share must leave a share for the directions; got {shares}."
            )
        loading = loading.resolve(  # "auto" chooses from the directions' own budget
            (n_samples, n_features), total.split(**shares)["loading"], noise, in_memory=True
        )
        if private_center and loading.statistic != "sscm":
            raise ValueError(
                "center='private' takes the SSCM's private centre (statistic='sscm', or 'auto' "
                "where it chooses the SSCM); the Kendall matrix locates none: give a public "
                f"center or None (statistic={self.statistic!r} chose {loading.statistic!r})."
            )
        scree_settings = None
        if self.scree is not None:
            scree_settings = ScreeSettings.named(
                {"method": "scree", "control": "scree_control"},
                method=self.scree,
                control=self.scree_control,
            )
            if len(scree_settings.methods) > 1:
                raise ValueError(
                    f"scree must name one method for DPPCA; got {self.scree!r} (dp_pca and "
                    "dp_scree release several side by side)."
                )
        composition = str(noise.composition)
        progress = check_bool(self.progress, "progress")
        on_weak = check_on_weak(self.on_weak)
        data = np.asarray(X, dtype=np.float64)

        @functools.cache
        def planner_at(size: int, epsilon: float) -> tuple[PipelinePlanner, float]:
            """The fit's planner for ``size`` rows at total ``epsilon``, and its tight factor."""
            parts = Budget(epsilon, total.delta).split(**shares)
            what = f"epsilon={epsilon:g}, delta={total.delta:g} and the shares {shares}"
            for part in parts.values():
                check_parts([part.epsilon, part.delta], what)
            planner = PipelinePlanner(
                shape=(size, n_features),
                budgets=PCASplit.from_parts(parts),
                k=n_features,
                private_scale=private_scale,
                estimate_directions=True,
                loading=loading,
                scree=scree_settings,
                score=None,
                noise=noise,
            )
            if size != n_samples:  # the tight factor does not depend on the rows
                return planner, planner_at(n_samples, epsilon)[1]
            return planner, planning_factor(planner, epsilon, total.delta, composition)

        def requirements_at(size: int, epsilon: float) -> list[Requirement]:
            planner, factor = planner_at(size, epsilon)
            return planner(factor).requirements

        planner, factor = planner_at(n_samples, total.epsilon)
        plans = planner(factor)
        enforce(requirements_at, n_samples, total.epsilon, on_weak, "DPPCA.fit")
        rng = check_random_state(self.random_state)
        warn_weak_budget(total.epsilon, total.delta, n_samples)
        names = [str(name) for name in getattr(self, "feature_names_in_", [])] or array_names(
            given, n_features
        )
        ledger = PrivacyLedger.for_total(total.epsilon, composition)
        charging = Charging(self.accountant, total, composition, "DPPCA.fit", on_weak)
        notes: list[str] = []
        status: dict[str, ReleaseStatus] = {}

        def after_scales(details: dict[str, Any] | None) -> None:
            """The scales' notes and status, then the refit warning, before the directions."""
            if details is not None:
                notes.extend(scale_notes(details))
                status["scales"] = scale_status(
                    details["unreliable"], n_features, details["guessed"]
                )
                emit(notes)
            warn_refits(self.accountant, "DPPCA.fit")

        ran = run_plans(
            data,
            names,
            planner.stages(plans, factor),
            charging,
            rng,
            ledger,
            public_scales=public_scales,
            progress=progress,
            after_scales=after_scales,
        )
        scales, scree = ran.scales, ran.scree
        assert ran.loading is not None  # DPPCA always estimates its directions
        result = unusable_loading(ran.loading)
        lost = result.directions_status
        if not lost.usable:  # judged from released values
            status["directions"] = lost
            notes = [*notes, f"The directions are {lost}."]
            emit(notes[-1:])
        if scree is not None:
            values, details = next(iter(scree.values()))  # the one method's release
            status["scree"] = scree_status(values, details["noise_sd"], details)
            if not lost.usable:
                status["scree"] = ReleaseStatus(
                    lost.state, "it lies along directions that are not usable"
                )
                values = np.full_like(values, np.nan)
            elif not status["scree"].usable:  # released as NaN, with the reason in status_
                values = np.full_like(values, np.nan)
                notes = [*notes, f"The scree is {status['scree']}."]
                emit(notes[-1:])
            ratios = proportions(values)
            if fraction is not None:
                n_components = components_for(ratios, fraction)
                if np.isnan(ratios).any():
                    notes = [*notes, FRACTION_UNUSABLE.format(fraction=fraction)]
                    emit(notes[-1:])
            self.explained_variance_ = values[:n_components]
            self.explained_variance_ratio_ = ratios[:n_components]
        # in the data's floating type, as scikit-learn's PCA keeps it
        self.components_ = result.directions[:, :n_components].T.astype(X.dtype)
        self.n_components_ = n_components
        self.kendall_eigenvalues_ = result.kendall_eigenvalues
        self.sigma_ = result.sigma
        self.scale_ = scales
        self.mean_ = public_center
        if private_center:  # released in the scaled units; back in the data's
            located = np.array(result.settings["centre"])
            self.mean_ = located if scales is None else located * scales
        guidance = one_variable_notes(result.directions, names, scales is not None)
        emit(guidance)
        self.notes_ = tuple(notes + guidance)
        self.status_ = status
        self.privacy_ledger_: PrivacyLedger = ledger
        self.privacy_spent_: Budget = ledger.total
        self.composition_factor_ = factor
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Project ``X`` onto the private directions (not a private release; see Notes).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        if self.mean_ is not None:  # clamped so that the centred values stay finite
            limit = float(np.finfo(X.dtype).max)
            with np.errstate(over="ignore"):
                X = np.clip(X - self.mean_.astype(X.dtype), -limit, limit)
        if self.scale_ is not None:  # clamped so that the scores stay finite in X's type
            limit = float(np.finfo(X.dtype).max) / (4 * X.shape[1])
            X = scaled(X, self.scale_, min(limit, SCALED_LIMIT)).astype(X.dtype, copy=False)
        return X @ self.components_.T.astype(X.dtype, copy=False)

    def inverse_transform(self, X: Any) -> np.ndarray:
        """Map scores back to the variables: ``(X @ components_) * scale_ + mean_`` (the centre
        ``transform`` removed, if any).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = check_array(X, dtype=[np.float64, np.float32])
        if X.shape[1] != self.n_components_:
            raise ValueError(
                f"X must have n_components_={self.n_components_} columns; got {X.shape[1]}."
            )
        restored = X @ self.components_.astype(X.dtype, copy=False)
        if self.scale_ is not None:
            restored = restored * self.scale_.astype(X.dtype, copy=False)
        if self.mean_ is not None:
            restored = restored + self.mean_.astype(X.dtype, copy=False)
        return restored

    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
