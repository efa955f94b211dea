"""Tight composition: the exact privacy of several releases on the same data.

Each release is described by a :class:`PrivacyLoss`:

* ``"gaussian"``: a Gaussian mechanism with continuous noise, ``mu``-GDP with
  ``mu = Delta sqrt(T) / sigma`` (Dong, Roth and Su 2022); its privacy loss under the first
  neighbour is ``N(mu^2 / 2, mu^2)``;
* ``"zcdp"``: the discrete Gaussian, ``rho``-zCDP (Canonne, Kamath and Steinke 2020);
* ``"pure"``: an epsilon-DP release (exponential mechanism, Durfee's search), dominated by
  randomized response: loss ``+epsilon`` or ``-epsilon`` with probabilities
  ``e^epsilon / (1 + e^epsilon)`` and ``1 / (1 + e^epsilon)`` (Kairouz, Oh and Viswanath 2017);
* ``"approximate"``: an (epsilon, delta)-DP release (the sparse histogram), dominated by
  randomized response with an extra mass ``delta`` of infinite loss;
* ``"coupling"``: the difference between a release and a mechanism accounted by the other
  losses, which it equals except on an event of probability at most ``delta`` under either data
  set (a histogram whose unoccupied cells are left out: a cell empty here and occupied in the
  neighbour is released only if its noise passes a public threshold). For any event ``S``,
  ``P[M(X) in S] <= P[H(X) in S] + delta`` and ``P[H(X') in S] <= P[M(X') in S] + delta``, so
  such losses add ``(1 + e^epsilon) sum delta_c`` to the delta of the others at any epsilon
  (the argument of the stability histogram with Gaussian noise, Lebeda and Retschmeier 2025,
  made for any composition).

Without a ``"zcdp"`` part the composition is computed exactly (no discretisation): the
Gaussian parts add up to one ``mu^2 = sum mu_i^2``, the randomized responses to a discrete loss
``D`` (enumerated by groups of equal epsilon), and

    ``delta(epsilon) = 1 - prod(1 - delta_a) + prod(1 - delta_a) E_D[delta_mu(epsilon - D)]``

with ``delta_mu(x) = Phi(-x / mu + mu / 2) - e^x Phi(-x / mu - mu / 2)`` the Gaussian's
hockey-stick divergence (``(1 - e^(x - D))_+`` without Gaussian parts). With a ``"zcdp"`` part
(the discrete sampler) the parts compose in zCDP: ``rho = sum rho_i + sum mu_i^2 / 2`` plus
``epsilon_j^2 / 2`` for the pure parts that join it (an epsilon-DP release is
``epsilon^2 / 2``-zCDP, Bun and Steinke 2016), the other pure parts by adding their epsilons,
and ``delta(epsilon) = zcdp_delta(rho, epsilon - sum of the others) + sum delta_a``, minimised
over which (smallest) pure parts join. Coupling losses add their term to either.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast, get_args

import numpy as np

from dppca._validation import check_option, check_real
from dppca.privacy.calibration import _log_gdp_delta, _zcdp_delta_kernel

LossKind = Literal["gaussian", "zcdp", "pure", "approximate", "coupling"]
#: The kinds of :class:`PrivacyLoss`.
LOSS_KINDS = get_args(LossKind)
#: Composition rules: ``"tight"`` (by the releases' privacy losses) or ``"basic"`` (sums).
COMPOSITIONS = ("tight", "basic")
Plans = TypeVar("Plans")
#: The relative margin ``composed_delta`` rounds up by: the Gaussian's hockey-stick divergence
#: loses up to about 3e-9 of itself to cancellation for very small deltas (checked against
#: 80-digit arithmetic).
_ROUNDING_MARGIN = 1e-8
#: The most support points of the discrete part before they are merged upwards.
_MAX_SUPPORT = 200_000


@dataclass(frozen=True)
class PrivacyLoss:
    """How one release's privacy composes (see :mod:`dppca.privacy.composition`).

    Parameters
    ----------
    kind : {"gaussian", "zcdp", "pure", "approximate", "coupling"}
        ``"gaussian"``: ``mu``-GDP, a Gaussian mechanism with ``mu = Delta / sigma`` (Dong,
        Roth and Su 2022); ``"zcdp"``: ``rho``-zCDP, the discrete Gaussian with
        ``rho = Delta^2 / (2 sigma^2)`` (Canonne, Kamath and Steinke 2020); ``"pure"``:
        ``epsilon``-DP; ``"approximate"``: ``(epsilon, delta)``-DP (Kairouz, Oh and Viswanath
        2017 give the randomized responses that dominate these two); ``"coupling"``: a release
        equal to one the other losses account for but on an event of probability ``delta``.
    mu, rho, epsilon : float
        The kind's parameters: finite, non-negative (``mu`` and ``rho`` positive for their
        kinds).
    delta : float
        In [0, 1), for ``"approximate"`` and ``"coupling"``.

    Examples
    --------
    >>> PrivacyLoss("gaussian", mu=0.5).describe()
    'mu = 0.5 (Gaussian DP)'
    """

    kind: LossKind
    mu: float = 0.0
    rho: float = 0.0
    epsilon: float = 0.0
    delta: float = 0.0

    def __post_init__(self) -> None:
        check_option(self.kind, "kind", LOSS_KINDS)
        for name in ("mu", "rho", "epsilon"):
            check_real(getattr(self, name), name, low=0.0, low_inclusive=True)
        check_real(self.delta, "delta", low=0.0, high=1.0, low_inclusive=True)
        needed = {"gaussian": "mu", "zcdp": "rho"}.get(self.kind)
        if needed is not None and not getattr(self, needed) > 0:
            raise ValueError(f"A {self.kind} privacy loss needs {needed} > 0; got 0.")

    def describe(self) -> str:
        """The loss in words, for the ledger."""
        return {
            "gaussian": f"mu = {self.mu:.4g} (Gaussian DP)",
            "zcdp": f"rho = {self.rho:.4g} (zero-concentrated DP)",
            "pure": f"epsilon = {self.epsilon:.4g} (pure DP)",
            "approximate": f"(epsilon, delta) = ({self.epsilon:.4g}, {self.delta:.3g})",
            "coupling": (
                f"equal to a release accounted by the other losses but with probability "
                f"{self.delta:.3g}"
            ),
        }[self.kind]


def _gaussian_delta(mu: float, x: np.ndarray) -> np.ndarray:
    """``E[(1 - e^(x - G))_+]`` for ``G ~ N(mu^2 / 2, mu^2)``, elementwise (``mu = 0``: no
    Gaussian part, ``(1 - e^x)_+``)."""
    if mu == 0.0:
        return np.where(x < 0, -np.expm1(np.minimum(x, 0.0)), 0.0)
    return np.exp([_log_gdp_delta(mu, float(value)) for value in x])


def _binomial_pmf(count: int, epsilon: float) -> np.ndarray:
    """``P(K = k)``, ``k = 0 .. count``, for ``K ~ Binomial(count, 1 / (1 + e^-epsilon))``,
    from logarithms: ``log C(count, k) + k log p + (count - k) log(1 - p)`` with
    ``log p = -log1p(e^-epsilon)`` and ``log(1 - p) = log p - epsilon``: the log-gamma terms,
    of size ``count log(count)``, are each off by a few of their ulps, a relative error below
    ``1e-15 count log(count + 1)`` (4.3e-11 at 5,000 terms, where 8.4e-12 was measured against
    50-digit arithmetic; 1.4e-8 only beyond a million equal parts), inside the rounding margin
    of :func:`composed_delta`.

    Examples
    --------
    >>> [round(float(v), 6) for v in _binomial_pmf(2, 0.0)]
    [0.25, 0.5, 0.25]
    """
    from scipy.special import gammaln

    heads = np.arange(count + 1)
    log_p = -math.log1p(math.exp(-epsilon))
    log_choose = gammaln(count + 1.0) - gammaln(heads + 1.0) - gammaln(count - heads + 1.0)
    logs = log_choose + heads * log_p + (count - heads) * (log_p - epsilon)
    return cast("np.ndarray", np.exp(logs))


def _discrete_loss(pure: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of ``D = sum_j s_j epsilon_j`` (randomized responses), by
    groups of equal epsilon (a group of ``g`` contributes ``epsilon (2 K - g)`` with ``K``
    binomial). Points beyond ``_MAX_SUPPORT`` are merged upwards onto a grid (pessimistic:
    the divergence grows with the loss)."""
    values, weights = np.array([0.0]), np.array([1.0])
    for epsilon, count in sorted(Counter(pure).items()):
        heads = np.arange(count + 1)
        probability = _binomial_pmf(count, epsilon)
        values = (values[:, None] + epsilon * (2 * heads - count)[None, :]).ravel()
        weights = (weights[:, None] * probability[None, :]).ravel()
        if values.size > _MAX_SUPPORT:
            step = (values.max() - values.min()) / (_MAX_SUPPORT / 4)
            values = np.ceil(values / step) * step
            values, inverse = np.unique(values, return_inverse=True)
            weights = np.bincount(inverse, weights=weights)
    return values, weights


