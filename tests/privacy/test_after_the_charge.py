"""Once the budget is charged, nothing may depend on the data but the releases themselves.

Only documented format checks (finite numbers, shapes, types) may depend on the data, and they
run before the charge. After it, every step clamps instead of failing: no exception, no numpy
warning and no allocation may tell neighbouring data sets apart. Warnings about the released
values (a Durfee search that ran off its grid, an empty private histogram) are post-processing
of the releases and are allowed, as are warnings from public values (a budget too small for
the number of rows).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dppca
from dppca.exceptions import DurfeeStepLimitWarning, NoiseDominatedWarning
from dppca.results.sampling import NoMassWarning

HUGE = 1.7e308


def _datasets() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    base = rng.standard_normal((60, 3))
    signs = np.sign(rng.standard_normal((60, 3)))
    mixed = base * 1e-16
    mixed[0] = [HUGE, -HUGE, HUGE]
    subnormal = base * 1e-310
    subnormal[:3] = base[:3] * 1e300
    return {
        "+-1.7e308": signs * HUGE,
        "one row at 1.7e308 among 1e-16": mixed,
        "subnormals with rows at 1e300": subnormal,
        "half at 1e-300, half at 1e300": base
        * np.where(np.arange(60)[:, None] < 30, 1e-300, 1e300),
    }


DATASETS = _datasets()


def _quietly(function, *args, **kwargs):
    """Run with every warning an error except those about released values."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", DurfeeStepLimitWarning)
        warnings.simplefilter("ignore", NoMassWarning)
        warnings.simplefilter("ignore", NoiseDominatedWarning)
        return function(*args, **kwargs)


CALLS = {
    "dp_loading spherical": lambda X: dppca.dp_loading(
        X, 1.0, 1e-6, random_state=0, on_weak="release"
    ),
    "dp_loading winsorized auto": lambda X: dppca.dp_loading(
        X, 1.0, 1e-6, transform="winsorized", radius="auto", random_state=0, on_weak="release"
    ),
    "dp_loading callable h": lambda X: dppca.dp_loading(
        X, 1.0, 1e-6, transform=lambda s: np.log1p(s), radius=3.0, random_state=0
    ),
    "dp_loading pairs=4": lambda X: dppca.dp_loading(
        X, 1.0, 1e-6, pairs=4, random_state=0, on_weak="release"
    ),
    "dp_scree clipped": lambda X: dppca.dp_scree(
        X, 3, 1.0, 1e-6, loading_epsilon=1.0, loading_delta=1e-6, random_state=0, on_weak="release"
    ),
    "dp_scree pmwm": lambda X: dppca.dp_scree(
        X,
        3,
        1.0,
        1e-6,
        method="pmwm",
        control={"a": 0.0, "b": 10.0, "trim_const": 5, "eta": 0.05},
        directions=np.eye(3),
        random_state=0,
        on_weak="release",
    ),
    "dp_scree huber": lambda X: dppca.dp_scree(
        X,
        3,
        1.0,
        1e-6,
        method="huber",
        control={"m2_frac": 0.25},
        directions=np.eye(3),
        random_state=0,
        on_weak="release",
    ),
    "dp_score": lambda X: dppca.dp_score(
        X,
        1.0,
        1e-6,
        bins=5,
        method="sparse",
        directions=np.eye(3),
        random_state=0,
        on_weak="release",
    ),
    "dp_frame": lambda X: dppca.dp_frame(X[:, :2], 1.0, random_state=0, on_weak="release"),
    "dp_quantile below its lower bound": lambda X: dppca.dp_quantile(
        X[:, 0], 0.5, 1.0, lower=0.0, random_state=0
    ),
    "dp_quantile two-sided": lambda X: dppca.dp_quantile(X[:, 0], 0.5, 1.0, random_state=0),
    "dp_pca": lambda X: dppca.dp_pca(
        X, 3.0, 1e-6, random_state=0, non_private=True, on_weak="release", score={"bins": 4}
    ),
    "DPPCA": lambda X: dppca.DPPCA(2, scree="clipped", random_state=0, on_weak="release").fit(X),
}


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("call", CALLS)
def test_no_error_or_warning_after_the_charge(call, dataset):
    result = _quietly(CALLS[call], DATASETS[dataset])
    released = {
        "directions": getattr(result, "directions", None),
        "components_": getattr(result, "components_", None),
        "value": getattr(result, "value", None),
        "center": getattr(getattr(result, "frame", result), "center", None),
    }
    unusable = {name for name, status in getattr(result, "status", {}).items() if not status.usable}
    for name, value in released.items():
        if value is not None and not (name == "center" and "frame" in unusable):
            assert np.all(np.isfinite(value)), name


