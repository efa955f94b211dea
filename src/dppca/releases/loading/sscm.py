"""Private directions from the spatial sign covariance matrix about a private centre
(``statistic="sscm"``): its plan from public values and the release of a plan.

The release, for rows ``x_1..x_n`` in ``d`` variables and a budget (epsilon, delta), steps 1 to 3
being the private centre of :mod:`dppca.releases.loading.centre`:

1. two pure-DP medians, each with the share of epsilon that locates it (at least 5 %): the row
   norms' ``tau_0`` and the disjoint random pairs' half-distances' ``s`` (translation
   invariant), both on the logarithmic grid (equivariant to the data's units);
2. the rest, one Gaussian budget (:class:`~dppca.privacy.gaussian_budget.GaussianBudget`) of
   multiplier ``mu``, split in shares of ``mu^2``: the centre gets
   ``min(0.3, max(0.02, 12 sqrt(d) / (n mu)))``, the matrix the remainder;
3. ``T`` centre steps from ``c = 0``, each the clipped, soft-weighted mean of ``x_i - c``
   (:func:`~dppca.numerics.sscm.centre_step_sum`, sensitivity ``2 tau_t / n``) plus Gaussian
   noise, the next clip ``tau_{t+1} = max(sqrt(s^2 + 4 d sigma_t^2), tau_t / 4)``: enough
   steps to come from ``tau_0`` down to ``s``, and two more at clips near ``s`` to converge
   there; ``T`` and every share follow from ``tau_0``, ``s`` and public values alone
   (:func:`~dppca.releases.loading.schedule.centre_schedule`);
4. where ``n epsilon`` is large for ``d`` (:mod:`dppca.releases.loading.weights`), a third
   pure-DP median with a small share of epsilon: the spread ``m``, the median of the rows'
   distances from the released centre, on the logarithmic grid;
5. the matrix ``S = (1/n) sum_i v_i a_i a_i'`` about the centre, with the radial weights
   ``v_i`` in [0, 1] of :func:`~dppca.numerics.sscm.matrix_weights` (Frobenius sensitivity
   ``sqrt(2) / n`` whatever their radii, which follow from the clip, ``s`` and ``m``:
   :func:`~dppca.releases.loading.weights.matrix_radii`), plus symmetric Gaussian noise; the
   directions are its eigenvectors.

About a public centre (``center=``, known without the data), steps 1 to 3 reduce to the pair
scale's median ``s``, the matrix's clip, released with the share of epsilon that locates it; the
matrix gets the whole Gaussian budget of the rest. A centre computed from the data is not
public: it would spend budget the ledger does not show.

Privacy: the medians are ``(epsilon_tau + epsilon_s + epsilon_m)``-DP by basic composition;
given the released values, every Gaussian mechanism's share and sensitivity are fixed, and the
shares add up to 1, so the Gaussian parts together are ``mu``-GDP (Dong, Roth and Su 2022,
Corollary 3.3; ``rho``-zCDP for the discrete sampler, Bun and Steinke 2016), which is
(epsilon - epsilon_tau - epsilon_s - epsilon_m, delta)-DP. The spread is released between the
steps and the matrix; composition is adaptive and its order does not matter (the tensor product
of trade-off functions commutes, Dong, Roth and Su 2022, Theorem 3.2; for zCDP each Gaussian
part's bound holds given every earlier output), and basic composition then gives (epsilon,
delta). Every sensitivity includes the floating-point error of the computed statistic
(:mod:`dppca.numerics.sscm`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca.numerics.linalg import align_columns, covariance_pca, descending_eigh
from dppca.numerics.rows import sample_covariance
from dppca.numerics.sscm import offsets, sscm, sscm_sensitivity
from dppca.privacy.budget import Budget, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.gaussian_budget import GaussianPart
from dppca.privacy.mechanisms import Noise, check_noise_scale
from dppca.privacy.quantiles import GridQuantile
from dppca.privacy.requirements import Requirement
from dppca.releases.loading.centre import CentrePlan, clip_of, plan_centre
from dppca.releases.loading.known_centre import KnownCentrePlan, plan_known_centre
from dppca.releases.loading.weights import adaptation, matrix_radii, spread_epsilon
from dppca.results.loading import LoadingResult, NonPrivateLoading
from dppca.results.status import ReleaseStatus

#: The public alternative to a private centre, as refusals name it.
KENDALL = "statistic='kendall' (translation invariant: no centre to locate)"


@dataclass(frozen=True)
class SSCMPlan:
    """A validated SSCM release, fixed by public values: the centre's plan (two medians and a
    Gaussian budget), the spread's median where the weights adapt, and the matrix's share of
    the Gaussian budget."""

    n: int
    p: int
    epsilon: float
    delta: float
    sampler: str
    #: The private centre's plan, or a public centre's (the caller's ``center``).
    centre: CentrePlan | KnownCentrePlan
    #: What the budget must locate (:mod:`dppca.privacy.requirements`).
    requirements: tuple[Requirement, ...] = ()
    #: The spread's median (:mod:`dppca.releases.loading.weights`), or None: the weights' radii
    #: then follow from the clip alone.
    spread: GridQuantile | None = None
    #: How far the weights adapt to the spread (:func:`~dppca.releases.loading.weights.adaptation`).
    adaptation: float = 0.0

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from (the Gaussian budget is every centre step and
        the matrix together; the spread is released between them)."""
        return self.centre.mechanisms() + ([self.spread] if self.spread is not None else [])

    @property
    def sensitivity(self) -> float:
        """The matrix's Frobenius sensitivity."""
        return sscm_sensitivity(self.n, self.p)

    @property
    def sigma(self) -> float:
        """The matrix's noise sd (diagonal; off the diagonal ``sigma / sqrt(2)``) when the
        centre takes no coarse location."""
        return self.matrix_mechanism(0.0).scale

    def in_scaled_units(self, scale: Callable[[np.ndarray], np.ndarray]) -> SSCMPlan:
        """This plan with a public centre moved by ``scale`` to the units of data that were
        divided by scales (post-processing of the scales); a private centre is left as it is."""
        if not isinstance(self.centre, KnownCentrePlan):
            return self
        location = scale(self.centre.location[None, :])[0]
        return dataclasses.replace(self, centre=dataclasses.replace(self.centre, location=location))

    def matrix_mechanism(self, extra_share: float) -> GaussianPart:
        """The matrix's share of the Gaussian budget (what the centre's steps and what it took
        beyond them, ``extra_share``, leave), on ``vecd(S)``."""
        return self.centre.gaussian.part(
            self.sensitivity, self.p * (self.p + 1) // 2, self.centre.caller_share(extra_share)
        )


