"""Private scree: variances along private directions (as in the R package ``dppca``).

Scores on the first ``k`` directions, ``Y = X V_k``, are paired at random into ``m = floor(n/2)``
disjoint pairs, and ``W_jl = (Y_b,l - Y_a,l)^2 / 2`` (translation free: no centring). Each row is
in one pair, so replacing a row changes one row of ``W``. Every method releases a robust mean of
each column of ``W`` through one joint Gaussian mechanism over the ``k`` components: with
per-component widths ``w_l`` (the range a pair can move a component's mean by ``w_l / m``), the
noise is ``N(0, (w_l sqrt(k) / (m mu))^2)``, ``mu``-GDP with ``mu`` from (epsilon, delta) exactly
(Dong, Roth and Su 2022).

* ``"clipped"``: each pair's row ``W_j`` is scaled down to L1 norm at most ``C``,
  ``W_j min(1, C / S_j)`` with ``S_j = sum_l W_jl``, and the mean rows are released by one
  Gaussian mechanism of L2 sensitivity ``sqrt(2) C / m`` (two non-negative rows of L1 norm at
  most ``C`` differ by at most ``sqrt(2) C`` in L2; ``C`` for one component).
  ``C_clip="auto"`` (default) sets ``C = clip_multiplier * q`` with ``q`` a private quantile
  (level ``clip_level``, 0.75) of the row totals ``S_j`` on a logarithmic grid, spending
  ``clip_share`` of epsilon: any units work and the result is equivariant to them; a number is
  a public clip level.
* ``"pmwm"``: private modified winsorized mean (Ramsay and Spicker 2025): per component two
  one-sided Durfee quantiles at levels ``trim`` and ``1 - trim`` clamped to the public ``[a, b]``,
  then the winsorized mean; epsilon/2 to the ``2k`` quantiles, epsilon/2 and delta to the mean.
* ``"huber"``: a private scale per component (the median of squared half-differences of its
  ``W`` values on a logarithmic grid, in place of the R package's dyadic histogram with public
  exponent bounds), then ``T`` steps of noisy clipped gradient descent (Yu, Ren and Zhou 2024).

``mono=True`` post-processes to a non-negative, non-increasing sequence by antitonic least squares.

Each method is one module (``clipped``, ``pmwm``, ``huber``) holding a
:class:`~dppca.releases.scree.common.ScreeMethod`: its control's defaults and checks, the
mechanisms it plans from public values, what its budget must locate and its estimate; the
registry :data:`METHODS` (in ``plan``) names them, so a new method is one module and one
entry. ``common`` holds the joint Gaussian release they share, ``plan`` the checked settings,
the plan and the release of a plan, and ``release`` :func:`dp_scree` and its result.
"""

from dppca.releases.scree.clipped import (
    CLIP_MULTIPLIER,
    clip_range,
    clip_share,
    clipped_means_mechanism,
    row_shares,
    row_totals,
)
from dppca.releases.scree.common import (
    joint_gaussian,
    means_mechanism,
    noise_per_width,
    unit_scaled,
    width_range,
)
from dppca.releases.scree.huber import clipped_gradient
from dppca.releases.scree.plan import (
    CONTROL_DEFAULTS,
    METHODS,
    MIN_PAIRS,
    SCREE_METHODS,
    ScreePlan,
    ScreeSettings,
    check_scree_control,
    scree_release,
    split_controls,
)
from dppca.releases.scree.release import dp_scree, non_private_scree

__all__ = [
    "CLIP_MULTIPLIER",
    "CONTROL_DEFAULTS",
    "METHODS",
    "MIN_PAIRS",
    "SCREE_METHODS",
    "ScreePlan",
    "ScreeSettings",
    "check_scree_control",
    "clip_range",
    "clip_share",
    "clipped_gradient",
    "clipped_means_mechanism",
    "dp_scree",
    "joint_gaussian",
    "means_mechanism",
    "noise_per_width",
    "non_private_scree",
    "row_shares",
    "row_totals",
    "scree_release",
    "split_controls",
    "unit_scaled",
    "width_range",
]
