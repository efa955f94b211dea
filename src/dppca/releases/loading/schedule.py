"""The private centre's budget plan from public values and its released medians: the medians'
shares of epsilon, the steps' share of the Gaussian budget, how many steps, each one's share,
and what travelling to data far from the origin adds (:mod:`dppca.releases.loading.centre`
releases the centre by it).

Every value here is a function of ``n``, ``d``, the Gaussian budget's multiplier ``mu`` and,
once they are released, the row norms' median ``tau_0`` and the pair scale ``s``: the steps'
shares are post-processing of the medians, so the steps compose adaptively with the rest of
the Gaussian budget (Dong, Roth and Su 2022, Corollary 3.3).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from dppca.privacy.quantiles import locating_reach

#: The smallest share of epsilon each median gets.
MEDIAN_SHARE = 0.05
#: Each median gets this many times the share of epsilon that locates it, when that is more.
MEDIAN_MARGIN = 1.5
#: The centre's share of ``mu^2`` is ``CENTRE_CONSTANT sqrt(d) / (n mu)`` within these bounds.
CENTRE_CONSTANT = 12.0
CENTRE_SHARE_RANGE = (0.02, 0.3)
#: Every step but the last gets the centre's share over ``parts``: 9, or up to ``MAX_PARTS``
#: when 8 steps of a ninth cannot cover the distance (more, smaller steps reach farther).
PARTS = 9
MAX_PARTS = 24
#: A clip is at least this fraction of the one before: a step's bias (a clipped mean pulled by
#: outliers or heavy tails) is then within the next step's reach.
SHRINK = 0.25
#: Steps at a clip near the scale once the distance is covered: the clipped steps converge
#: there by a factor, not at once (slowly on heavy tails).
POLISH = 2
#: The most centre steps.
MAX_STEPS = MAX_PARTS - 1
#: The steps that travel to data far from the origin are paid on top of the centre's share,
#: up to this multiple of it (:func:`with_travel`).
TRAVEL_LIMIT = 1.0


def locating_epsilon(values: float, epsilon: float) -> float:
    """``MEDIAN_MARGIN`` times the epsilon that locates a log-grid median of ``values`` values
    (:func:`~dppca.privacy.quantiles.locating_reach`), at least ``MEDIAN_SHARE epsilon``."""
    located = MEDIAN_MARGIN * locating_reach(1.0, "log") / values if values > 0 else math.inf
    return max(MEDIAN_SHARE * epsilon, located)


def median_epsilons(n: int, epsilon: float) -> tuple[float, float, bool]:
    """The shares of epsilon of the row norms' median (``n`` values) and the pair scale (``n / 2``
    values): each ``MEDIAN_MARGIN`` times what locates a log-grid median
    (:func:`~dppca.privacy.quantiles.locating_reach`), at least ``MEDIAN_SHARE epsilon``; and
    whether they fit in half of epsilon. When they do not, they are scaled down to half of it
    (the medians are then not located, which the caller's requirement says).

    Examples
    --------
    >>> norms, scale, fits = median_epsilons(2000, 1.0)
    >>> round(norms, 3), round(scale, 3), fits
    (0.061, 0.122, True)
    """
    wanted = [locating_epsilon(values, epsilon) for values in (n / 2.0 - 1.0, n / 4.0 - 1.0)]
    total = wanted[0] + wanted[1]
    fits = total <= epsilon / 2.0
    if not fits:
        wanted = [
            part * (epsilon / 2.0) / total if math.isfinite(total) else epsilon / 4.0
            for part in wanted
        ]
    return wanted[0], wanted[1], fits


def centre_share(n: int, d: int, strength: float) -> float:
    """The centre steps' share of the Gaussian budget: ``12 sqrt(d) / (n mu)`` within
    ``[0.02, 0.3]`` (public)."""
    low, high = CENTRE_SHARE_RANGE
    return min(high, max(low, CENTRE_CONSTANT * math.sqrt(d) / (n * strength)))


def centre_schedule(
    n: int,
    d: int,
    strength: float,
    tau0: float,
    scale: float,
    *,
    share: float | None = None,
    max_parts: int = MAX_PARTS,
) -> tuple[list[float], bool]:
    """The centre steps' shares of the Gaussian budget, from the first clip ``tau0``, the
    released ``scale`` and public values only, and whether the steps cover the distance.

    With the steps' share ``f`` (by default :func:`centre_share`) cut in ``m`` parts, each
    early step gets ``f / m`` (multiplier ``mu_step = mu sqrt(f / m)``) and shrinks the
    centre's error by about ``rho = min(0.9, max(1/4, 4 sqrt(d) / (n mu_step)))`` while it is
    farther than the scale (never faster than by 4: the clips shrink by at most that, so that a
    step pulled aside by outliers, 5 % of rows at 1000 once left the centre 30 off, is within
    the next one's reach);
    ``1 + ceil(ln(tau0 / s) / ln(1 / rho))`` steps bring it from ``tau0`` to ``s``, and
    ``POLISH`` (2) more at clips near ``s`` let the clipped steps converge there (each shrinks
    what is left by a factor, slowly on heavy tails, where stopping at ``s`` left the
    centre off by a tenth of the scale); the last step gets the rest of ``f`` (at least
    ``2 f / m``). ``m`` is 9 when those ``T`` steps number at most 8, otherwise the least ``m``
    up to ``max_parts`` with ``T <= m - 1``: more steps of smaller shares reach farther, until
    their noise undoes their progress; where no ``m`` gives room for the polishing steps, fewer
    of them are taken. When none covers the distance, 8 steps of ``f / 9`` are taken and the
    centre is marked.

    Examples
    --------
    >>> shares, covered = centre_schedule(2000, 10, 1.0, 100.0, 1.0)
    >>> len(shares), round(sum(shares), 12), covered
    (7, 0.02, True)
    >>> shares, covered = centre_schedule(2000, 50, 0.18, 1400.0, 6.0)  # 8 steps do not reach
    >>> len(shares), round(shares[0] / sum(shares), 4), covered
    (13, 0.0714, True)
    """
    if share is None:
        share = centre_share(n, d, strength)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = float(np.float64(tau0) / np.float64(scale)) if scale > 0.0 else math.inf
    for polish, parts in itertools.product(range(POLISH, -1, -1), range(PARTS, max_parts + 1)):
        step = share / parts
        rho = min(0.9, max(SHRINK, 4.0 * math.sqrt(d) / (n * strength * math.sqrt(step))))
        if not math.isfinite(ratio):  # beyond any number of steps
            break
        needed = 1 + math.ceil(math.log(ratio) / math.log(1.0 / rho)) if ratio > 1.0 else 1
        if needed + polish <= parts - 1:
            steps = max(2, needed + polish)
            return [step] * (steps - 1) + [share - (steps - 1) * step], True
    step = share / PARTS
    return [step] * (PARTS - 2) + [share - (PARTS - 2) * step], False


def travel_cap(share: float, coarse_share: float) -> float:
    """The most the travelling steps may add to the centre's ``share`` of the Gaussian
    budget: ``TRAVEL_LIMIT share``, and at most half of what the steps and the coarse location
    (``coarse_share``) leave to the caller (public)."""
    return max(0.0, min(TRAVEL_LIMIT * share, (1.0 - share - coarse_share) / 2.0))


def with_travel(
    shares: list[float],
    n: int,
    d: int,
    strength: float,
    share: float,
    coarse_share: float,
) -> tuple[list[float], float]:
    """The schedule ``shares`` (:func:`centre_schedule`, adding up to ``share``) with its
    travelling steps, all but the last ``POLISH + 1``, paid on top of ``share`` (at most
    :func:`travel_cap`), and the last ``POLISH + 1`` steps given what they get for data near
    the origin (the schedule at a distance of one scale) or, when the cap binds, all that is
    left; and what was added. A function of the schedule and public values only.

    The centre's error is that of its last steps, whose noise is isotropic but whose draw is one
    direction: an offset ``delta`` of the centre adds about ``delta delta' E[1 / r^2]`` to the
    SSCM (``r`` the rows' distances), which turns its first direction once ``||delta||`` nears
    the square root of its eigen-gap times the data's squared scale; travelling from far away
    on the centre's share alone left the last steps a third of it.

    Examples
    --------
    >>> shares, _ = centre_schedule(2000, 50, 0.18, 1400.0, 17.0)
    >>> travelled, extra = with_travel(shares, 2000, 50, 0.18, sum(shares), 0.0)
    >>> len(travelled) == len(shares), round(sum(travelled[-3:]) / sum(shares), 3)
    (True, 1.0)
    >>> round(extra / sum(shares), 3), round(sum(travelled) - sum(shares) - extra, 12)
    (0.667, 0.0)
    """
    travel = len(shares) - (POLISH + 1)
    if travel <= 0:
        return shares, 0.0
    near, _ = centre_schedule(n, d, strength, 1.0, 1.0, share=share)
    kept = shares[:travel]
    spent = math.fsum(kept)
    extra = min(travel_cap(share, coarse_share), spent)
    last = share + extra - spent
    total = math.fsum(near)
    return kept + [part * last / total for part in near], extra
