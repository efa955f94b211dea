"""Private principal directions: g-DPPCA (Kim and Jung 2025).

The Kendall matrix ``K`` of generalized spatial signs has Frobenius sensitivity
``2 sqrt(2) ||g||_inf^2 / n`` under replacement of one row, so the Gaussian mechanism on
``vecd(K)`` releases ``K + E`` with ``E`` symmetric, ``E_jj ~ N(0, sigma^2)``,
``E_jl ~ N(0, sigma^2/2)`` and ``sigma = Delta_F * s(epsilon, delta)``. The private directions
are the eigenvectors of ``K + E`` (post-processing): for elliptical data they estimate the
eigenvectors of the scatter matrix, whatever the tails.

``given`` checks what a caller gives instead (directions, a public centre), ``plan`` holds the
settings' checks and the plan (the sign transform, the automatic radius, the Kendall matrix's
Gaussian mechanism), ``release`` the release of a plan and :func:`dp_loading`, ``sscm`` and
``centre`` the spatial sign covariance matrix about a private or public centre.
"""

from dppca.releases.loading.given import (
    ORTHONORMAL_TOLERANCE,
    check_direction_source,
    check_directions,
)
from dppca.releases.loading.plan import (
    DEFAULT_RADIUS_LEVEL,
    DEFAULT_RADIUS_SHARE,
    LoadingPlan,
    LoadingSettings,
    check_sign_settings,
    kendall_mechanism,
)
from dppca.releases.loading.release import dp_loading, loading_release

__all__ = [
    "DEFAULT_RADIUS_LEVEL",
    "DEFAULT_RADIUS_SHARE",
    "ORTHONORMAL_TOLERANCE",
    "LoadingPlan",
    "LoadingSettings",
    "check_direction_source",
    "check_directions",
    "check_sign_settings",
    "dp_loading",
    "kendall_mechanism",
    "loading_release",
]