def plan_sscm(
    shape: tuple[int, int], budget: Budget, sampler: str, center: np.ndarray | None = None
) -> SSCMPlan:
    """The plan for data of ``shape`` and a validated ``budget``: the centre's plan
    (:func:`~dppca.releases.loading.centre.plan_centre`, or about the public, validated
    ``center``: :func:`~dppca.releases.loading.centre.plan_known_centre`), the requirement that
    its medians be located, and a check that the matrix's noise is a positive normal float
    (before any charge)."""
    n, d = shape
    epsilon, delta = budget.epsilon, budget.delta
    description = "SSCM: centre steps and matrix"
    spread, rest = None, epsilon
    if wanted := spread_epsilon(n, d, epsilon):
        spread_part, rest = check_parts(
            split_epsilon(epsilon, [wanted / epsilon, 1.0 - wanted / epsilon]),
            f"epsilon={epsilon:g} for the SSCM's spread",
        )
        spread = GridQuantile(
            "log", 0.5, spread_part, sampler, description="distances from the centre"
        )
    centre: CentrePlan | KnownCentrePlan
    if center is None:
        centre = plan_centre(shape, rest, delta, sampler, description, release_epsilon=epsilon)
        requirements = _private_centre_requirements(n, epsilon, centre)
    else:
        centre = plan_known_centre(center, n, rest, delta, sampler, "SSCM: matrix")
        requirements = (
            Requirement(
                "loading",
                "the SSCM's pair scale",
                centre.located,
                KENDALL,
                f"loading: the SSCM about a public centre: with n={n} at epsilon={epsilon:.3g} "
                "its pair scale (the matrix's clip) cannot be located in half of epsilon.",
            ),
        )
    strength = adaptation(n, d, epsilon) if spread is not None else 0.0
    plan = SSCMPlan(n, d, epsilon, delta, sampler, centre, requirements, spread, strength)
    most = centre.most_extra if isinstance(centre, CentrePlan) else 0.0
    for extra_share in (0.0, most):
        check_noise_scale(plan.matrix_mechanism(extra_share).scale, "the SSCM")
    return plan


