"""``dp_pca``: private directions, scree and score histogram in one call.

The total (epsilon, delta) is split between the loading (directions), the scree and the score
(frame and histogram) releases, by default a third each for epsilon and for delta. One set of
private directions feeds the scree and the score histogram. The result holds only private
releases and their post-processing, plus, when asked, a non-private ordinary-PCA reference that is
named as such and never feeds a private release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import encode_groups, take_group_column
from dppca._validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
)
from dppca.numerics.dask_rows import DaskRows, Rows, checked_rows
from dppca.numerics.linalg import (
    ordinary_pca,
    project,
    sample_covariance,
)
from dppca.numerics.monotone import proportions
from dppca.orchestrator import Charging, run_plans
from dppca.privacy.accountant import Accountant
from dppca.privacy.budget import Budget, PrivacyLedger, warn_weak_budget
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.composition import planning_factor, resolve_composition
from dppca.privacy.mechanisms import HISTOGRAM_METHODS, resolve_sampler
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.split import PCASplit
from dppca.releases.frame import Frame
from dppca.releases.histogram import cell_index, grid_cells
from dppca.releases.loading import (
    MECHANISMS,
    LoadingPlan,
    check_directions,
    plan_loading,
)
from dppca.releases.notes import (
    direction_notes,
    emit,
    histogram_notes,
    one_variable_notes,
    order_notes,
    public_notes,
    variance_notes,
)
from dppca.releases.scale import (
    ScalePlan,
    check_scale,
    plan_scale,
    scale_notes,
)
from dppca.releases.scores import (
    ScorePlan,
    ScoreRelease,
    empirical_scores,
    plan_score,
    score_release,
)
from dppca.releases.scree import (
    SCREE_METHODS,
    ScreePlan,
    check_scree_control,
    plan_scree,
)
from dppca.releases.status import (
    ReleaseStatus,
    from_notes,
    scale_status,
    score_statuses,
    scree_status,
    unusable_frame,
    unusable_histogram,
)
from dppca.results.pca import DPPCAResult
from dppca.results.reference import NonPrivatePCA


def dp_pca(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    split: dict[str, Any] | PCASplit | None = None,
    k: int | None = None,
    scree: str = "clipped",
    score: str = "thresholded",
    bins: Any = None,
    axes: Any = (1, 2),
    groups: Any = None,
    group_levels: Any = None,
    scree_control: dict[str, Any] | None = None,
    mono: bool = True,
    scale: Any = None,
    directions: Any = None,
    transform: Any = "spherical",
    radius: Any = None,
    pairs: Any = "auto",
    sensitivity: Any = "tight",
    calibration: str = "analytic",
    mechanism: str = "gaussian",
    composition: str | None = None,
    non_private: bool = False,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    progress: bool = True,
    frame: Any = None,
    on_weak: str = "refuse",
) -> DPPCAResult:
    """Differentially private PCA: directions, scree and score histogram in one release.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        At least two variables. No centring is applied (no release needs it: the directions,
        the scree and the frame are translation invariant or private); scaling only with
        ``scale``.
    epsilon, delta : float
        The total budget.
    split : dict or PCASplit, optional
        How the total is shared between the releases this call makes: keys ``"loading"``,
        ``"scree"``, ``"score"``, and ``"scale"`` with ``scale="private"`` (no ``"loading"``
        with given ``directions``): shares (positive, summing to 1 within 1e-8, applied to
        epsilon and delta alike) or absolute :class:`Budget` values (together at most the
        total), or a :class:`~dppca.privacy.split.PCASplit`. By default each release weighs 3
        and a private scale 1, normalised over the releases made: a third each for loading,
        scree and score; 0.1 and 0.3 each with ``scale="private"``; a half each for scree and
        score with given directions; 1/7 and 3/7 each with both.
    k : int, optional
        Components in the scree, ``2 <= k <= p``; default ``p``.
    scree : {"clipped", "pmwm", "huber"}, default "clipped"
        The default needs no tuning; the others need ``scree_control`` (see :func:`dp_scree`).
    score : {"thresholded", "add", "sparse"}, default "thresholded"
        The score histogram: Gaussian noise on every cell with counts below 3 noise sd set to
        0 (``"thresholded"``), the same without the threshold (``"add"``, the R package's), or
        Laplace noise on occupied cells above a threshold (``"sparse"``).
    bins : int or (int, int), optional
        Cells along x and y; default ``sqrt(n / (3 sigma))`` per axis within ``[4, 40]``, with
        ``sigma`` the additive histogram's noise sd
        (:func:`~dppca.releases.histogram.default_bins`).
    axes : (int, int), default (1, 2)
        Two different PC numbers between 1 and ``k``.
    groups : str or array-like, optional
        Public labels (a column name of a DataFrame ``X`` or one label per row): one histogram
        per group on the shared frame (parallel composition).
    group_levels : sequence, optional
        The public set of group labels, declared: every level is released, empty or not, so
        whether a label occurs in the data stays private (the categories of a pandas
        Categorical count as declared). Without it the labels found in the data are taken as
        the public set, which reveals that each of them occurs.
    scree_control : dict, optional
        Parameters of the scree method.
    mono : bool, default True
        Non-increasing, non-negative scree by antitonic least squares.
    scale : None, "private" or array-like of shape (n_features,), optional
        Divide each variable by a scale first, for data in mixed units: ``"private"`` releases
        robust scales with the ``"scale"`` share of the budget (:func:`~dppca.dp_scale`); an
        array gives public scales (known units, or scales released earlier). Every release and
        the non-private reference then refer to the scaled variables; the scales are in
        :attr:`DPPCAResult.scales`. Scaled values beyond 1e300 in size are clamped there.
    directions : array-like of shape (p, p), optional
        Orthonormal directions (columns) to use instead of estimating them (the R package's
        ``V_dp``: public directions, or directions released earlier): no loading budget is
        spent, the split shares the total between scree and score.
    transform, radius : optional
        The generalized spatial sign of the directions (see :func:`dp_loading`).
    pairs : "auto", "all" or int, default "auto"
        All pairs in the Kendall matrix, or the ``pairs``-regular incomplete U-statistic (linear
        in n, same sensitivity; see :func:`dp_loading`); ``"auto"``: all pairs up to 20,000
        rows, ``pairs=64`` above.
    sensitivity : {"tight", "paper"}, default "tight"
        The Kendall matrix's Frobenius sensitivity (see :func:`dp_loading`).
    calibration : {"analytic", "classical"}, default "analytic"
        Gaussian calibration of the directions and of an additive histogram.
    mechanism : {"gaussian", "paper"}, default "gaussian"
        ``"paper"``: the R package's calibration (Kim and Jung 2025) for the directions
        (``sensitivity="paper"``, ``calibration="classical"``), the clipped scree (each
        ``W_jl`` clipped at a public ``C_clip``, ``scree_control={"C_clip": ...}`` required,
        noise sd ``sqrt(k) C_clip / (m mu)``) and the histograms (classical Gaussian; the
        sparse method is the same in both). The frame keeps this package's grid quantiles
        (the R package's unbounded search can run away on real data). It overrides
        ``sensitivity``, ``calibration`` and ``composition`` (the R package splits the total
        linearly: basic composition), and every release of the call (the private scales too)
        then draws continuous floating-point noise unless ``sampler`` says otherwise.
    composition : {"tight", "basic"} or None, default None
        None means ``"tight"``, or ``"basic"`` with the classical calibration (kept to
        reproduce the paper, which splits the total linearly). ``"tight"``: the releases are
        planned together so that their composition by privacy losses (exact Gaussian DP for
        continuous Gaussian noise, a zero-concentrated DP bound for the discrete sampler,
        randomized response for the pure-epsilon quantiles; see
        :mod:`dppca.privacy.composition`) meets the total: every part's epsilon is multiplied
        by the largest common factor that keeps the composed delta at the total epsilon
        within the total delta, so ``split`` says how the total is shared, and each release
        gets less noise than under ``"basic"``, which cuts the total into the split's parts
        and adds them up. The factor is in ``settings["composition"]``; each ledger entry
        holds its release's own guarantee and privacy loss, and the ledger's total is their
        composition.
    non_private : bool, default False
        Also compute the ordinary-PCA reference (:class:`NonPrivatePCA`), not private.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with the total before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.
    progress : bool, default True
        A progress bar on stderr while the Kendall matrix takes more than two seconds.
    frame : ((xmin, xmax), (ymin, ymax)), optional
        Public limits of the score plot, known without the data (see :func:`dp_score`); the
        score budget then goes to the histogram alone.
    on_weak : {"refuse", "release"}, default "refuse"
        What to do when the budget cannot locate a release at this ``n`` (the score frame, the
        scree's clip level or scales, the variables' private scales, an automatic radius;
        judged from public values, :mod:`dppca.privacy.requirements`): refuse before anything
        is spent, with the smallest epsilon (at this ``n``) and ``n`` (at this epsilon) that
        would work and the public alternative; or release anyway (for studies), with a
        warning per release. With ``scale="private"``, ``"refuse"`` also stops the call after
        the scales (raising :class:`~dppca.UnreliableScaleError`, only their part spent) when
        a released scale is flagged unreliable; ``"release"`` consents to the other scales'
        geometric mean for it.

    Returns
    -------
    DPPCAResult

    Raises
    ------
    ValueError, TypeError
        Invalid input, before any budget is charged or noise drawn.
    UnlocatableError
        With ``on_weak="refuse"``, when a release cannot be located (nothing is spent).
    UnreliableScaleError
        With ``on_weak="refuse"`` and ``scale="private"``, when a released scale is flagged
        unreliable (only the scales' part is spent; the error holds them).
    BudgetExceededError
        When ``accountant`` cannot cover the total (nothing is charged).
    EmptyHistogramError
        With ``score="add"``, when the noisy histogram is all zero after clipping (an error,
        as in the R package; the budget is spent). Use a larger epsilon or fewer bins.

    Warns
    -----
    NoiseDominatedWarning
        When a release is dominated by its noise, judged from released values and public
        settings only (they are also in :attr:`DPPCAResult.notes`).

    Notes
    -----
    Outcomes that depend on the private data are reported, never hidden: a sparse histogram
    that no cell survives is all zero (its plot says so, and sampling from it warns with
    :class:`~dppca.releases.sampling.NoMassWarning`); capped quantile searches warn.

    Examples
    --------
    >>> from dppca import dp_pca
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dp_pca(X, 4.0, 1e-6, random_state=1)
    >>> bool(abs(result.directions[0, 0]) > 0.99)  # the first direction is the first axis
    True
    >>> result.pve.round(2).tolist()  # the non-private PVE is 0.64, 0.28, 0.07, 0.02
    [0.62, 0.27, 0.09, 0.02]
    >>> result.privacy.total <= dppca.Budget(4.0, 1e-6)  # the composition of its parts
    True
    >>> round(result.settings["composition"]["factor"], 2)  # each part's share of epsilon x 1.6
    1.62
    """
    X, labels = take_group_column(X, groups)
    data, names = checked_rows(X)
    n, p = data.shape
    if p < 2:
        raise ValueError(f"X must have at least 2 variables for dp_pca; got {p}.")
    if len(set(names)) != len(names):
        raise ValueError("X must have unique variable names.")
    planned = plan_pca(
        (n, p),
        epsilon,
        delta,
        split=split,
        k=k,
        scree=scree,
        score=score,
        bins=bins,
        axes=axes,
        scree_control=scree_control,
        mono=mono,
        scale=scale,
        directions=directions,
        transform=transform,
        radius=radius,
        pairs=pairs,
        sensitivity=sensitivity,
        calibration=calibration,
        mechanism=mechanism,
        composition=composition,
        sampler=sampler,
        frame=frame,
    )
    on_weak = check_on_weak(on_weak)
    non_private = check_bool(non_private, "non_private")
    progress = check_bool(progress, "progress")
    total, composition, factor, planner = (
        planned.total,
        planned.composition,
        planned.factor,
        planned.planner,
    )
    if planner.private_scale and isinstance(data, DaskRows):
        raise ValueError(
            "scale='private' needs the data in memory (its clip levels use every variable's "
            "pair differences); for Dask data pass public scales (p positive numbers) or None."
        )
    k, public_scales, given = planner.k, planned.public_scales, planned.given
    budgets, private_scale = planner.budgets, planner.private_scale
    scree, score, control, mono, sampler = (
        planner.scree,
        planner.score,
        planner.scree_control,
        planner.mono,
        planner.sampler,
    )
    with public_notes() as planning_notes:  # warnings from public values, kept as notes
        plans = planner(factor)
        codes, levels = (None, None)
        if labels is not None:
            codes, levels = encode_groups(labels, n, group_levels)
        elif group_levels is not None:
            raise ValueError("group_levels applies when groups are given; got groups=None.")
        rng = check_random_state(random_state)
        planned.enforce(on_weak, "dp_pca")  # after every format check, before the charge
        warn_weak_budget(total.epsilon, total.delta, n)
    scale_plan, loading_plan, scree_plan, plan = (
        plans.scale,
        plans.loading,
        plans.scree,
        plans.score,
    )
    ledger = PrivacyLedger.for_total(total.epsilon, composition)
    parts = planner.budgets.scaled(factor)
    stages = {
        label: (budget, stage)
        for label, budget, stage in [
            ("private scales", parts.scale, scale_plan),
            ("directions", parts.loading, loading_plan),
            ("scree", parts.scree, scree_plan),
            ("score plot", parts.score, plan),
        ]
        if stage is not None
    }
    ran = run_plans(
        data,
        names,
        stages,
        Charging(accountant, total, composition, "dp_pca", on_weak),
        rng,
        ledger,
        public_scales=public_scales,
        given=given,
        progress=progress,
    )
    data, scales, scale_details, directions = (
        ran.data,
        ran.scales,
        ran.scale_details,
        ran.directions,
    )
    assert ran.scree is not None  # dp_pca always plans a scree
    scree_values, scree_details = ran.scree
    kendall_eigenvalues, kendall_sigma = None, None
    loading_settings: dict[str, Any] = {"directions": "given"}
    if ran.loading is not None:
        kendall_eigenvalues, kendall_sigma = ran.loading.kendall_eigenvalues, ran.loading.sigma
        loading_settings = ran.loading.settings
    release = score_release(
        data,
        directions,
        plan,
        codes,
        levels,
        rng,
        ledger,
        spread=axes_spread(scree_values, plan.axes),
    )
    reference = None
    if non_private:
        reference = _non_private_pca(data, directions, k, plan, release, codes, levels)
    groups_out = None
    if release.groups is not None:
        groups_out = {level: tables[score] for level, tables in release.groups.items()}
    scree_sd = np.asarray(scree_details["noise_sd"], dtype=np.float64)
    noise = {
        "kendall_sigma": kendall_sigma,
        "scree_sd": scree_sd,
        "histogram": dict(plan.noise),  # the one requested method's parameters, in counts
        "histogram_mass": release.mass[score],
    }
    released_notes = [] if scale_details is None else scale_notes(scale_details)
    status: dict[str, ReleaseStatus] = {}
    if scale_details is not None:
        status["scales"] = scale_status(scale_details["unreliable"], p, scale_details["guessed"])
    if kendall_eigenvalues is not None and kendall_sigma is not None:
        noted = direction_notes(kendall_eigenvalues, kendall_sigma, plan.axes)
        status["directions"] = from_notes(noted)
        released_notes += noted + one_variable_notes(directions, names, scales is not None)
    status["scree"] = scree_status(scree_values, scree_sd, scree_details)
    released_notes += variance_notes(scree_values, scree_sd, plan.axes) + order_notes(
        scree_details["raw"], scree_sd, mono
    )
    if not status["scree"].usable:
        released_notes.append(f"The scree is {status['scree']}.")
    histogram = release.histograms[score]
    noted = histogram_notes(release.mass[score], n)
    status.update(score_statuses(release.frame, histogram, noted))
    if not status["scree"].usable and not release.frame.is_public:
        lost = status["scree"].state
        status["frame"] = ReleaseStatus(lost, "its width comes from the scree, not usable")
        status["histogram"] = ReleaseStatus(lost, "it lies on an unusable frame")
    if status["frame"].state != "ok" and not release.frame.is_public:
        released_notes.append(f"The score frame is {status['frame']}.")
    released_notes += noted
    emit(released_notes)
    frame = release.frame
    if not status["scree"].usable:  # released as NaN, with the reason in the status
        scree_values = np.full_like(scree_values, np.nan)
    if not status["frame"].usable:
        frame = unusable_frame(frame)
        histogram = unusable_histogram(histogram)
        if groups_out is not None:
            groups_out = {level: unusable_histogram(table) for level, table in groups_out.items()}
    return DPPCAResult(
        directions=directions,
        kendall_eigenvalues=kendall_eigenvalues,
        scree=scree_values,
        pve=proportions(scree_values),
        frame=frame,
        histogram=histogram,
        groups=groups_out,
        group_sizes=release.group_sizes,
        feature_names=names,
        n_samples=n,
        k=k,
        axes=plan.axes,
        bins=plan.bins,
        budgets=budgets,
        settings={
            "epsilon": total.epsilon,
            "delta": total.delta,
            "scale": _scale_settings(private_scale, public_scales, scale_details),
            "loading": loading_settings,
            "mechanism": mechanism,
            "composition": {"rule": composition, "factor": factor},
            "scree_method": scree,
            "scree_control": control,
            "scree_details": scree_details,
            "mono": mono,
            "score_method": score,
            "score": plan.settings(),
            "sampler": sampler,
        },
        privacy=ledger,
        non_private=reference,
        noise=noise,
        notes=tuple(planning_notes + released_notes),
        scales=scales,
        status=status,
    )


@dataclass(frozen=True)
class PipelinePlans:
    """The plans of one :func:`dp_pca` call (None for a release it does not make)."""

    scale: ScalePlan | None
    loading: LoadingPlan | None
    scree: ScreePlan
    score: ScorePlan


@dataclass(frozen=True)
class PipelinePlanner:
    """The checked public settings of one :func:`dp_pca` call; calling it with a ``factor``
    plans every release with each part's epsilon times ``factor`` (its delta kept), as
    :func:`~dppca.privacy.composition.planning_factor` needs.

    Examples
    --------
    >>> from dppca.privacy.budget import Budget
    >>> from dppca.releases.scree import check_scree_control
    >>> budgets = PCASplit.from_total(Budget(3.0, 1e-6), None, parts=("loading", "scree", "score"))
    >>> planner = PipelinePlanner(
    ...     shape=(1000, 4), budgets=budgets, k=4, private_scale=False,
    ...     estimate_directions=True, loading_options={}, scree="clipped",
    ...     scree_control=check_scree_control("clipped", None, 4, "scree_control"), mono=True,
    ...     score="thresholded", bins=None, axes=(1, 2), calibration="analytic",
    ...     sampler="continuous")
    >>> planner(1.5).loading.mechanism.epsilon  # a third of epsilon, times 1.5
    1.5
    """

    shape: tuple[int, int]
    budgets: PCASplit
    k: int
    private_scale: bool
    estimate_directions: bool
    loading_options: dict[str, Any]
    scree: str
    scree_control: dict[str, Any]
    mono: bool
    score: str
    bins: Any
    axes: Any
    calibration: str
    sampler: str
    frame: Any = None

    def __call__(self, factor: float) -> PipelinePlans:
        parts = self.budgets.scaled(factor)
        n = self.shape[0]
        return PipelinePlans(
            scale=plan_scale(self.shape, parts.scale, self.sampler) if self.private_scale else None,
            loading=plan_loading(
                self.shape, parts.loading, sampler=self.sampler, **self.loading_options
            )
            if self.estimate_directions
            else None,
            scree=plan_scree(
                self.scree, self.scree_control, n, self.k, parts.scree, self.sampler, mono=self.mono
            ),
            score=plan_score(
                parts.score,
                self.bins,
                self.score,
                self.axes,
                self.k,
                self.calibration,
                sampler=self.sampler,
                n=n,
                axes_limit="k",
                frame=self.frame,
                spread="given",
            ),
        )


@dataclass(frozen=True)
class PCAPlan:
    """What a :func:`dp_pca` call will release, planned from public facts alone (the number of
    rows and variables and the settings): no data are read and no noise is drawn.

    Attributes
    ----------
    total : Budget
        The call's total (epsilon, delta).
    composition : {"tight", "basic"}
    factor : float
        Each part's epsilon is its share of the total times this factor (1 for basic
        composition; above 1 when tight composition of the parts' privacy losses allows it).
    planner : PipelinePlanner
        Makes the releases' plans at a factor.
    public_scales, given : ndarray or None
        Validated public scales and given directions.

    Examples
    --------
    >>> from dppca import plan_pca
    >>> plan = plan_pca((1000, 4), 2.0, 1e-6, composition="basic")
    >>> plan.factor, plan.planner.k
    (1.0, 4)
    """

    total: Budget
    composition: str
    factor: float
    planner: PipelinePlanner
    public_scales: np.ndarray | None
    given: np.ndarray | None
    #: The settings given to :func:`plan_pca` (to plan the same call at another n or epsilon).
    options: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def requirements(self) -> list[Requirement]:
        """What the releases' budgets must locate (:mod:`dppca.privacy.requirements`), met or
        not."""
        return plan_requirements(self.planner(self.factor))

    @property
    def unmet(self) -> list[Requirement]:
        """The requirements this plan does not meet (empty when every release can be
        located)."""
        return [need for need in self.requirements if not need.met]

    def enforce(self, on_weak: str = "refuse", call: str = "dp_pca") -> None:
        """Refuse the plan (:class:`~dppca.UnlocatableError`, with the smallest epsilon and
        ``n`` that would work) or, with ``on_weak="release"``, warn, when a requirement is not
        met (see :func:`~dppca.privacy.requirements.enforce`).

        Examples
        --------
        >>> from dppca import UnlocatableError, plan_pca
        >>> plan = plan_pca((178, 13), 4.0, 1e-6)
        >>> try:
        ...     plan.enforce()
        ... except UnlocatableError as error:
        ...     print(str(error)[:62])
        dp_pca cannot locate at n=178, epsilon=4: score: frame (centre
        """
        n, p = self.planner.shape

        def requirements_at(size: int, epsilon: float) -> list[Requirement]:
            if epsilon == self.total.epsilon:  # the tight factor does not depend on n
                return plan_requirements(replace(self.planner, shape=(size, p))(self.factor))
            return plan_pca((size, p), epsilon, self.total.delta, **self.options).requirements

        enforce(requirements_at, n, self.total.epsilon, check_on_weak(on_weak), call)

    def budget_table(self) -> pd.DataFrame:
        """One row per release: its own (epsilon, delta) and what it buys; the last row is the
        total they compose to (tight composition: less than the sum of the rows' epsilons).

        Examples
        --------
        >>> plan_pca((5000, 10), 3.0, 1e-6).budget_table().round({"epsilon": 3})
                                  release  epsilon         delta
        0     directions (Kendall matrix)    1.655  3.333333e-07
        1  variances along the directions    1.655  3.333333e-07
        2               score plot: frame    0.579  0.000000e+00
        3           score plot: histogram    1.076  3.333333e-07
        4      total, as composed (tight)    3.000  1.000000e-06
        """
        parts = self.planner.budgets.scaled(self.factor)
        score = self.planner(self.factor).score
        rows = []
        if parts.scale.epsilon:
            rows.append(("scales of the variables", parts.scale.epsilon, parts.scale.delta))
        if parts.loading.epsilon:
            rows.append(("directions (Kendall matrix)", parts.loading.epsilon, parts.loading.delta))
        rows.append(("variances along the directions", parts.scree.epsilon, parts.scree.delta))
        public = isinstance(score.frame, Frame)
        rows.append((f"score plot: frame{' (public)' * public}", score.frame_epsilon, 0.0))
        rows.append(("score plot: histogram", score.histogram_epsilon, parts.score.delta))
        rows.append(
            (f"total, as composed ({self.composition})", self.total.epsilon, self.total.delta)
        )
        return pd.DataFrame(rows, columns=["release", "epsilon", "delta"])


def plan_pca(
    shape: tuple[int, int],
    epsilon: float,
    delta: float,
    *,
    split: dict[str, Any] | PCASplit | None = None,
    k: int | None = None,
    scree: str = "clipped",
    score: str = "thresholded",
    bins: Any = None,
    axes: Any = (1, 2),
    scree_control: dict[str, Any] | None = None,
    mono: bool = True,
    scale: Any = None,
    directions: Any = None,
    transform: Any = "spherical",
    radius: Any = None,
    pairs: Any = "auto",
    sensitivity: Any = "tight",
    calibration: str = "analytic",
    mechanism: str = "gaussian",
    composition: str | None = None,
    sampler: str | None = None,
    frame: Any = None,
) -> PCAPlan:
    """Validate :func:`dp_pca`'s settings for data of ``shape = (n, p)`` and plan its releases,
    without data: a preview of the budget each release gets (:meth:`PCAPlan.budget_table`).

    The parameters are :func:`dp_pca`'s; every setting is checked here, before any data are
    read, with the same errors.

    Examples
    --------
    >>> from dppca import plan_pca
    >>> plan = plan_pca((2504, 55), 4.0, 1e-7, k=10, split={"loading": 0.5, "scree": 0.25,
    ...                                                      "score": 0.25})
    >>> plan.budget_table()["epsilon"].round(2).tolist()
    [3.1, 1.55, 0.54, 1.01, 4.0]
    """
    options = {
        "split": split,
        "k": k,
        "scree": scree,
        "score": score,
        "bins": bins,
        "axes": axes,
        "scree_control": scree_control,
        "mono": mono,
        "scale": scale,
        "directions": directions,
        "transform": transform,
        "radius": radius,
        "pairs": pairs,
        "sensitivity": sensitivity,
        "calibration": calibration,
        "mechanism": mechanism,
        "composition": composition,
        "sampler": sampler,
        "frame": frame,
    }
    n, p = check_shape(shape)
    if p < 2:
        raise ValueError(f"X must have at least 2 variables for dp_pca; got {p}.")
    total = Budget(check_epsilon(epsilon), check_delta(delta))
    private_scale, public_scales = check_scale(scale, p)
    given = None if directions is None else check_directions(directions, p)
    parts = ("scale",) * private_scale + ("loading",) * (given is None) + ("scree", "score")
    budgets = PCASplit.from_total(total, split, parts=parts)
    k = p if k is None else check_positive_int(k, "k")
    if not 2 <= k <= p:
        raise ValueError(f"k must be an integer in [2, p={p}]; got {k}.")
    scree = check_option(scree, "scree", SCREE_METHODS)
    score = check_option(score, "score", HISTOGRAM_METHODS)
    mechanism = check_option(mechanism, "mechanism", MECHANISMS)
    if mechanism == "paper":
        sensitivity, calibration = "paper", "classical"
        if scree == "clipped" and (scree_control is None or isinstance(scree_control, dict)):
            scree_control = {"clip_by": "component", **(scree_control or {})}
    control = check_scree_control(scree, scree_control, k, "scree_control")
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    sampler = resolve_sampler(sampler, calibration)
    composition = resolve_composition(composition, calibration)
    planner = PipelinePlanner(
        shape=(n, p),
        budgets=budgets,
        k=k,
        private_scale=private_scale,
        estimate_directions=given is None,
        loading_options={
            "transform": transform,
            "radius": radius,
            "sensitivity": sensitivity,
            "pairs": pairs,
            "calibration": calibration,
        },
        scree=scree,
        scree_control=control,
        mono=check_bool(mono, "mono"),
        score=score,
        bins=bins,
        axes=axes,
        calibration=calibration,
        sampler=sampler,
        frame=frame,
    )
    factor = planning_factor(planner, total.epsilon, total.delta, composition)
    return PCAPlan(total, composition, factor, planner, public_scales, given, options)


def axes_spread(scree: np.ndarray, axes: tuple[int, int]) -> float:
    """The score frame's spread from the private scree at no cost: the standard deviation of
    the wider of the two plotted components (NaN when the scree is not usable)."""
    widest = max(float(scree[axes[0] - 1]), float(scree[axes[1] - 1]))
    return math.sqrt(widest) if widest >= 0 else math.nan


def plan_requirements(plans: PipelinePlans) -> list[Requirement]:
    """Every requirement of a call's plans, in the order of its releases."""
    found: list[Requirement] = []
    for plan in (plans.scale, plans.loading, plans.scree, plans.score):
        if plan is not None:
            found.extend(plan.requirements)
    return found


def check_shape(shape: Any) -> tuple[int, int]:
    """``(n, p)``: at least 2 rows and 1 variable."""
    if isinstance(shape, str) or not isinstance(shape, tuple | list) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n, p); got {shape!r}.")
    n, p = (check_positive_int(value, name) for value, name in zip(shape, "np", strict=True))
    if n < 2:
        raise ValueError(f"n must be at least 2; got {n}.")
    return n, p


def _scale_settings(
    private: bool, public: np.ndarray | None, details: dict[str, Any] | None
) -> dict[str, Any] | None:
    if private:
        return {"kind": "private", **(details or {})}
    return None if public is None else {"kind": "public"}


def _non_private_pca(
    data: Rows,
    directions: np.ndarray,
    k: int,
    plan: ScorePlan,
    release: ScoreRelease,
    codes: np.ndarray | None,
    levels: list[Any] | None,
) -> NonPrivatePCA:
    """Ordinary PCA, sign-aligned to the private directions and binned on the private frame."""
    eigenvalues, vectors = ordinary_pca(data, directions)
    top = eigenvalues[:k]
    scores = project(data, vectors[:, [plan.axes[0] - 1, plan.axes[1] - 1]])
    cells = grid_cells(release.frame, plan.bins)
    index = cell_index(scores, release.frame, plan.bins)
    empirical = empirical_scores(scores, plan.axis_labels, index, cells, codes, levels)
    return NonPrivatePCA(
        directions=vectors,
        eigenvalues=top,
        pve=proportions(top),
        scores=empirical.scores,
        histogram=empirical.histogram,
        groups=empirical.groups,
        variable_sd=np.sqrt(np.diag(sample_covariance(data))),
    )
