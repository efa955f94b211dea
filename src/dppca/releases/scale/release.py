"""The release of a scale plan with its flags and notes, ``dp_scale`` and its result, and the
stop of a PCA whose scale is unreliable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dppca._validation import (
    check_data,
    check_delta,
    check_epsilon,
    check_random_state,
    check_real,
)
from dppca.exceptions import UnreliableScaleError
from dppca.numerics.permutation import random_permutation
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    warn_weak_budget,
)
from dppca.privacy.mechanisms import Noise, resolve_sampler
from dppca.privacy.requirements import check_on_weak, enforce
from dppca.releases.notes import emit, public_notes
from dppca.releases.scale.plan import (
    DEFAULT_CLIP_SHARE,
    DEFAULT_LEVEL,
    FLAG_RATE,
    ScalePlan,
    plan_scale,
)
from dppca.releases.scree import joint_gaussian
from dppca.results.scale import ScaleResult


def scale_release(
    data: np.ndarray,
    names: list[str],
    plan: ScalePlan,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    label: str = "scale",
    *,
    guess: bool = False,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Release the scales of ``data``'s columns by a validated plan; entries go to ``ledger``
    (the caller has charged the budget). Returns the scales and their details (clip levels,
    released means, noise sd, the ``unreliable`` variables). An unreliable variable's scale is
    NaN, or with ``guess=True`` (the user's consent) the geometric mean of the others' (1 for
    every variable when none is reliable)."""
    noise = Noise(plan.sampler, rng)
    first, second = random_permutation(data.shape[0], rng).pairs()
    with np.errstate(over="ignore"):
        halves = np.abs(data[second] * 0.5 - data[first] * 0.5) * math.sqrt(2.0)
    halves = np.minimum(halves, np.finfo(np.float64).max)
    clips = np.empty(plan.p)
    for j, quantile in enumerate(plan.quantiles):
        clips[j] = quantile.release(halves[:, j], noise)
        quantile.record(ledger, f"{label}: clip level of {names[j]}", "scale")
    clips = np.clip(clips, *plan.widths)  # noise and released values stay finite
    values = np.hstack([np.minimum(halves, clips), (halves > 0).astype(np.float64)])
    widths = np.concatenate([clips, np.ones(plan.p)])
    released, sd = joint_gaussian(values, np.zeros(2 * plan.p), widths, plan.means, noise)
    plan.means.record(ledger, f"{label}: clipped mean differences and untied shares", "scale")
    means, untied = released[: plan.p], released[plan.p :]
    noise_sd, share_sd = sd[: plan.p], float(sd[plan.p])
    z = -float(special.ndtri(FLAG_RATE / plan.p))
    lost = (
        (means < z * noise_sd)
        | (untied < 1.0 - plan.level + z * share_sd)
        | (means / clips > untied - z * math.sqrt(2.0) * share_sd)
    )
    scales = np.maximum(means, noise_sd) / plan.consistency
    if not guess:
        scales[lost] = np.nan
    elif lost.all():  # nothing to scale by: the variables keep their units
        scales = np.ones(plan.p)
    elif lost.any():
        scales[lost] = math.exp(float(np.mean(np.log(scales[~lost]))))
    details = {
        "clips": clips,
        "means": means,
        "untied_shares": untied,
        "noise_sd": noise_sd,
        "share_sd": share_sd,
        "level": plan.level,
        "unreliable": [names[j] for j in np.flatnonzero(lost)],
        "guessed": bool(guess and lost.any()),
    }
    return scales, details


def scale_notes(details: dict[str, Any]) -> list[str]:
    """Variables whose release is unreliable (see :mod:`dppca.releases.scale`; judged from the
    released values)."""
    lost = details["unreliable"]
    if not lost:
        return []
    why = "lost in the noise, or its clip level lies among its ties or below its data"
    if not details["guessed"]:
        return [
            f"The private scale of {', '.join(lost)} is unreliable ({why}), so it is released "
            "as NaN. Give the scale more epsilon, pass public scales, or consent to a guess "
            "with on_weak='release' (the geometric mean of the other scales)."
        ]
    if len(lost) == len(details["means"]):
        return [
            f"No variable's private scale is reliable (each is {why}), so with "
            "on_weak='release' the data were not scaled (every scale is 1). Give the scale more "
            "epsilon, or pass public scales."
        ]
    return [
        f"The private scale of {', '.join(lost)} is unreliable ({why}); with "
        "on_weak='release' it was set to the geometric mean of the other scales. Give the "
        "scale more epsilon, or pass public scales."
    ]


