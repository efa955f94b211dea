"""Private score plots: a private 2-D histogram of PC scores on a private frame (after the R
package ``dppca``).

Scores ``s_i = (x_i' v_a, x_i' v_b)`` on two private (or user-given) directions are never
released. The score budget is split 0.35 to the frame (three Durfee quantiles, no delta) and 0.65
plus all of delta to each requested histogram method. With public group labels, one
frame from all rows is shared and every group gets its own histogram on the same grid, each with
the full histogram budget (parallel composition over disjoint groups, McSherry 2009).

``plan`` holds the settings' checks, the plan and the release of a plan (and the non-private
scores on request), ``release`` :func:`dp_score` and its result.
"""

from dppca.releases.scores.plan import (
    FRAME_SHARE,
    MAX_INFLATE,
    ScorePlan,
    ScoreRelease,
    ScoreSettings,
    check_axes,
    empirical_scores,
    estimated_group_sizes,
    score_release,
)
from dppca.releases.scores.release import dp_score

__all__ = [
    "FRAME_SHARE",
    "MAX_INFLATE",
    "ScorePlan",
    "ScoreRelease",
    "ScoreSettings",
    "check_axes",
    "dp_score",
    "empirical_scores",
    "estimated_group_sizes",
    "score_release",
]
