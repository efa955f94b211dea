"""``dp_pca``: private directions, scree and score histogram in one call.

The total (epsilon, delta) is split between the loading (directions), the scree and the score
(frame and histogram) releases, by default a third each for epsilon and for delta. One set of
private directions feeds the scree and the score histogram. The result holds only private
releases and their post-processing, plus, when asked, a non-private ordinary-PCA reference that is
named as such and never feeds a private release.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import encode_groups, take_group_column, warn_undeclared_levels
from dppca._validation import (
    check_bool,
    check_random_state,
)
from dppca.numerics.dask_rows import DaskRows
from dppca.numerics.monotone import proportions
from dppca.numerics.rows import Rows, checked_rows, ordinary_pca, projected, sample_covariance
from dppca.orchestrator import Charging, run_plans
from dppca.planning import (
    LoadingLike,
    NoiseLike,
    ScoreLike,
    ScreeLike,
    accepts_moved_keywords,
    plan_pca,
)
from dppca.privacy.accountant import Accountant
from dppca.privacy.budget import PrivacyLedger, warn_weak_budget
from dppca.privacy.requirements import check_on_weak
from dppca.privacy.split import PCASplit
from dppca.releases.histogram import cell_index, grid_cells
from dppca.releases.loading.release import refuse_dask_sscm
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
    scale_notes,
)
from dppca.releases.scores import (
    ScorePlan,
    ScoreRelease,
    empirical_scores,
    score_release,
)
from dppca.results.compared import ComparedMethods
from dppca.results.pca import DPPCAResult
from dppca.results.reference import NonPrivatePCA
from dppca.results.status import (
    ReleaseStatus,
    from_notes,
    scale_status,
    score_statuses,
    scree_status,
    unusable_frame,
    unusable_histogram,
)


@accepts_moved_keywords
def dp_pca(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    split: dict[str, Any] | PCASplit | None = None,
    loading: LoadingLike = None,
    scree: ScreeLike = "clipped",
    score: ScoreLike = "thresholded",
    noise: NoiseLike = None,
    scale: Any = None,
    directions: Any = None,
    groups: Any = None,
    non_private: bool = False,
    random_state: Any = None,
    accountant: Accountant | None = None,
    progress: bool = True,
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
    loading : LoadingSettings, dict or str, optional
        How the directions are estimated (:class:`~dppca.LoadingSettings`: the spatial sign,
        its radius, the pairs, the sensitivity); a string is the sign transform.
    scree : ScreeSettings, dict or {"clipped", "pmwm", "huber"}, default "clipped"
        How the scree is released (:class:`~dppca.ScreeSettings`: the method, the number of
        components ``k`` with ``2 <= k <= p``, default ``p``, the method's control, the
        antitonic fit); a string is the method. The default needs no tuning; the others need
        a control (see :func:`dp_scree`).
    score : ScoreSettings, dict or {"thresholded", "add", "sparse"}, default "thresholded"
        How the score plot is released (:class:`~dppca.ScoreSettings`: the histogram method,
        the bins, the two axes, between 1 and ``k``, public frame limits, the declared group
        levels); a string is the method.
    noise : NoiseSettings, dict or {"gaussian", "paper"}, optional
        How every release draws and accounts its noise (:class:`~dppca.NoiseSettings`: the
        mechanism family, the calibration, the composition rule, the sampler); a string is the
        mechanism. ``"paper"``: the R package's calibration (Kim and Jung 2025) for the
        directions, the clipped scree (each ``W_jl`` clipped at a public ``C_clip``, noise sd
        ``sqrt(k) C_clip / (m mu)``) and the histograms; the frame keeps this package's grid
        quantiles (the R package's unbounded search can run away on real data). With the
        default tight composition the releases are planned together so that the composition
        of their privacy losses meets the total: every part's epsilon is multiplied by the
        largest common factor that keeps the composed delta within the total, so ``split``
        says how the total is shared and each release gets less noise than under ``"basic"``.
        The factor is in ``settings["composition"]``; each ledger entry holds its release's
        own guarantee and privacy loss, and the ledger's total is their composition.
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
    groups : str or array-like, optional
        Public labels (a column name of a DataFrame ``X`` or one label per row): one histogram
        per group on the shared frame (parallel composition).
    non_private : bool, default False
        Also compute the ordinary-PCA reference (:class:`NonPrivatePCA`), not private.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with the total before any noise is drawn.
    progress : bool, default True
        A progress bar on stderr while the Kendall matrix takes more than two seconds.
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
        When the first score method is ``"add"`` and its noisy histogram is all zero after
        clipping (an error, as in the R package; the budget is spent). Use a larger epsilon or
        fewer bins. An additive histogram only compared with the first method's is marked not
        usable instead.

    Warns
    -----
    NoiseDominatedWarning
        When a release is dominated by its noise, judged from released values and public
        settings only (they are also in :attr:`DPPCAResult.notes`).

    Notes
    -----
    Outcomes that depend on the private data are reported, never hidden: a sparse histogram
    that no cell survives is all zero (its plot says so, and sampling from it warns with
    :class:`~dppca.results.sampling.NoMassWarning`); capped quantile searches warn.

    Examples
    --------
    >>> from dppca import dp_pca
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dp_pca(X, 4.0, 1e-6, random_state=1)
    >>> bool(abs(result.directions[0, 0]) > 0.99)  # the first direction is the first axis
    True
    >>> result.pve.round(2).tolist()  # the non-private PVE is 0.64, 0.28, 0.07, 0.02
    [0.63, 0.27, 0.08, 0.02]
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
    call = {
        "split": split,
        "loading": loading,
        "scree": scree,
        "score": score,
        "noise": noise,
        "scale": scale,
        "directions": directions,
    }
    planned = plan_pca((n, p), epsilon, delta, **call)
    asked = planned.options["loading"]
    if isinstance(data, DaskRows) and asked.statistic == "auto":  # the SSCM needs the rows
        kendall = {**call, "loading": asked.as_kendall()}
        planned = plan_pca((n, p), epsilon, delta, **kendall)
    on_weak = check_on_weak(on_weak)
    non_private = check_bool(non_private, "non_private")
    progress = check_bool(progress, "progress")
    total, composition, factor, planner, settings = (
        planned.total,
        planned.composition,
        planned.factor,
        planned.planner,
        planned.settings,
    )
    refuse_dask_sscm(settings.loading, data)
    if planner.private_scale and isinstance(data, DaskRows):
        raise ValueError(
            "scale='private' needs the data in memory (its clip levels use every variable's "
            "pair differences); for Dask data pass public scales (p positive numbers) or None."
        )
    k, public_scales, given = planner.k, planned.public_scales, planned.given
    budgets, private_scale = planner.budgets, planner.private_scale
    method, mono = settings.score.methods[0], settings.scree.mono
    with public_notes() as planning_notes:  # warnings from public values, kept as notes
        plans = planner(factor)
        codes, levels = (None, None)
        if labels is not None:
            codes, levels = encode_groups(labels, n, settings.score.group_levels)
            warn_undeclared_levels(labels, settings.score.group_levels)
        elif settings.score.group_levels is not None:
            raise ValueError("group_levels applies when groups are given; got groups=None.")
        rng = check_random_state(random_state)
        planned.enforce(on_weak, "dp_pca")  # after every format check, before the charge
        warn_weak_budget(total.epsilon, total.delta, n)
    plan = plans.score
    assert plan is not None and plans.scree is not None  # dp_pca plans both
    ledger = PrivacyLedger.for_total(total.epsilon, composition)
    ran = run_plans(
        data,
        names,
        planner.stages(plans, factor),
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
    scree_method, *_ = ran.scree
    scree_values, scree_details = ran.scree[scree_method]
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
        compared=True,
    )
    reference = None
    if non_private:
        reference = _non_private_pca(data, directions, k, plan, release, codes, levels)
    groups_out = None
    if release.groups is not None:
        groups_out = {level: tables[method] for level, tables in release.groups.items()}
    scree_sd = np.asarray(scree_details["noise_sd"], dtype=np.float64)
    noise = {
        "kendall_sigma": kendall_sigma,
        "scree_sd": scree_sd,
        "histogram": dict(plan.noise),  # every method's parameters, in counts (one budget)
        "histogram_mass": release.mass[method],
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
    histogram = release.histograms[method]
    noted = histogram_notes(release.mass[method], n)
    status.update(score_statuses(release.frame, histogram, noted))
    if not status["scree"].usable and not release.frame.is_public:
        lost = status["scree"].state
        status["frame"] = ReleaseStatus(lost, "its width comes from the scree, not usable")
        status["histogram"] = ReleaseStatus(lost, "it lies on an unusable frame")
    if status["frame"].state != "ok" and not release.frame.is_public:
        released_notes.append(f"The score frame is {status['frame']}.")
    released_notes += noted
    if ran.loading is not None and not ran.loading.directions_status.usable:  # released values
        unlocated = ran.loading.directions_status
        released_notes.append(f"The directions are {unlocated}.")
        status["directions"] = unlocated
        for part in ("scree", "frame", "histogram"):
            status[part] = ReleaseStatus(
                unlocated.state, "it lies along directions that are not usable"
            )
        directions = np.full_like(directions, np.nan)
        if kendall_eigenvalues is not None:
            kendall_eigenvalues = np.full_like(kendall_eigenvalues, np.nan)
    compared, compared_notes = _compared(ran.scree, release, status, n)
    released_notes += compared_notes
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
            "mechanism": settings.noise.mechanism,
            "composition": {"rule": composition, "factor": factor},
            "scree_method": scree_method,
            "scree_control": dict(plans.scree[0].control),
            "scree_details": scree_details,
            "compared_scree": {
                plan.method: {"control": dict(plan.control), "details": ran.scree[plan.method][1]}
                for plan in plans.scree[1:]
            },
            "mono": mono,
            "score_method": method,
            "score": plan.settings(),
            "sampler": settings.noise.sampler,
            "call": settings.to_dict(),
        },
        privacy=ledger,
        non_private=reference,
        noise=noise,
        notes=tuple(planning_notes + released_notes),
        scales=scales,
        status=status,
        compared=compared,
    )


def _compared(
    screes: dict[str, tuple[np.ndarray, dict[str, Any]]],
    release: ScoreRelease,
    status: dict[str, ReleaseStatus],
    n: int,
) -> tuple[ComparedMethods, list[str]]:
    """The releases of the scree and histogram methods after the first, each judged from its
    own released values (its status added to ``status``), NaN where not usable or where the
    directions or the frame they rest on are not; and their notes."""
    notes: list[str] = []
    scree: dict[str, np.ndarray] = {}
    for method, (values, details) in list(screes.items())[1:]:
        part = f"scree ({method})"
        sd = np.asarray(details["noise_sd"], dtype=np.float64)
        own = scree_status(values, sd, details)
        directions = status.get("directions", ReleaseStatus())
        status[part] = own if directions.usable else status["scree"]
        if not own.usable:
            notes.append(f"The {method} scree is {own}.")
        scree[method] = values if status[part].usable else np.full_like(values, np.nan)
    histograms: dict[str, pd.DataFrame] = {}
    groups: dict[str, dict[Any, pd.DataFrame]] | None = None if release.groups is None else {}
    for method in list(release.histograms)[1:]:
        part = f"histogram ({method})"
        noted = [
            note.replace("The score histogram", f"The {method} score histogram")
            for note in histogram_notes(release.mass[method], n)
        ]
        notes += noted
        own = from_notes(noted)
        if method == "add" and release.mass[method] <= 0:  # the first method's would raise
            own = ReleaseStatus("lost in the noise", "every noisy count was clipped to zero")
        status[part] = own if status["frame"].usable else status["histogram"]
        usable = status[part].usable
        table = release.histograms[method]
        histograms[method] = table if usable else unusable_histogram(table)
        if groups is not None and release.groups is not None:
            groups[method] = {
                level: tables[method] if usable else unusable_histogram(tables[method])
                for level, tables in release.groups.items()
            }
    return ComparedMethods(scree, histograms, groups), notes


def axes_spread(scree: np.ndarray, axes: tuple[int, int]) -> float:
    """The score frame's spread from the private scree at no cost: the standard deviation of
    the wider of the two plotted components (NaN when the scree is not usable)."""
    widest = max(float(scree[axes[0] - 1]), float(scree[axes[1] - 1]))
    return math.sqrt(widest) if widest >= 0 else math.nan


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
    scores = projected(data, vectors[:, [plan.axes[0] - 1, plan.axes[1] - 1]]).to_numpy()
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
