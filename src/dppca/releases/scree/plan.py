"""A scree release's settings and plan: the methods and their controls, checked once, the plan
of every mechanism from public values, and the release of a plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from dppca._settings import Constraint, Settings, boolean, optional, positive_int, some_of
from dppca.numerics.monotone import antitonic
from dppca.numerics.pairs import half_squared_gaps
from dppca.numerics.permutation import random_permutation
from dppca.numerics.row_values import RowValues
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    check_parts,
)
from dppca.privacy.mechanisms import (
    Noise,
)
from dppca.privacy.requirements import Requirement
from dppca.privacy.settings import NoiseSettings
from dppca.releases.scree import clipped, huber, pmwm
from dppca.releases.scree.common import REQUIRED, ScreeMethod

#: Every scree method, one module each (its defaults, checks, mechanisms and estimate).
METHODS: dict[str, ScreeMethod] = {
    "clipped": clipped.METHOD,
    "pmwm": pmwm.METHOD,
    "huber": huber.METHOD,
}
SCREE_METHODS = tuple(METHODS)
#: Each method's control defaults (``REQUIRED`` where the user must give a value).
CONTROL_DEFAULTS = {name: dict(method.defaults) for name, method in METHODS.items()}
#: The smallest number of pairs each method needs.
MIN_PAIRS = {name: method.min_pairs for name, method in METHODS.items()}


def check_scree_control(
    method: str, control: Any, parameter: str = "control", *, keyed: bool = False
) -> dict[str, Any]:
    """Merge a method's control with its defaults, naming unknown and missing parameters (and
    the caller's ``parameter``, ``control`` or ``scree_control``, ``keyed`` by method when
    several methods are requested).

    Examples
    --------
    >>> check_scree_control("pmwm", {}, "control", keyed=True)
    Traceback (most recent call last):
    ...
    ValueError: Scree method 'pmwm' needs ... for example control={'pmwm': {'a': 0.0, ...}}.
    """
    defaults = CONTROL_DEFAULTS[method]
    where = f"{parameter}[{method!r}]" if keyed else parameter
    if control is None:
        control = {}
    if not isinstance(control, Mapping):
        raise TypeError(f"{where} for scree method {method!r} must be a dict; got {control!r}.")
    unknown = sorted(set(control) - set(defaults))
    if unknown:
        raise ValueError(
            f"Unknown {where} parameter(s) {unknown} for scree method {method!r}; allowed: "
            f"{sorted(defaults)}."
        )
    merged = {**defaults, **control}
    missing = [name for name, value in merged.items() if value is REQUIRED]
    if missing:
        raise ValueError(
            f"Scree method {method!r} needs the control parameter(s) {missing} (public tuning "
            f"values), for example {_control_example(method, parameter, keyed)}."
        )
    return METHODS[method].check(merged)


def _control_example(method: str, parameter: str, keyed: bool) -> str:
    """How the caller's ``parameter`` would give a method's required control values."""
    values = {"pmwm": {"a": 0.0, "b": 10.0, "trim_const": 10, "eta": 0.01}}[method]
    if parameter.startswith("--"):  # the command line's option
        prefix = f"{method}." if keyed else ""
        return " ".join(f"{parameter} {prefix}{key}={value}" for key, value in values.items())
    own = {method: values} if keyed else values
    if parameter.endswith(KEYED) and not keyed:  # a settings dict, dp_pca(scree={...})
        return f"{parameter[: -len(KEYED)]}={{'method': {method!r}, 'control': {values}}}"
    return f"{parameter}={own}"


#: How a settings dict's control is named in errors (``scree['control']``).
KEYED = "['control']"


@dataclass(frozen=True)
class ScreePlan:
    """A validated scree release: one method, its merged control, the number of rows ``n``
    and components ``k``, its budget and sampler, and every mechanism it draws from (fixed by
    public values only)."""

    method: str
    control: Mapping[str, Any]
    n: int
    k: int
    budget: Budget
    sampler: str
    #: The method's mechanisms and the public values that go with them (ranges, steps).
    parts: Mapping[str, Any]
    mono: bool = True
    label: str = "scree"
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once, in release order."""
        return METHODS[self.method].mechanisms(self.parts)