def composed_delta(losses: Sequence[PrivacyLoss], epsilon: float) -> float:
    """The smallest delta such that the releases together are (epsilon, delta)-DP (see the
    module docstring), rounded up; coupling losses add ``(1 + e^epsilon) sum delta_c``.

    Examples
    --------
    >>> two = [PrivacyLoss("gaussian", mu=0.6), PrivacyLoss("gaussian", mu=0.8)]
    >>> from dppca.privacy.calibration import gdp_delta
    >>> bool(abs(composed_delta(two, 1.0) / gdp_delta(1.0, 1.0) - 1) < 2e-8)  # sqrt(.36+.64)
    True
    >>> coupled = composed_delta([*two, PrivacyLoss("coupling", delta=1e-9)], 1.0)
    >>> bool(abs(coupled - composed_delta(two, 1.0) - (1 + math.e) * 1e-9) < 1e-15)
    True
    """
    coupled = math.fsum(loss.delta for loss in losses if loss.kind == "coupling")
    if coupled > 0:
        others = [loss for loss in losses if loss.kind != "coupling"]
        if epsilon > 700.0:  # (1 + e^epsilon) delta_c is no bound in floating point there
            return 1.0
        extra = (1.0 + math.exp(epsilon)) * coupled * (1 + _ROUNDING_MARGIN)
        return min(math.nextafter(composed_delta(others, epsilon) + extra, 1.0), 1.0)
    kinds = {loss.kind for loss in losses}
    approximate = [loss.delta for loss in losses if loss.kind == "approximate"]
    pure = [loss.epsilon for loss in losses if loss.kind in ("pure", "approximate")]
    mu_squared = math.fsum(loss.mu**2 for loss in losses if loss.kind == "gaussian")
    if "zcdp" in kinds:
        delta = _zcdp_route(losses, pure, mu_squared, epsilon) + math.fsum(approximate)
    else:
        values, weights = _discrete_loss(pure)
        # Sums of losses are rounded: evaluate a few ulps below epsilon (the safe side).
        reach = max(epsilon, float(np.max(np.abs(values))), 1.0)
        safe = epsilon - 8 * math.ulp(reach)
        inner = float(np.dot(weights, _gaussian_delta(math.sqrt(mu_squared), safe - values)))
        log_kept = math.fsum(math.log1p(-value) for value in approximate)
        delta = -math.expm1(log_kept) + math.exp(log_kept) * inner
    return min(math.nextafter(delta * (1 + _ROUNDING_MARGIN), 1.0), 1.0)