def dp_scale(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    level: float = DEFAULT_LEVEL,
    clip_share: float = DEFAULT_CLIP_SHARE,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
    on_weak: str = "refuse",
) -> ScaleResult:
    """Differentially private scales of the variables: one robust spread per column.

    Divide the data by the released scales (post-processing) to put variables in mixed units on
    a common footing before a private PCA; ``dp_pca(..., scale="private")`` and
    ``DPPCA(scale="private")`` do this with a share of their budget.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    epsilon, delta : float
        The budget: ``clip_share`` of epsilon to the clip levels (``epsilon clip_share / p``
        each), the rest and all of delta to the means.
    level : float, default 0.99
        The level of each variable's clip quantile, in ``[0.5, 1)``; moved towards 1/2 as far
        as the budget needs to locate it (:func:`~dppca.privacy.quantiles.safe_level`).
    clip_share : float, default 0.5
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with ``(epsilon, delta)`` before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means): exact integer noise on a cryptographically secure
        stream; ``"continuous"``: numpy's floating-point noise, for studies.
    on_weak : {"refuse", "release"}, default "refuse"
        When the budget cannot locate the clip levels or resolve a normal variable's scale at
        this ``n`` and ``p`` (public values, :func:`resolving`): refuse before the charge,
        naming the smallest epsilon and ``n`` that would, or release anyway (for studies) with
        a warning. After the release, a variable whose scale is flagged unreliable gets NaN
        (``"refuse"``) or, with ``"release"`` as consent, the other scales' geometric mean.

    Returns
    -------
    ScaleResult

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when the scales cannot be resolved (nothing is spent).

    Notes
    -----
    See :mod:`dppca.releases.scale` for the method: clipped mean pair half-differences over
    their normal value. It costs ``p`` quantiles, so with many variables and few rows the clip
    levels are noisy (a warning says so before anything is spent); scales known in advance
    (public units, allele counts) can be passed as numbers instead.

    Examples
    --------
    >>> from dppca import dp_scale
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_t(3, size=(5000, 2)) * [1.0, 1000.0]
    >>> result = dp_scale(X, 2.0, 1e-6, random_state=0)
    >>> bool(500 < result.scales[1] / result.scales[0] < 2000)
    True
    """
    data, names = check_data(X)
    budget = Budget(check_epsilon(epsilon), check_delta(delta))
    resolved = resolve_sampler(sampler)
    level = check_real(level, "level", low=0.5, high=1.0, low_inclusive=True)
    clip_share = check_real(clip_share, "clip_share", low=0.0, high=1.0)
    on_weak = check_on_weak(on_weak)

    def planned(n: int, epsilon: float) -> ScalePlan:
        at = Budget(epsilon, budget.delta)
        return plan_scale((n, data.shape[1]), at, resolved, level=level, clip_share=clip_share)

    with public_notes() as planning_notes:
        plan = planned(data.shape[0], budget.epsilon)
        enforce(
            lambda n, epsilon: planned(n, epsilon).requirements,
            data.shape[0],
            budget.epsilon,
            on_weak,
            "dp_scale",
        )
        rng = check_random_state(random_state)
        warn_weak_budget(budget.epsilon, budget.delta, data.shape[0])
    charge(accountant, budget, "dp_scale")
    ledger = PrivacyLedger()
    scales, details = scale_release(data, names, plan, rng, ledger, guess=on_weak == "release")
    notes = scale_notes(details)
    emit(notes)
    return ScaleResult(
        scales=scales,
        feature_names=names,
        n_samples=data.shape[0],
        settings={**details, "sampler": resolved},
        privacy=ledger,
        notes=tuple(planning_notes + notes),
    )


def stop_if_unreliable(
    scales: np.ndarray,
    details: dict[str, Any],
    plan: ScalePlan,
    names: list[str],
    ledger: PrivacyLedger,
    caller: str,
    charged_whole: bool = False,
) -> None:
    """Raise :class:`~dppca.exceptions.UnreliableScaleError` (holding the released scales)
    when :func:`scale_release` flagged variables and no guess was consented to; called
    between the scales' charge and the rest's, so that only the scales are spent (an
    accountant that took the call whole, ``charged_whole``, keeps its charge)."""
    if not details["unreliable"] or details["guessed"]:
        return
    notes = scale_notes(details)
    result = ScaleResult(
        scales=scales,
        feature_names=names,
        n_samples=plan.n,
        settings={**details, "sampler": plan.sampler},
        privacy=ledger,
        notes=tuple(notes),
    )
    spent = plan.budget
    released = ", ".join(f"{name}={value:.6g}" for name, value in zip(names, scales, strict=True))
    charged = (
        "The accountant was charged the whole total (it composes otherwise than the call, so it "
        "takes the call as one charge); only the scales' part was released"
        if charged_whole
        else "Only the scales' part was spent"
    )
    raise UnreliableScaleError(
        f"{caller} stopped after the private scales: the scale of "
        f"{', '.join(details['unreliable'])} is unreliable. {charged} "
        f"(epsilon={spent.epsilon:.4g}, delta={spent.delta:.4g}); nothing else was released. "
        f"Released: {released}. Pass public scales, scale=[...], give the scales more "
        "epsilon, or consent to the geometric mean of the other scales with on_weak='release'.",
        result,
    )
