"""``dp_score``: a private score histogram on a privately estimated frame, and its result."""

from __future__ import annotations

import functools
import warnings
from typing import Any

from dppca._groups import encode_groups, take_group_column, warn_undeclared_levels
from dppca._validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_random_state,
)
from dppca.numerics.rows import checked_rows
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    warn_weak_budget,
)
from dppca.privacy.composition import plan_losses, planning_factor
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.settings import NoiseSettings
from dppca.releases.frame import DEFAULT_INFLATE
from dppca.releases.loading import (
    LoadingPlan,
    LoadingSettings,
    check_direction_source,
    loading_release,
)
from dppca.releases.loading.sscm import SSCMPlan
from dppca.releases.notes import emit, histogram_notes
from dppca.releases.scores.plan import (
    ScorePlan,
    ScoreSettings,
    score_release,
)
from dppca.results.scores import ScoreResult
from dppca.results.status import (
    score_statuses,
    unusable_frame,
    unusable_histogram,
)


def dp_score(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    bins: Any = None,
    directions: Any = None,
    loading_epsilon: float | None = None,
    loading_delta: float | None = None,
    method: Any = "thresholded",
    axes: Any = (1, 2),
    groups: Any = None,
    group_levels: Any = None,
    calibration: str = "analytic",
    inflate: float = DEFAULT_INFLATE,
    random_state: Any = None,
    non_private: bool = False,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    composition: str | None = None,
    frame: Any = None,
    on_weak: str = "refuse",
) -> ScoreResult:
    """A differentially private 2-D histogram of principal-component scores.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        No centring or scaling is applied.
    epsilon, delta : float
        The score budget: ``0.35 epsilon`` (no delta) for the frame, ``0.65 epsilon`` and all of
        ``delta`` for each histogram method.
    directions : array-like of shape (p, p), optional
        Orthonormal directions (columns, within 1e-6) to project on. They must not come from a
        non-private analysis of the same data. None: estimate them with :func:`dp_loading`.
    loading_epsilon, loading_delta : float, optional
        The budget of :func:`dp_loading` when ``directions`` is None.
    groups : str or array-like, optional
        Public labels: a column name of a DataFrame ``X`` (removed from the variables) or one
        label per row. One frame from all rows; one histogram per group (parallel composition).
    method, bins, axes, frame, group_levels, inflate
        The histogram method(s) (each requested method spends the full histogram budget), the
        cells, the two PC numbers, public frame limits (the whole score budget then goes to
        the histograms), the declared group levels and the private frame's margin: see
        :class:`~dppca.ScoreSettings`, which holds them (defaults ``"thresholded"``, None,
        ``(1, 2)``, None, None, 0.2).
    calibration, composition, sampler
        The additive histogram's Gaussian calibration (``"classical"`` reproduces the R
        package's ``sigma_H = sqrt(2) sqrt(2 ln(1.25 / delta)) / epsilon``), how the frame, the
        histograms and the directions' release compose (tight by default: planned so that
        their composition meets the cost of the Notes) and the noise sampler: see
        :class:`~dppca.NoiseSettings`.
    random_state : None, int, SeedSequence or Generator
    non_private : bool, default False
        Also return :class:`NonPrivateScores` (the raw scores and empirical histograms).
    accountant : Accountant, optional
        Charged with the whole cost (see Notes) before any noise is drawn.
    on_weak : {"refuse", "release"}, default "refuse"
        What to do when the budget cannot locate the private frame at this ``n`` (judged from
        public values, :mod:`dppca.privacy.requirements`): refuse before anything is spent,
        naming the smallest epsilon and ``n`` that would work, or release anyway (for
        studies), with a warning.

    Returns
    -------
    ScoreResult

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when the frame cannot be located (nothing is spent).
    EmptyHistogramError
        When an additive histogram is all zero after noise (its budget is then spent).

    Notes
    -----
    Total spend: the loading budget, plus ``epsilon * (0.35 + 0.65 k)`` and ``k delta`` for
    ``k`` histogram methods (by basic composition; a tight composition spends the same total
    with less noise). Every release is in ``result.privacy``. A sparse
    histogram may be all zero (no error); its probabilities are then all 0.

    Examples
    --------
    >>> from dppca import dp_score
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dp_score(X, 2.0, 1e-6, directions=np.eye(4), random_state=1)
    >>> result.bins, float(result.histograms["thresholded"]["prob"].sum())
    ((12, 12), 1.0)
    """
    X, labels = take_group_column(X, groups)
    data, names = checked_rows(X)
    n, p = data.shape
    budget = Budget(check_epsilon(epsilon), check_delta(delta))
    settings = ScoreSettings(
        method=method, bins=bins, axes=axes, frame=frame, group_levels=group_levels, inflate=inflate
    )
    settings.check_axes(p)
    noise = NoiseSettings(calibration=calibration, sampler=sampler, composition=composition)
    on_weak = check_on_weak(on_weak)
    with warnings.catch_warnings():  # the final plan, below, warns
        warnings.simplefilter("ignore")
        plan = settings.plan(n, budget, noise)
    non_private = check_bool(non_private, "non_private")
    given, loading_budget = check_direction_source(directions, loading_epsilon, loading_delta, p)
    composition = str(noise.composition)
    codes, levels = (None, None)
    if labels is not None:
        codes, levels = encode_groups(labels, n, settings.group_levels)
        warn_undeclared_levels(labels, settings.group_levels)
    elif group_levels is not None:
        raise ValueError("group_levels applies when groups are given; got groups=None.")
    rng = check_random_state(random_state)
    settings = settings.replace(bins=plan.bins)
    loading_noise = NoiseSettings(sampler=noise.sampler)  # the directions' own calibration

    @functools.cache
    def factor_at(score_epsilon: float) -> float:
        """The tight factor at a score epsilon (it does not depend on the rows)."""
        return planned(n, score_epsilon, None)[3]

    def planned(
        size: int, score_epsilon: float, factor: float | None = None
    ) -> tuple[ScorePlan, LoadingPlan | SSCMPlan | None, Budget, float]:
        """The plans at ``size`` rows and score epsilon (with each part's epsilon times
        ``factor``, the tight factor when None), their cost and the factor."""
        own = Budget(score_epsilon, budget.delta)

        def plan_all(factor: float) -> tuple[ScorePlan, LoadingPlan | SSCMPlan | None]:
            scaled = Budget(own.epsilon * factor, own.delta)
            score_plan = settings.plan(size, scaled, noise)
            if loading_budget is None:
                return score_plan, None
            loading = Budget(loading_budget.epsilon * factor, loading_budget.delta)
            return score_plan, LoadingSettings().plan((size, p), loading, loading_noise)

        first, _ = plan_all(1.0)
        cost = first.cost if loading_budget is None else first.cost + loading_budget
        if factor is None:
            factor = planning_factor(plan_all, cost.epsilon, cost.delta, composition)
        return (*plan_all(factor), cost, factor)

    def requirements_at(size: int, score_epsilon: float) -> list[Requirement]:
        score_plan, loading, _, _ = planned(size, score_epsilon, factor_at(score_epsilon))
        return [*score_plan.requirements, *(loading.requirements if loading else ())]

    plan, loading_plan, cost, factor = planned(n, budget.epsilon, factor_at(budget.epsilon))
    enforce(requirements_at, n, budget.epsilon, on_weak, "dp_score")
    warn_weak_budget(cost.epsilon, cost.delta, n)
    charge(
        accountant,
        cost,
        "dp_score",
        plan_losses(plan, loading_plan) if composition == "tight" else None,
    )

    ledger = PrivacyLedger.for_total(cost.epsilon, composition)
    loading = None
    if loading_plan is not None:
        loading = loading_release(data, names, loading_plan, rng)
        ledger.extend(loading.privacy)
        given = loading.directions
    assert given is not None  # given directions, or a plan to estimate them
    release = score_release(data, given, plan, codes, levels, rng, ledger, non_private=non_private)
    first = plan.methods[0]
    notes = histogram_notes(release.mass[first], n)
    status = score_statuses(release.frame, release.histograms[first], notes)
    frame, histograms, groups = release.frame, release.histograms, release.groups
    if not status["frame"].usable:  # released as NaN, with the reason in the status
        frame = unusable_frame(frame)
        histograms = {name: unusable_histogram(table) for name, table in histograms.items()}
        if groups is not None:
            groups = {
                level: {name: unusable_histogram(table) for name, table in tables.items()}
                for level, tables in groups.items()
            }
    emit([f"The score frame is {status['frame']}."] if status["frame"].state != "ok" else [])
    return ScoreResult(
        frame=frame,
        histograms=histograms,
        groups=groups,
        group_sizes=release.group_sizes,
        axes=plan.axes,
        bins=plan.bins,
        directions=given,
        feature_names=names,
        n_samples=n,
        settings={
            **plan.settings(),
            "epsilon": budget.epsilon,  # the caller's; the parts' are scaled by the factor
            "composition": {"rule": composition, "factor": factor},
            "directions": "private (dp_loading)" if loading is not None else "given",
        },
        privacy=ledger,
        loading=loading,
        non_private=release.non_private,
        status=status,
    )