def test_a_tiny_radius_is_refused_before_the_charge():
    X = np.random.default_rng(1).standard_normal((12000, 2))
    accountant = dppca.Accountant(dppca.Budget(10.0, 1e-3))
    with pytest.raises(ValueError, match="radius must be between 1e-150 and 1e"):
        dppca.dp_loading(X, 1.0, 1e-6, transform="winsorized", radius=1e-160, accountant=accountant)
    assert accountant.spent == dppca.Budget(0.0, 0.0)


def test_a_subnormal_noise_scale_is_refused_before_the_charge():
    X = np.random.default_rng(1).standard_normal((1000, 2))
    accountant = dppca.Accountant(dppca.Budget(1e12, 0.9))
    with pytest.raises(ValueError, match="not a positive normal float"):
        dppca.dp_loading(X, 1e10, 0.5, transform="winsorized", radius=1e-150, accountant=accountant)
    assert accountant.spent == dppca.Budget(0.0, 0.0)
    for epsilon in (1e-320, 1e308):
        with pytest.raises(ValueError, match="not a positive normal float"):
            dppca.dp_quantile(X[:, 0], 0.5, epsilon, accountant=accountant)
    assert accountant.spent == dppca.Budget(0.0, 0.0)


def test_automatic_clip_levels_keep_normal_noise_at_any_scale():
    """Scores at 1e-200 square to 0: the automatic clip level is clamped up so that the noise
    stays a normal float (and down at 1e200, where squares overflow)."""
    rng = np.random.default_rng(2)
    for scale in (1e-200, 1e200):
        X = rng.standard_normal((400, 2)) * scale
        result = _quietly(
            dppca.dp_scree, X, 2, 1.0, 1e-6, directions=np.eye(2), random_state=0, mono=False
        )
        sd = result.settings["clipped"]["noise_sd"]
        assert np.all(np.isfinite(sd)) and np.all(sd >= np.finfo(np.float64).tiny)


@pytest.mark.parametrize("epsilon", [1e-300, 1e-150, 1e-61, 2.0**-1022, 3e-308])
def test_absurdly_small_budgets_fail_before_the_charge_or_not_at_all(epsilon):
    """Any budget either runs (warnings as errors) or is refused before the charge."""
    X = np.random.default_rng(3).standard_normal((80, 30))
    calls = [
        lambda a: dppca.dp_loading(X, epsilon, 1e-6, random_state=0, accountant=a),
        lambda a: dppca.dp_quantile(X[:, 0], 0.5, epsilon, random_state=0, accountant=a),
        lambda a: dppca.dp_frame(X[:, :2], epsilon, random_state=0, accountant=a),
        lambda a: dppca.dp_scree(
            X,
            3,
            epsilon,
            1e-6,
            method="pmwm",
            control={"a": 0.0, "b": 10.0, "trim_const": 5, "eta": 0.05},
            directions=np.eye(30),
            random_state=0,
            accountant=a,
        ),
    ]
    for call in calls:
        accountant = dppca.Accountant(dppca.Budget(1.0, 1e-3))
        try:
            _quietly(call, accountant)
        except ValueError:
            assert accountant.spent == dppca.Budget(0.0, 0.0)


def test_the_frame_inflation_is_bounded():
    with pytest.raises(ValueError, match="inflate must be < 1000"):
        dppca.dp_frame(np.random.default_rng(0).standard_normal((50, 2)), 1.0, inflate=1e300)
