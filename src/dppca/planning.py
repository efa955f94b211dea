"""``plan_pca``: what a :func:`~dppca.dp_pca` call will release, planned from public facts
alone (the number of rows and variables and the settings), with every setting checked before
any data are read: the budget each release gets, the tight composition's factor, and what the
budget must locate (refused before the charge when it cannot).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

from dppca._settings import Settings
from dppca._stack import user_stacklevel
from dppca._validation import check_delta, check_epsilon, check_positive_int
from dppca.orchestrator import PipelinePlanner
from dppca.privacy.budget import Budget
from dppca.privacy.composition import planning_factor
from dppca.privacy.requirements import Requirement, check_on_weak, enforce
from dppca.privacy.settings import NoiseSettings
from dppca.privacy.split import PCASplit
from dppca.releases.loading import LoadingSettings, check_directions
from dppca.releases.scale import check_scale
from dppca.releases.scores import ScoreSettings
from dppca.releases.scree import ScreeSettings
from dppca.results.frame import Frame


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
    >>> plan = plan_pca((1000, 4), 2.0, 1e-6, noise={"composition": "basic"})
    >>> plan.factor, plan.planner.k
    (1.0, 4)
    """

    total: Budget
    composition: str
    factor: float
    planner: PipelinePlanner
    public_scales: np.ndarray | None
    given: np.ndarray | None
    #: The checked settings of each release and of the noise.
    settings: PCASettings
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
        plans = self.planner(self.factor)
        score, screes = plans.score, plans.scree
        assert score is not None and screes is not None  # dp_pca plans both
        rows = []
        if parts.scale.epsilon:
            rows.append(("scales of the variables", parts.scale.epsilon, parts.scale.delta))
        if parts.loading.epsilon:
            matrix = "SSCM" if self.settings.loading.statistic == "sscm" else "Kendall matrix"
            rows.append((f"directions ({matrix})", parts.loading.epsilon, parts.loading.delta))
        several = len(screes) > 1
        for scree in screes:
            named = f" ({scree.method})" * several
            what = f"variances along the directions{named}"
            rows.append((what, scree.budget.epsilon, scree.budget.delta))
        public = isinstance(score.frame, Frame)
        rows.append((f"score plot: frame{' (public)' * public}", score.frame_epsilon, 0.0))
        for method in score.methods:
            named = f" ({method})" * (len(score.methods) > 1)
            rows.append(
                (f"score plot: histogram{named}", score.histogram_epsilon, score.histogram_delta)
            )
        rows.append(
            (f"total, as composed ({self.composition})", self.total.epsilon, self.total.delta)
        )
        return pd.DataFrame(rows, columns=["release", "epsilon", "delta"])


@dataclass(frozen=True)
class PCASettings:
    """The settings of a :func:`dp_pca` call, one object per release and one for the noise,
    each checked once.

    Attributes
    ----------
    loading : LoadingSettings
    scree : ScreeSettings
    score : ScoreSettings
    noise : NoiseSettings

    Examples
    --------
    >>> from dppca import PCASettings
    >>> settings = PCASettings.of(scree="huber", score={"bins": 8}, noise="paper")
    >>> settings.scree.method, settings.score.bins, settings.noise.calibration
    ('huber', (8, 8), 'classical')
    """

    loading: LoadingSettings = field(default_factory=LoadingSettings)
    scree: ScreeSettings = field(default_factory=ScreeSettings)
    score: ScoreSettings = field(default_factory=ScoreSettings)
    noise: NoiseSettings = field(default_factory=NoiseSettings)

    @classmethod
    def of(
        cls,
        *,
        loading: LoadingLike = None,
        scree: ScreeLike = None,
        score: ScoreLike = None,
        noise: NoiseLike = None,
    ) -> PCASettings:
        """Each release's settings from the object, a mapping of its fields or a string (the
        scree's and the score plot's method, the loading's transform, the noise's mechanism);
        None for the defaults. Errors use :func:`dp_pca`'s names."""
        given = {"loading": loading, "scree": scree, "score": score, "noise": noise}
        names = {"scree": {"control": "scree['control']"}}
        settings = {
            parameter: kind()
            if value is None
            else kind.coerce(value, parameter, lead, names.get(parameter, {}))
            for (parameter, value), (kind, lead) in zip(
                given.items(), SETTINGS.values(), strict=True
            )
        }
        noise_settings = cast(NoiseSettings, settings["noise"])
        settings["scree"] = cast(ScreeSettings, settings["scree"]).for_noise(noise_settings)
        return cls(**settings)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Each release's settings as a dict (as :meth:`of` takes them back)."""
        return {
            "loading": self.loading.to_dict(),
            "scree": self.scree.to_dict(),
            "score": self.score.to_dict(),
            "noise": self.noise.to_dict(),
        }


