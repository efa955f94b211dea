"""A public centre for the spatial sign covariance matrix, given by the caller: its plan (the
pair scale's median, then the caller's Gaussian budget) and its release, in the shape of the
private centre's (:mod:`dppca.releases.loading.centre`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dppca.privacy.budget import Component, PrivacyLedger, check_parts, split_epsilon
from dppca.privacy.gaussian_budget import GaussianBudget
from dppca.privacy.mechanisms import Noise
from dppca.privacy.quantiles import GridQuantile
from dppca.releases.loading.centre import CLIP_RANGE, Centre, release_pair_scale
from dppca.releases.loading.schedule import locating_epsilon


@dataclass(frozen=True, eq=False)
class KnownCentrePlan:
    """A public centre, given by the caller: nothing is spent on locating it. The pair scale
    (the matrix's clip) is released first with the share of epsilon that locates it; the
    caller's release gets the whole Gaussian budget of the rest, with all of delta."""

    location: np.ndarray
    pair_scale: GridQuantile
    gaussian: GaussianBudget
    #: Whether the pair scale gets the epsilon that locates it.
    located: bool
    #: A public centre is where the caller put it, at any distance from the origin.
    anywhere: bool = True
    share: float = 0.0

    def caller_share(self, extra_share: float) -> float:
        """The caller's share of the Gaussian budget: all of it (a known centre takes
        nothing, ``extra_share`` is 0)."""
        return 1.0 - extra_share

    def mechanisms(self) -> list[object]:
        """The pair scale's median, then the caller's Gaussian budget."""
        return [self.pair_scale, self.gaussian]

    def locate(
        self,
        data: np.ndarray,
        noise: Noise,
        rng: np.random.Generator,
        ledger: PrivacyLedger,
        name: str,
        component: Component = "loading",
    ) -> Centre:
        """The public centre and the released pair scale."""
        scale = release_pair_scale(data, self.pair_scale, noise, rng, ledger, name, component)
        in_range = CLIP_RANGE[0] < scale < CLIP_RANGE[1]
        return Centre(self.location, None, scale, [], [], [], in_range)


def plan_known_centre(
    location: np.ndarray, n: int, epsilon: float, delta: float, sampler: str, description: str
) -> KnownCentrePlan:
    """The plan about a public centre ``location`` (validated) for ``n`` rows and a validated
    (epsilon, delta): the pair scale gets ``MEDIAN_MARGIN`` times the epsilon that locates it
    (at least ``MEDIAN_SHARE epsilon``, at most half of epsilon), the Gaussian budget
    ``description`` the rest.

    Examples
    --------
    >>> plan = plan_known_centre(np.zeros(3), 2000, 1.0, 1e-6, "continuous", "matrix")
    >>> round(plan.pair_scale.epsilon, 3), plan.located, plan.gaussian.epsilon > 0.87
    (0.122, True, True)
    """
    wanted = locating_epsilon(n / 4.0 - 1.0, epsilon)
    located = wanted <= epsilon / 2.0
    scale_epsilon, gaussian_epsilon = check_parts(
        split_epsilon(epsilon, [min(0.5, wanted / epsilon), 1.0 - min(0.5, wanted / epsilon)]),
        f"epsilon={epsilon:g} for the pair scale",
    )
    return KnownCentrePlan(
        location,
        GridQuantile(
            "log", 0.5, scale_epsilon, sampler, description="pair half-distances", positive=True
        ),
        GaussianBudget(gaussian_epsilon, delta, sampler, description),
        located,
    )
