"""Statistical privacy audits: no mechanism reveals more than its claimed epsilon, and every
deliberately broken variant (run with a larger epsilon than it claims) is flagged."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.audit import audit, clopper_pearson, epsilon_lower_bound, scenarios

pytestmark = pytest.mark.long

SCENARIOS = scenarios()
#: The composed pipeline's statistic sees only its Gaussian parts (the quantiles spend part of
#: the total unseen): many cheap draws give the audit the power to flag 4x its epsilon.
DRAWS = {
    "dp_pca directions": 600,
    "dp_pca releases, tight composition": 20000,
    "dp_pca releases, tight composition (discrete)": 20000,
}
#: Each audit's id states what it can detect: a release that spends ``break_factor`` times the
#: epsilon it claims.
NAMES = [
    pytest.param(name, id=f"{name}: detects {scenario.break_factor:g}x its epsilon")
    for name, scenario in SCENARIOS.items()
]


@pytest.mark.parametrize("name", NAMES)
def test_mechanism_keeps_its_claim(name):
    result = audit(SCENARIOS[name], DRAWS.get(name, 2000), seed=11)
    assert result.lower_bound <= result.claimed_epsilon


@pytest.mark.parametrize("name", NAMES)
def test_broken_variant_is_flagged(name):
    result = audit(SCENARIOS[name], DRAWS.get(name, 2000), seed=12, broken=True)
    assert result.flagged, f"{name}: bound {result.lower_bound:.3f}"


def test_clopper_pearson_against_exact_values():
    low, high = clopper_pearson(5, 20, 0.025)
    # Exact 95 % two-sided interval for 5/20: (0.0866, 0.4910).
    assert low == pytest.approx(0.0866, abs=1e-4) and high == pytest.approx(0.4910, abs=1e-4)
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0 and clopper_pearson(10, 10, 0.05)[1] == 1.0


def test_bound_on_a_known_gaussian_shift():
    """Gaussian shift mu = 1 with delta = 1e-3 is (about 3.1)-DP; the bound is below that and,
    with many draws, well above 1."""
    rng = np.random.default_rng(0)
    first, second = rng.normal(0, 1, 100_000), rng.normal(1, 1, 100_000)
    bound = epsilon_lower_bound(first, second, 1e-3)
    assert 1.0 < bound < 3.1


def test_audit_flags_a_kernel_scaled_by_a_global_statistic(monkeypatch):
    """The mixed-scale audit catches the flaw it was written for: a kernel that first divides
    the data by one global power of two (set by the largest value) loses every pair of tiny
    rows next to a huge one, and the audit then bounds epsilon far above its claim."""
    import math

    import dppca.releases.loading.release as directions

    exact_kernel = directions.unit_kendall

    def globally_scaled(X, sign, k=None, rng=None, **options):
        exponent = math.frexp(float(np.max(np.abs(X))))[1]
        with np.errstate(under="ignore"):
            return exact_kernel(np.ldexp(X, -exponent), sign, k, rng, **options)

    monkeypatch.setattr(directions, "unit_kendall", globally_scaled)
    result = audit(scenarios()["Kendall matrix, mixed extreme scales"], 2000, seed=13)
    assert result.lower_bound > 2 * result.claimed_epsilon