#: The keywords of :func:`dp_pca` and :func:`plan_pca` that moved into a settings object: the
#: keyword's parameter and field.
MOVED = {
    "k": ("scree", "k"),
    "scree_control": ("scree", "control"),
    "mono": ("scree", "mono"),
    "bins": ("score", "bins"),
    "axes": ("score", "axes"),
    "frame": ("score", "frame"),
    "group_levels": ("score", "group_levels"),
    "transform": ("loading", "transform"),
    "radius": ("loading", "radius"),
    "pairs": ("loading", "pairs"),
    "sensitivity": ("loading", "sensitivity"),
    "calibration": ("noise", "calibration"),
    "mechanism": ("noise", "mechanism"),
    "composition": ("noise", "composition"),
    "sampler": ("noise", "sampler"),
}

#: What the settings parameters of :func:`dp_pca` and :func:`plan_pca` take: the object, a
#: mapping of its fields, or its lead field's value (None: the defaults).
LoadingLike = LoadingSettings | Mapping[str, Any] | str | None
ScreeLike = ScreeSettings | Mapping[str, Any] | str | None
ScoreLike = ScoreSettings | Mapping[str, Any] | str | None
NoiseLike = NoiseSettings | Mapping[str, Any] | str | None

#: Each settings parameter's class and the field a plain value (a string) sets.
SETTINGS: dict[str, tuple[type[Settings], str]] = {
    "loading": (LoadingSettings, "transform"),
    "scree": (ScreeSettings, "method"),
    "score": (ScoreSettings, "method"),
    "noise": (NoiseSettings, "mechanism"),
}
#: The settings parameters' defaults that are not None.
DEFAULTS = {"scree": "clipped", "score": "thresholded"}

Call = TypeVar("Call", bound=Callable[..., Any])


