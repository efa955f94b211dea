"""The plans and the releases of one call in their order, shared by :func:`~dppca.dp_pca` and
:class:`~dppca.DPPCA`: the charge, the private scales, the directions and the scree.

A call's plans are made from its checked settings by a :class:`PipelinePlanner` (at the tight
composition's factor) and fixed before anything is charged (the plan -> charge -> release
shape of every release); :func:`run_plans` then charges them, as one charge or, when
the data are scaled privately, stage by stage (:class:`~dppca.privacy.accountant.StagedCharge`),
so that a call stopped by an unreliable scale has spent the scales alone, and makes the
releases in a fixed order, which fixes the order of the random draws. The score plot, which
needs the released scree, is released by its caller after this, from its already charged
stage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca.numerics.rows import Rows, projected
from dppca.privacy.accountant import Accountant, StagedCharge, charge
from dppca.privacy.budget import Budget, PrivacyLedger
from dppca.privacy.composition import plan_losses
from dppca.privacy.requirements import Requirement
from dppca.privacy.settings import NoiseSettings
from dppca.privacy.split import PCASplit
from dppca.releases.loading import LoadingPlan, LoadingSettings, loading_release
from dppca.releases.loading.sscm import SSCMPlan
from dppca.releases.scale import (
    ScalePlan,
    plan_scale,
    scale_release,
    scaled,
    stop_if_unreliable,
)
from dppca.releases.scores import ScorePlan, ScoreSettings
from dppca.releases.scree import ScreePlan, ScreeSettings, scree_release
from dppca.results.loading import LoadingResult

#: The stages of a call, in the order they are charged and released.
STAGES = ("private scales", "directions", "scree", "score plot")


@dataclass(frozen=True)
class PipelinePlans:
    """The plans of one call (None for a release it does not make)."""

    scale: ScalePlan | None
    loading: LoadingPlan | SSCMPlan | None
    #: One plan per scree method, the first the one the other releases use.
    scree: tuple[ScreePlan, ...] | None
    score: ScorePlan | None

    def mechanisms(self) -> list[Any]:
        """Every mechanism the plans draw from, each releasing once, in release order."""
        return [
            mechanism
            for plan in (self.scale, self.loading, *(self.scree or ()), self.score)
            if plan is not None
            for mechanism in plan.mechanisms()
        ]

    @property
    def requirements(self) -> list[Requirement]:
        """Every requirement of the plans, in the order of their releases."""
        return [
            need
            for plan in (self.scale, self.loading, *(self.scree or ()), self.score)
            if plan is not None
            for need in plan.requirements
        ]


@dataclass(frozen=True)
class PipelinePlanner:
    """The checked settings of one :func:`~dppca.dp_pca` call or :meth:`~dppca.DPPCA.fit`;
    calling it with a ``factor`` plans every release with each part's epsilon times ``factor``
    (its delta kept), as :func:`~dppca.privacy.composition.planning_factor` needs, without
    checking the settings again. ``scree=None`` and ``score=None`` plan no scree and no score
    plot.

    Examples
    --------
    >>> from dppca.privacy.budget import Budget
    >>> from dppca.privacy.settings import NoiseSettings
    >>> from dppca.privacy.split import PCASplit
    >>> from dppca.releases.loading import LoadingSettings
    >>> from dppca.releases.scores import ScoreSettings
    >>> from dppca.releases.scree import ScreeSettings
    >>> budgets = PCASplit.from_total(Budget(3.0, 1e-6), None, parts=("loading", "scree", "score"))
    >>> planner = PipelinePlanner(
    ...     shape=(1000, 4), budgets=budgets, k=4, private_scale=False,
    ...     estimate_directions=True, loading=LoadingSettings(), scree=ScreeSettings(),
    ...     score=ScoreSettings(), noise=NoiseSettings(sampler="continuous"))
    >>> planner(1.5).loading.mechanism.epsilon  # a third of epsilon, times 1.5
    1.5
    >>> sorted(planner.stages(planner(1.0), 1.0))
    ['directions', 'score plot', 'scree']
    """

    shape: tuple[int, int]
    budgets: PCASplit
    k: int
    private_scale: bool
    estimate_directions: bool
    loading: LoadingSettings
    scree: ScreeSettings | None
    score: ScoreSettings | None
    noise: NoiseSettings

    def __call__(self, factor: float) -> PipelinePlans:
        parts = self.budgets.scaled(factor)
        n = self.shape[0]
        sampler = str(self.noise.sampler)
        return PipelinePlans(
            scale=plan_scale(self.shape, parts.scale, sampler) if self.private_scale else None,
            loading=self.loading.plan(self.shape, parts.loading, self.noise)
            if self.estimate_directions
            else None,
            scree=None
            if self.scree is None
            else self.scree.plans(n, self.k, parts.scree, self.noise),
            score=None
            if self.score is None
            else self.score.plan(n, parts.score, self.noise, spread="given", shared=True),
        )

    def stages(self, plans: PipelinePlans, factor: float) -> dict[str, tuple[Budget, Any]]:
        """The ``plans`` (made at ``factor``) as :func:`run_plans` takes them: by stage, each
        with its own budget."""
        parts = self.budgets.scaled(factor)
        return {
            label: (budget, plan)
            for label, budget, plan in [
                ("private scales", parts.scale, plans.scale),
                ("directions", parts.loading, plans.loading),
                ("scree", parts.scree, plans.scree),
                ("score plot", parts.score, plans.score),
            ]
            if plan is not None
        }


@dataclass(frozen=True)
class Charging:
    """Who pays for a call and how: the ``accountant`` (or None), the call's ``total`` and
    ``composition``, its name (``caller``) in the charges, and ``on_weak`` (``"release"``
    consents to a stand-in for an unreliable private scale)."""

    accountant: Accountant | None
    total: Budget
    composition: str
    caller: str
    on_weak: str


@dataclass(frozen=True)
class PlansRun:
    """What :func:`run_plans` released.

    Attributes
    ----------
    data : ndarray or DaskRows
        The data the releases used (divided by the scales when there are any).
    scales : ndarray or None
        The private or public scales.
    scale_details : dict or None
        The private scales' details (:func:`~dppca.releases.scale.scale_release`).
    directions : ndarray of shape (p, p)
        The private directions, or the given ones.
    loading : LoadingResult or None
        The directions' release (None for given directions).
    scree : dict of str to (ndarray, dict), or None
        Each scree method's values and details, in the order of the plans (None without a
        scree plan).
    """

    data: Rows
    scales: np.ndarray | None
    scale_details: dict[str, Any] | None
    directions: np.ndarray
    loading: LoadingResult | None
    scree: dict[str, tuple[np.ndarray, dict[str, Any]]] | None


def run_plans(
    data: Rows,
    names: list[str],
    stages: dict[str, tuple[Budget, Any]],
    charging: Charging,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    *,
    public_scales: np.ndarray | None = None,
    given: np.ndarray | None = None,
    progress: bool = False,
    after_scales: Callable[[dict[str, Any] | None], None] | None = None,
) -> PlansRun:
    """Charge the ``stages`` (keys from :data:`STAGES`, each its own budget and validated
    plan) and release the scales, the directions (or use the ``given`` ones) and the scree,
    in that order; entries go to ``ledger``. ``after_scales`` hears the private scales'
    details (None without them) once the whole call is charged and the scales released,
    before the directions (for warnings in that order).

    Raises
    ------
    UnreliableScaleError
        When a private scale is flagged and ``charging.on_weak`` is ``"refuse"``: after the
        scales' stage, before any other charge or release.
    """
    tight = charging.composition == "tight"
    plans = {label: plan for label, (_, plan) in stages.items()}
    scale_plan: ScalePlan | None = plans.get("private scales")
    scales, scale_details = public_scales, None
    if scale_plan is None:
        losses = plan_losses(*plans.values()) if tight else None
        charge(charging.accountant, charging.total, charging.caller, losses)
    else:
        assert isinstance(data, np.ndarray)  # the callers refuse private scales of Dask data
        staged = StagedCharge(
            charging.accountant,
            charging.total,
            charging.caller,
            {
                label: (budget, plan_losses(plan) if tight else ())
                for label, (budget, plan) in stages.items()
            },
            charging.composition,
        )
        staged.pay("private scales")
        guess = charging.on_weak == "release"
        scales, scale_details = scale_release(data, names, scale_plan, rng, ledger, guess=guess)
        stop_if_unreliable(
            scales, scale_details, scale_plan, names, ledger, charging.caller, not staged.staged
        )
        staged.pay()
    if after_scales is not None:
        after_scales(scale_details)
    loading_plan: LoadingPlan | SSCMPlan | None = plans.get("directions")
    if scales is not None:
        data = scaled(data, scales)
        if isinstance(loading_plan, SSCMPlan):  # a public centre, in the data's new units
            loading_plan = loading_plan.in_scaled_units(lambda rows: scaled(rows, scales))
    scree_plans: tuple[ScreePlan, ...] | None = plans.get("scree")
    loading = None
    if loading_plan is not None:
        loading = loading_release(data, names, loading_plan, rng, progress=progress)
        ledger.extend(loading.privacy)
        directions = loading.directions
    else:
        assert given is not None  # given directions, or a plan to estimate them
        directions = given
    scree = None
    if scree_plans:
        scores = projected(data, directions[:, : scree_plans[0].k])
        scree = {plan.method: scree_release(scores, plan, rng, ledger) for plan in scree_plans}
    return PlansRun(data, scales, scale_details, directions, loading, scree)
