"""Private scales of the variables, for data in mixed units.

Scaling by sample standard deviations is not private, and principal directions of data in mixed
units follow the variable with the largest numbers. ``dp_scale`` releases one robust spread per
variable: the rows are paired at random into ``m = floor(n / 2)`` disjoint pairs (each row in
one pair, so replacing a row changes one pair) and, for each variable ``j``, the pair
half-differences ``d_j = |x_bj - x_aj| / sqrt 2`` (translation free: no centre is needed) are

1. clipped at ``C_j``, a private quantile of the ``d_j`` on the logarithmic grid (the
   exponential mechanism, ``clip_share / p`` of epsilon each) at ``level`` (0.99), moved
   towards 1/2 only as far as the budget needs to locate it: a high level keeps the clip above
   0 for variables whose pairs are mostly tied (counts, mostly-zero amounts);
2. averaged: the ``p`` means of ``min(d_j, C_j) / C_j`` and the ``p`` shares of untied pairs
   (``d_j > 0``), all in ``[0, 1]``, move by at most ``1 / m`` each when one pair changes (L2
   sensitivity ``sqrt(2 p) / m``), and one Gaussian mechanism releases them with the rest of
   epsilon and all of delta.

The scale is the clipped mean over its value for a standard normal variable,
``c(z) = E min(|Z|, z) = 2 (phi(0) - phi(z)) + 2 z (1 - Phi(z))`` at ``z = Phi^-1((1 + q) / 2)``
for the level ``q`` used, so that a normal variable's scale estimates its standard deviation:
a clipped form of Gini's mean difference (David 1968), bounded against outliers and heavy
tails, and positive for discrete or sparse variables (genotype counts, mostly-zero amounts)
whose median absolute difference is 0.

A variable's release is judged unreliable, from the released values only, when its clipped mean
is within ``z`` noise sd of 0, when its share of untied pairs is within ``z`` sd of ``1 - q``
(the clip may then lie among its ties), or when its clipped mean is within ``z sqrt 2`` sd of
that share (every untied pair lies above the clip: the clip is below the data). ``z`` is the
normal quantile at ``1 - 0.01 / p``, so that a variable with a good release is flagged with
probability about 1 % for the whole table. An unreliable variable's scale is released as NaN
and a PCA that needs it stops after the scales; only with the user's consent
(``on_weak="release"``) does it get the geometric mean of the other variables' scales
(post-processing; the notes name it), or, when no variable is reliable, every scale is 1 (no
scaling). Otherwise scales multiply with the data's units: the same seed
gives the scales times ``c`` for data times ``c`` (``c`` a power of ``10^(1/1000)``).

``plan`` holds the settings' checks, the plan and the public scales, ``release`` the release
of a plan, :func:`dp_scale` and its result.
"""

from dppca.releases.scale.plan import (
    DEFAULT_CLIP_SHARE,
    DEFAULT_LEVEL,
    FLAG_RATE,
    PUBLIC_SCALES,
    SCALED_LIMIT,
    ScalePlan,
    check_public_scales,
    check_scale,
    clipped_normal_mean,
    plan_scale,
    resolving,
    scaled,
)
from dppca.releases.scale.release import dp_scale, scale_notes, scale_release, stop_if_unreliable

__all__ = [
    "DEFAULT_CLIP_SHARE",
    "DEFAULT_LEVEL",
    "FLAG_RATE",
    "PUBLIC_SCALES",
    "SCALED_LIMIT",
    "ScalePlan",
    "check_public_scales",
    "check_scale",
    "clipped_normal_mean",
    "dp_scale",
    "plan_scale",
    "resolving",
    "scale_notes",
    "scale_release",
    "scaled",
    "stop_if_unreliable",
]