def _zcdp_route(
    losses: Sequence[PrivacyLoss], pure: list[float], mu_squared: float, epsilon: float
) -> float:
    """The zCDP parts' delta: the smallest ``i`` pure epsilons join the zCDP composition as
    ``epsilon^2 / 2`` each, the others compose basically (their epsilons are taken off the
    total); every ``i`` gives a valid bound, and the best is returned."""
    rho = math.fsum(loss.rho for loss in losses if loss.kind == "zcdp") + mu_squared / 2
    ordered = sorted(pure)
    best = 1.0
    for joined in range(len(ordered) + 1):
        offset = math.fsum(ordered[joined:])
        if offset > epsilon:
            continue
        total_rho = rho + math.fsum(value**2 / 2 for value in ordered[:joined])
        delta = _zcdp_delta_kernel(total_rho, epsilon - offset) if total_rho > 0 else 0.0
        best = min(best, delta)
    return best


def tightest_factor(
    losses_at: Callable[[float], Sequence[PrivacyLoss]],
    epsilon: float,
    delta: float,
    *,
    largest: float = 1e3,
    tolerance: float = 1e-4,
) -> float:
    """The largest factor ``c >= 1`` (to a relative ``tolerance``: noise scales within about
    0.01 % of the optimum) with
    ``composed_delta(losses_at(c), epsilon) <= delta``: ``losses_at(1)`` (the releases planned by
    basic composition) must meet it; larger ``c`` gives every release more of the budget (less
    noise) and larger losses. When the losses at 1 already compose to more than ``delta`` (a
    zCDP conversion can be looser than adding), the factor is 1: the plans of basic
    composition."""

    def fits(factor: float) -> bool:
        try:
            return composed_delta(losses_at(factor), epsilon) <= delta
        except ValueError:  # a plan refused at that factor (a noise scale out of range)
            return False

    if not fits(1.0):  # no gain over basic composition (which the plans at 1 meet)
        return 1.0
    low, high = 1.0, 2.0
    while fits(high):
        low, high = high, high * 2
        if high > largest:
            return low
    while high / low > 1 + tolerance:
        middle = math.sqrt(low * high)
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def resolve_composition(composition: object, calibration: str = "analytic") -> str:
    """A call's composition rule: ``None`` (the default) is ``"tight"``, except with the
    classical calibration (the paper's, kept to reproduce it), which splits the total linearly
    as the paper does: ``"basic"``. ``"tight"`` with the classical calibration is refused: its
    formula holds only for epsilon < 1, and tight plans give each release more.

    Examples
    --------
    >>> resolve_composition(None), resolve_composition(None, "classical")
    ('tight', 'basic')
    """
    if composition is None:
        return "basic" if calibration == "classical" else "tight"
    composition = check_option(composition, "composition", COMPOSITIONS)
    if composition == "tight" and calibration == "classical":
        raise ValueError(
            "composition='tight' needs calibration='analytic': the classical formula is no "
            "guarantee at the larger epsilons a tight plan gives each release. Pass "
            "composition='basic' (or None) with the classical calibration."
        )
    return composition


