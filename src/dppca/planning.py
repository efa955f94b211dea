"""``plan_pca``: what a :func:`~dppca.dp_pca` call will release, planned from public facts
alone (the number of rows and variables and the settings), with every setting checked before
any data are read: the budget each release gets, the tight composition's factor, and what the
budget must locate (refused before the charge when it cannot).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
)
from dppca.orchestrator import PipelinePlanner
from dppca.privacy.budget import Budget
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.composition import planning_factor, resolve_composition
from dppca.privacy.histograms import HISTOGRAM_METHODS
from dppca.privacy.mechanisms import resolve_sampler
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.split import PCASplit
from dppca.releases.frame import Frame
from dppca.releases.loading import MECHANISMS, check_directions
from dppca.releases.scale import check_scale
from dppca.releases.scree import SCREE_METHODS, check_scree_control


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
        return self.planner(self.factor).requirements

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
                return replace(self.planner, shape=(size, p))(self.factor).requirements
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
        assert score is not None  # dp_pca plans a score plot
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


def check_shape(shape: Any) -> tuple[int, int]:
    """``(n, p)``: at least 2 rows and 1 variable."""
    if isinstance(shape, str) or not isinstance(shape, tuple | list) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n, p); got {shape!r}.")
    n, p = (check_positive_int(value, name) for value, name in zip(shape, "np", strict=True))
    if n < 2:
        raise ValueError(f"n must be at least 2; got {n}.")
    return n, p