@dataclass(frozen=True)
class ScreeSettings(Settings):
    """How the scree (the variances along the private directions) is released
    (:func:`~dppca.dp_scree`), checked once.

    Parameters
    ----------
    method : {"clipped", "pmwm", "huber"} or a sequence of them, default "clipped"
        The clipped mean of the pairs' half-squared differences (no tuning), the private
        modified winsorized mean (Ramsay and Spicker 2025; needs public ``control`` values
        ``a``, ``b``, ``trim_const`` and ``eta``), or a private Huber mean by noisy clipped
        gradient descent (Yu, Ren and Zhou 2024). Several methods are released side by side
        for comparison: :func:`~dppca.dp_pca` shares the scree's budget equally among them
        (so each is noisier than it would be alone) and uses the first for everything else
        (the score frame, the variable plot); :func:`~dppca.dp_scree` gives each the whole
        budget, and charges their sum.
    k : int, optional
        The number of components; default all of them (``p``).
    control : dict, optional
        The method's parameters, kept as given and checked merged with its defaults
        (``dppca.releases.scree.CONTROL_DEFAULTS``); with several methods, a dict of them
        keyed by method (``{"pmwm": {...}}``; a method not named takes its defaults).
        ``"clipped"``: ``C_clip`` ("auto" or one public number, the largest L1 norm of a pair's
        row), ``clip_level`` (0.75: the level of the private quantile of the row totals, moved
        towards 1/2 by :func:`~dppca.privacy.quantiles.safe_level` when the budget is small),
        ``clip_multiplier`` (2.5), ``clip_share`` (``"auto"``: 1.5 times the share of epsilon
        that locates the level, within ``[0.1, 0.5]``, see
        :func:`~dppca.releases.scree.clip_share`; or a number),
        ``clip_by`` (``"row"``; ``"component"``: the R package's form, each ``W_jl`` clipped at
        a public ``C_clip``, noise sd ``sqrt(k) C_clip / (m mu)``).
        ``"pmwm"``: ``a``, ``b`` (public bounds on W), ``trim_const``, ``eta`` (required: its
        winsorizing quantiles are Durfee searches clamped to ``[a, b]``), ``beta`` (1.01),
        ``split_mode`` (False). ``"huber"``: ``m2_frac`` (0.25), ``mu0`` (0), ``eta0`` (1),
        ``T`` (ceil(log m)); the R package's ``k_min_m2``, ``k_max_m2`` and ``M`` are not needed
        (the private scales are grid medians in any units).
    mono : bool, default True
        A non-increasing, non-negative scree by antitonic least squares.

    Examples
    --------
    >>> from dppca import ScreeSettings
    >>> ScreeSettings("huber", k=3).to_dict()
    {'method': 'huber', 'k': 3, 'control': {}, 'mono': True}
    >>> ScreeSettings(control={"C_clip": -1.0})
    Traceback (most recent call last):
    ...
    ValueError: C_clip must be > 0; got -1.0.
    >>> ScreeSettings(("clipped", "huber"), control={"huber": {"T": 5}}).controls["huber"]["T"]
    5
    """

    method: str | Sequence[str] = "clipped"
    k: int | None = None
    control: Mapping[str, Any] | None = None
    mono: bool = True
    #: Each method's checked control merged with its defaults, by method.
    controls: Mapping[str, Mapping[str, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    constraints: ClassVar[Mapping[str, Constraint]] = {
        "method": some_of(*SCREE_METHODS),
        "k": optional(positive_int),
        "mono": boolean,
    }

    def _check_together(self, names: Mapping[str, str]) -> None:
        name = names.get("control", "control")
        several = len(self.methods) > 1
        given = split_controls(self.methods, self.control, name)
        controls, kept = {}, {}
        for method, control in given.items():
            merged = check_scree_control(method, control, name, keyed=several)
            controls[method] = MappingProxyType(merged)
            kept[method] = {key: merged[key] for key in (control or {})}
        shown = kept if several else kept[self.methods[0]]
        object.__setattr__(self, "control", MappingProxyType(shown))
        object.__setattr__(self, "controls", MappingProxyType(controls))

    @property
    def methods(self) -> tuple[str, ...]:
        """The scree methods, as a tuple (the first is the one other releases use)."""
        return (self.method,) if isinstance(self.method, str) else tuple(self.method)

    def to_dict(self) -> dict[str, Any]:
        """The fields and their values, the control as the dict given."""
        control = {
            key: dict(value) if isinstance(value, Mapping) else value
            for key, value in (self.control or {}).items()
        }
        return {**super().to_dict(), "control": control}

    def for_noise(self, noise: NoiseSettings) -> ScreeSettings:
        """The settings as ``noise`` implies them: with the R package's calibration the clipped
        scree clips each component (``clip_by="component"``, which needs a public ``C_clip``)
        unless ``control`` says otherwise."""
        given = self.to_dict()["control"]
        several = len(self.methods) > 1
        own = given.get("clipped", {}) if several else given
        if not (noise.paper and "clipped" in self.methods) or "clip_by" in own:
            return self
        clipped = {"clip_by": "component", **own}
        control = {**given, "clipped": clipped} if several else clipped
        return type(self).named(self._names, **{**self.given(), "control": control})

    def components(self, p: int, least: int = 1) -> int:
        """``k`` for ``p`` variables (``p`` when not given), refused outside ``[least, p]``."""
        k = p if self.k is None else self.k
        if not least <= k <= p:
            raise ValueError(
                f"{self.name_of('k')} must be an integer in [{least}, p={p}]; got {k}."
            )
        return k

    def plans(
        self, n: int, k: int, budget: Budget, noise: NoiseSettings, *, shared: bool = True
    ) -> tuple[ScreePlan, ...]:
        """One plan per method, in order, for ``n`` rows, ``k`` components and a validated
        ``budget``, without checking the settings again: with ``shared`` the methods share the
        budget equally (:meth:`~dppca.Budget.shared`; one method gets all of it), otherwise
        each gets all of it. Each plan needs the method's least number of pairs (Huber 4; PMWM
        with split_mode 2), and noise scales that are normal floats for every value the
        private steps can produce (public clip levels and bounds must lie in
        :func:`~dppca.releases.scree.common.width_range`); then the method's mechanisms.

        Examples
        --------
        >>> from dppca import Budget, NoiseSettings, ScreeSettings
        >>> plans = ScreeSettings(("clipped", "huber")).plans(
        ...     1000, 3, Budget(1.0, 1e-6), NoiseSettings())
        >>> [(plan.label, plan.budget.epsilon) for plan in plans]
        [('scree (clipped)', 0.5), ('scree (huber)', 0.5)]
        """
        methods = self.methods
        own = budget.shared(len(methods)) if shared else budget
        named = len(methods) > 1 or not shared
        return tuple(
            self._plan(method, n, k, own, noise, f"scree ({method})" if named else "scree")
            for method in methods
        )

    def _plan(
        self, method: str, n: int, k: int, budget: Budget, noise: NoiseSettings, label: str
    ) -> ScreePlan:
        control = dict(self.controls[method])
        epsilon, delta = budget.epsilon, budget.delta
        what = f"The scree's epsilon={epsilon:g}, delta={delta:g} and {method!r} control"
        check_parts([epsilon, delta], what)
        pairs = 2 if method == "pmwm" and control["split_mode"] else MIN_PAIRS[method]
        if n // 2 < pairs:
            raise ValueError(f"Scree method {method!r} needs at least {2 * pairs} rows; got {n}.")
        m = n // 2
        sampler = str(noise.sampler)
        parts = METHODS[method].plan_parts(control, m, k, epsilon, delta, sampler, what)
        requirements = tuple(METHODS[method].requirements(parts, m, label))
        return ScreePlan(
            method,
            MappingProxyType(control),
            n,
            k,
            budget,
            sampler,
            MappingProxyType(parts),
            self.mono,
            label,
            requirements,
        )


def split_controls(
    methods: tuple[str, ...], control: Any, parameter: str = "control"
) -> dict[str, Any]:
    """Per-method controls (unchecked): a method's own dict, or (required for several methods)
    a dict keyed by method names (errors call it ``parameter``)."""
    keyed = isinstance(control, Mapping) and set(control) <= set(SCREE_METHODS)
    if len(methods) > 1 and control is not None and not keyed:
        raise ValueError(
            f"With several scree methods, {parameter} must be a dict keyed by method, e.g. "
            f"{{'pmwm': {{...}}, 'huber': {{...}}}}; got {control!r}."
        )
    if keyed and not set(control) <= set(methods):
        raise ValueError(
            f"{parameter} names method(s) {sorted(set(control) - set(methods))} that were not "
            f"requested (method={list(methods)})."
        )
    return {name: control.get(name) if keyed else control for name in methods}


def scree_release(
    Y: RowValues, plan: ScreePlan, rng: np.random.Generator, ledger: PrivacyLedger
) -> tuple[np.ndarray, dict[str, Any]]:
    """Release the scree of scores ``Y`` (n x k, in one array or in chunks) by a validated
    plan; entries go to ``ledger`` (the caller has charged the budget)."""
    noise = Noise(plan.sampler, rng)
    W = Y.pairs(random_permutation(Y.shape[0], rng), half_squared_gaps)
    raw, details = METHODS[plan.method].estimate(W, plan, noise, ledger)
    details["raw"] = raw
    values = antitonic(raw) if plan.mono else np.maximum(raw, 0.0)
    return values, details
