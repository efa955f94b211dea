"""What a release's budget must be able to do, judged before the charge from public values.

A grid quantile (:class:`~dppca.privacy.quantiles.GridQuantile`) of ``m`` values at epsilon
locates its level only when ``m >= 2 (r + 1)`` with ``r = 2 (ln G + ln 1000) / epsilon`` for a
grid of ``G`` points (:func:`~dppca.privacy.quantiles.safe_level`); below that, the answer can
land anywhere on its grid, and everything built on it (a frame, a clip level, a scale) is noise.
Each plan lists such conditions as :class:`Requirement` values. :func:`enforce` refuses a call
whose requirements are not met, before anything is charged, and says per release the smallest
epsilon (at the call's ``n``) and the smallest ``n`` (at its epsilon) that would meet them, and
the public alternative; ``on_weak="release"`` releases anyway, with a warning per requirement.

Every input is public (``n``, ``p``, the budget, the settings), so the refusal reveals nothing
about the data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dppca._stack import user_stacklevel
from dppca._validation import check_option
from dppca.exceptions import NoiseDominatedWarning, UnlocatableError

#: What a call does when a requirement is not met: refuse before the charge, or release anyway.
ON_WEAK = ("refuse", "release")
#: The searches for the smallest epsilon and n stop at these multiples of the call's.
SEARCH_LIMIT = 2.0**30


@dataclass(frozen=True)
class Requirement:
    """One condition a release's budget must meet, from public values.

    Attributes
    ----------
    release : str
        The release it belongs to, as its ledger entries are named (``"score: frame"``).
    what : str
        The part that needs it (``"centre x"``).
    met : bool
    alternative : str
        The public setting that makes the part unnecessary.
    warning : str
        What is said when the release is made anyway.

    Examples
    --------
    >>> need = locating("frame", "scale", 60, 1.0, "log", "public limits")
    >>> need.met
    False
    """

    release: str
    what: str
    met: bool
    alternative: str
    warning: str


def locating(
    release: str, what: str, values: int, epsilon: float, grid: str, alternative: str
) -> Requirement:
    """The requirement that a grid median of ``values`` values at ``epsilon`` be located:
    ``values >= 2 (r + 1)`` with :func:`~dppca.privacy.quantiles.locating_reach` ``r``."""
    from dppca.privacy.quantiles import locating_reach

    reach = locating_reach(epsilon, grid) + 1.0
    warning = (
        f"{release}: {what}: with n={values} values at epsilon={epsilon:.3g} the answer can land "
        f"anywhere on its grid (locating a median needs epsilon * n >= "
        f"{2 * reach * epsilon:.0f}); the result is dominated by noise."
    )
    return Requirement(release, what, reach <= values / 2, alternative, warning)


def check_on_weak(on_weak: object) -> str:
    """``on_weak``: ``"refuse"`` or ``"release"``."""
    return check_option(on_weak, "on_weak", ON_WEAK)


def enforce(
    requirements_at: Callable[[int, float], Sequence[Requirement]],
    n: int,
    epsilon: float,
    on_weak: str,
    call: str,
) -> None:
    """Refuse (``on_weak="refuse"``) or warn about (``"release"``) the requirements that
    ``requirements_at(n, epsilon)`` does not meet; before any charge.

    ``requirements_at(n', epsilon')`` plans the same call at another size or total epsilon (a
    plan that refuses its settings there counts as not meeting them); the refusal names, per
    release, the smallest total epsilon at ``n`` and the smallest ``n`` at ``epsilon`` found by
    bisection (epsilon to 3 significant digits, rounded up).

    Raises
    ------
    UnlocatableError
        With ``on_weak="refuse"``, when a requirement is not met.

    Examples
    --------
    >>> def plan(n, epsilon):
    ...     return [locating("score: frame", "scale", n, epsilon, "log", "public limits")]
    >>> try:
    ...     enforce(plan, 150, 0.5, "refuse", "dp_frame")
    ... except UnlocatableError as error:
    ...     print(str(error)[:89])
    dp_frame cannot locate at n=150, epsilon=0.5: score: frame (scale) needs epsilon >= 0.547
    """
    failing = [need for need in requirements_at(n, epsilon) if not need.met]
    if not failing:
        return
    if on_weak == "release":
        for need in failing:
            warnings.warn(need.warning, NoiseDominatedWarning, stacklevel=user_stacklevel())
        return
    releases: dict[str, list[Requirement]] = {}
    for need in failing:
        releases.setdefault(need.release, []).append(need)
    parts = []
    for release, needs in releases.items():

        def met(size: int, budget: float, release: str = release) -> bool:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    found = requirements_at(size, budget)
            except (ValueError, TypeError):
                return False
            return all(need.met for need in found if need.release == release)

        smallest_epsilon = _smallest(lambda value: met(n, value), epsilon, integer=False)
        smallest_n = _smallest(lambda value: met(int(value), epsilon), n, integer=True)
        whats = ", ".join(dict.fromkeys(need.what for need in needs))
        by_epsilon = (
            f"epsilon >= {_round_up(smallest_epsilon)} at this n"
            if smallest_epsilon is not None
            else "more epsilon than can be planned at this n"
        )
        by_rows = (
            f"n >= {int(smallest_n)} at this epsilon"
            if smallest_n is not None
            else "more rows than can be planned at this epsilon"
        )
        parts.append(
            f"{release} ({whats}) needs {by_epsilon} or {by_rows}; or give {needs[0].alternative}"
        )
    raise UnlocatableError(
        f"{call} cannot locate at n={n}, epsilon={epsilon:g}: " + "; ".join(parts) + ". Nothing "
        "was spent. Pass on_weak='release' to release anyway (for a study: the outputs are "
        "dominated by noise)."
    )


def _smallest(met: Callable[[float], bool], start: float, *, integer: bool) -> float | None:
    """The smallest value above ``start`` at which ``met`` holds (monotone), or None below
    ``start * SEARCH_LIMIT``: doubling, then bisection to 0.1 % (and to one row)."""
    low, high = start, start * 2.0
    while not met(high):
        low, high = high, high * 2.0
        if high > start * SEARCH_LIMIT:
            return None
    while high > low * 1.001 and (not integer or high - low > 1.0):
        middle = math.floor((low + high) / 2.0) if integer else math.sqrt(low * high)
        if met(middle):
            high = middle
        else:
            low = middle
    return high


def _round_up(value: float) -> str:
    """``value`` rounded up to three significant digits.

    >>> _round_up(0.54321), _round_up(10.031), _round_up(140.0)
    ('0.544', '10.1', '140')
    """
    exponent = math.floor(math.log10(value)) - 2
    unit = 10.0**exponent
    rounded = math.ceil(value / unit * (1 - 1e-12)) * unit
    return f"{rounded:.{max(-exponent, 0)}f}"