def accepts_moved_keywords(function: Call) -> Call:
    """Let ``function`` take the keywords of :data:`MOVED` for one more release: each moves
    into its settings object, with a :class:`DeprecationWarning` that says where."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        moved = {name: kwargs.pop(name) for name in list(kwargs) if name in MOVED}
        if moved:
            kwargs.update(moved_into_settings(moved, kwargs, function.__name__))
        return function(*args, **kwargs)

    return cast(Call, wrapper)


def moved_into_settings(
    moved: dict[str, Any], kwargs: dict[str, Any], caller: str
) -> dict[str, Any]:
    """The settings arguments with the ``moved`` keywords folded in (their errors name the
    keywords), after a :class:`DeprecationWarning`."""
    by_parameter: dict[str, dict[str, Any]] = {}
    for name, value in moved.items():
        parameter, field_name = MOVED[name]
        by_parameter.setdefault(parameter, {})[field_name] = value
    hints = ", ".join(
        f"{parameter}={{{', '.join(repr(key) + ': ...' for key in fields)}}}"
        for parameter, fields in by_parameter.items()
    )
    warnings.warn(
        f"{caller}'s keyword(s) {sorted(moved)} moved into its settings objects and will be "
        f"removed in the next release; pass {hints} (or the settings objects) instead.",
        DeprecationWarning,
        stacklevel=user_stacklevel(),
    )
    folded = {}
    for parameter, fields in by_parameter.items():
        kind, lead = SETTINGS[parameter]
        value = kwargs.get(parameter, DEFAULTS.get(parameter))
        given = (
            {}
            if value is None
            else value.given()
            if isinstance(value, Settings)
            else dict(value)
            if isinstance(value, Mapping)
            else {lead: value}
        )
        names = {field: name for name, (where, field) in MOVED.items() if where == parameter}
        defaults = kind().given() if isinstance(value, Settings) else {}
        twice = [
            names[field]
            for field in fields
            if field in given and (not defaults or given[field] != defaults[field])
        ]
        if twice:
            raise ValueError(
                f"{twice} given twice: as keyword(s) and in {parameter}={value!r}; give each "
                f"setting once, in {parameter}."
            )
        folded[parameter] = kind.named({lead: parameter, **names}, **{**given, **fields})
    return folded


@accepts_moved_keywords
def plan_pca(
    shape: tuple[int, int],
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
) -> PCAPlan:
    """Check :func:`dp_pca`'s settings for data of ``shape = (n, p)`` and plan its releases,
    without data: a preview of the budget each release gets (:meth:`PCAPlan.budget_table`).

    The parameters are :func:`dp_pca`'s; every setting is checked here, before any data are
    read, with the same errors. ``statistic="auto"`` is resolved for data in memory
    (:meth:`~dppca.LoadingSettings.resolve`).

    Examples
    --------
    >>> from dppca import plan_pca
    >>> plan = plan_pca((2504, 55), 4.0, 1e-7, scree={"k": 10},
    ...                 split={"loading": 0.5, "scree": 0.25, "score": 0.25})
    >>> plan.budget_table()["epsilon"].round(2).tolist()
    [3.1, 1.55, 0.54, 1.01, 4.0]
    """
    settings = PCASettings.of(loading=loading, scree=scree, score=score, noise=noise)
    options = {"split": split, "scale": scale, "directions": directions, **vars(settings)}
    n, p = check_shape(shape)
    if p < 2:
        raise ValueError(f"X must have at least 2 variables for dp_pca; got {p}.")
    total = Budget(check_epsilon(epsilon), check_delta(delta))
    private_scale, public_scales = check_scale(scale, p)
    given = None if directions is None else check_directions(directions, p)
    parts = ("scale",) * private_scale + ("loading",) * (given is None) + ("scree", "score")
    budgets = PCASplit.from_total(total, split, parts=parts)
    k = settings.scree.components(p, least=2)
    settings.score.check_axes(k, "k")
    if given is None:  # "auto" chooses from the directions' own budget, public values alone
        resolved = settings.loading.resolve((n, p), budgets.loading, settings.noise, in_memory=True)
        settings = replace(settings, loading=resolved)
    settings.loading.check_shape(n)
    settings.loading.check_noise(settings.noise)
    planner = PipelinePlanner(
        shape=(n, p),
        budgets=budgets,
        k=k,
        private_scale=private_scale,
        estimate_directions=given is None,
        loading=settings.loading,
        scree=settings.scree,
        score=settings.score,
        noise=settings.noise,
    )
    composition = str(settings.noise.composition)
    factor = planning_factor(planner, total.epsilon, total.delta, composition)
    return PCAPlan(total, composition, factor, planner, public_scales, given, settings, options)


def check_shape(shape: Any) -> tuple[int, int]:
    """``(n, p)``: at least 2 rows and 1 variable."""
    if isinstance(shape, str) or not isinstance(shape, tuple | list) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n, p); got {shape!r}.")
    n, p = (check_positive_int(value, name) for value, name in zip(shape, "np", strict=True))
    if n < 2:
        raise ValueError(f"n must be at least 2; got {n}.")
    return n, p