def planning_factor(
    plan_at: Callable[[float], Plans], epsilon: float, delta: float, composition: str
) -> float:
    """The factor a call's parts' epsilons are multiplied by: 1 for ``"basic"`` composition;
    for ``"tight"``, :func:`tightest_factor` of the losses of the plans ``plan_at(c)`` makes
    (every mechanism they hold, :func:`plan_losses`) against the call's total.

    ``plan_at(1.0)`` is made first, so that settings refused at the split's own budgets raise
    their error here; the search's many plans are made with warnings silenced (the caller's
    final plan warns).

    Examples
    --------
    >>> from dppca.privacy.mechanisms import GaussianMechanism
    >>> def plan_at(c):  # two Gaussian releases, each on half of (1, 1e-6)
    ...     return [GaussianMechanism(1.0, 1, c * 0.5, 0.5e-6) for _ in range(2)]
    >>> round(planning_factor(plan_at, 1.0, 1e-6, "tight"), 2)
    1.43
    >>> planning_factor(plan_at, 1.0, 1e-6, "basic")
    1.0
    """
    if composition == "basic":
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan_at(1.0)
        return tightest_factor(lambda factor: plan_losses(plan_at(factor)), epsilon, delta)


def plan_losses(*plans: object) -> list[PrivacyLoss]:
    """The privacy losses of every mechanism held in ``plans`` (see :func:`plan_mechanisms`)."""
    return [mechanism.loss for mechanism in plan_mechanisms(*plans)]


def plan_mechanisms(*plans: object) -> list[Any]:
    """Every mechanism the ``plans`` declare, each releasing once: a plan declares its own
    (its ``mechanisms()``), a mechanism (an object whose ``loss`` is a :class:`PrivacyLoss`)
    itself; sequences of plans are read through and None (a release not made) skipped.

    Examples
    --------
    >>> from dppca.privacy.mechanisms import GaussianMechanism
    >>> gaussian = GaussianMechanism(1.0, 1, 0.5, 1e-6)
    >>> len(plan_mechanisms([gaussian, None], gaussian))
    2
    """
    found: list[Any] = []
    for plan in plans:
        if plan is None:
            continue
        if isinstance(getattr(plan, "loss", None), PrivacyLoss):
            found.append(plan)
        elif isinstance(plan, list | tuple):
            found.extend(plan_mechanisms(*plan))
        else:
            declared = getattr(plan, "mechanisms", None)
            if not callable(declared):
                raise TypeError(f"{type(plan).__name__} declares no mechanisms (a plan needs one).")
            found.extend(declared())
    return found