def _private_centre_requirements(
    n: int, epsilon: float, centre: CentrePlan
) -> tuple[Requirement, ...]:
    """That the private centre's medians be located, and the centre at any distance."""
    return (
        Requirement(
            "loading",
            "the SSCM's centre",
            centre.located,
            KENDALL,
            f"loading: the SSCM's centre: with n={n} at epsilon={epsilon:.3g} its medians "
            "cannot be located in half of epsilon; the directions are dominated by noise.",
        ),
        Requirement(
            "loading",
            "the SSCM's centre at any distance from the origin",
            centre.anywhere,
            KENDALL,
            f"loading: the SSCM's centre: with n={n} at epsilon={epsilon:.3g} data far from the "
            "origin for their scale cannot be located (no coarse location is affordable); such "
            "a release is marked misplaced.",
        ),
    )


def sscm_release(
    data: np.ndarray,
    names: list[str],
    plan: SSCMPlan,
    rng: np.random.Generator,
    *,
    non_private: bool = False,
) -> LoadingResult:
    """The release of a validated plan on validated in-memory data (the caller has charged the
    budget). Its status says "misplaced" when the schedule's steps could not cover the distance
    from the origin to the data (judged from the released medians): the callers then release
    the directions as NaN (:func:`unusable_loading`)."""
    n, d = data.shape
    noise = Noise(plan.sampler, rng)
    ledger = PrivacyLedger()
    centre = plan.centre.locate(data, noise, rng, ledger, "loading: SSCM")
    centre_noise = centre.noise_sds[-1] if centre.noise_sds else 0.0
    matrix_clip = clip_of(math.hypot(centre.pair_scale, math.sqrt(d) * centre_noise))
    spread = None
    if plan.spread is not None:
        spread = plan.spread.release(offsets(data, centre.location)[1], noise)
        plan.spread.record(ledger, "loading: SSCM spread", "loading")
    radii = matrix_radii(matrix_clip, centre.pair_scale, spread, plan.adaptation)
    statistic = sscm(data, centre.location, radii)
    matrix = plan.matrix_mechanism(centre.extra_share)
    noisy = matrix.randomise_symmetric(statistic, noise)
    known = isinstance(plan.centre, KnownCentrePlan)
    name = "loading: SSCM matrix" if known else "loading: SSCM centre steps and matrix"
    plan.centre.gaussian.record(ledger, name, "loading")
    eigenvalues, directions = descending_eigh(noisy)
    status = ReleaseStatus()
    if centre.problem is not None:
        status = ReleaseStatus(
            "misplaced",
            f"the SSCM's {'clip' if known else 'centre'} could not be located: "
            f"{centre.problem}; or use {KENDALL}",
        )
    reference = None
    if non_private:
        exact = sscm(data, centre.location, radii)
        _, vectors = descending_eigh(exact)
        covariance = sample_covariance(data)
        pca_eigenvalues, pca_vectors = covariance_pca(covariance, directions)
        reference = NonPrivateLoading(
            kendall=exact,
            kendall_directions=align_columns(vectors, directions),
            directions=pca_vectors,
            eigenvalues=pca_eigenvalues,
        )
    settings = {
        "statistic": "sscm",
        "transform": "spherical",
        "sampler": plan.sampler,
        "epsilon": plan.epsilon,
        "delta": plan.delta,
        "centre": centre.location.tolist(),
        "centre_given": known,
        "centre_steps": len(centre.shares),
        "centre_shares": centre.shares,
        "centre_clips": centre.clips,
        "centre_noise_sd": centre.noise_sds,
        "matrix_clip": matrix_clip,
        "spread": spread,
        "weights_adaptation": plan.adaptation,
        "weights_inner_radius": radii.inner,
        "weights_outer_radius": radii.outer,
        "norm_median": centre.norm_median,
        "pair_scale": centre.pair_scale,
        "centre_share": plan.centre.share,
        "centre_coarse_share": centre.coarse_share,
        "centre_travel_share": centre.travel_share,
    }
    return LoadingResult(
        directions=directions,
        kendall=noisy,
        kendall_eigenvalues=eigenvalues,
        sigma=matrix.scale,
        sensitivity=plan.sensitivity,
        radius=None,
        feature_names=names,
        n_samples=n,
        settings=settings,
        privacy=ledger,
        non_private=reference,
        status={"directions": status},
    )
