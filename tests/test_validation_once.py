"""Validation happens once, at the public boundary: after the budget is charged, the release
kernels check nothing (only the value types Budget, PrivacyLoss and Noise keep their
invariants), and the
data are converted once."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings

import numpy as np
import pytest

import dppca
import dppca._validation as validation
import dppca.privacy.accountant as accountant_module

#: Value types whose constructors keep an invariant (a Budget's epsilon and delta, a privacy
#: loss's kind and parameters, a noise source's sampler): they run on every entry and source,
#: before or after the charge, on public values.
INVARIANTS = {
    ("privacy/budget.py", "__post_init__"),
    ("privacy/composition.py", "__post_init__"),
    ("privacy/mechanisms.py", "__init__"),
}


def _calls_after_the_charge(monkeypatch, run):
    modules = [
        importlib.import_module(module.name)
        for module in pkgutil.walk_packages(dppca.__path__, "dppca.")
        if module.name != "dppca.__main__"
    ]
    charged = {"done": False}
    after, data_checks = [], []

    def spy(name, check):
        def wrapper(*args, **kwargs):
            if name == "check_data":
                data_checks.append(name)
            if charged["done"]:
                caller = sys._getframe(1)
                where = caller.f_code.co_filename.split("dppca/")[-1]
                if (where, caller.f_code.co_name) not in INVARIANTS:
                    after.append(f"{name} from {where}:{caller.f_code.co_name}")
            return check(*args, **kwargs)

        return wrapper

    for name in dir(validation):
        if name.startswith("check_"):
            check = getattr(validation, name)
            wrapper = spy(name, check)
            for module in [*modules, validation]:
                if getattr(module, name, None) is check:
                    monkeypatch.setattr(module, name, wrapper)
    original = accountant_module.charge

    def charge(*args, **kwargs):
        charged["done"] = True
        return original(*args, **kwargs)

    for module in modules:
        if getattr(module, "charge", None) is original:
            monkeypatch.setattr(module, "charge", charge)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
    assert charged["done"]
    return after, data_checks


X = np.random.default_rng(0).normal(size=(600, 5)) * [3, 2, 1, 1, 0.5]
PMWM = {"a": 0.0, "b": 100.0, "trim_const": 5, "eta": 0.05}


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(
            lambda: dppca.dp_pca(X, 4.0, 1e-6, random_state=1, on_weak="release"), id="dp_pca"
        ),
        pytest.param(
            lambda: dppca.dp_pca(
                X,
                4.0,
                1e-6,
                groups=X[:, 0] > 0,
                random_state=1,
                on_weak="release",
                scree={"method": "pmwm", "control": PMWM},
                loading={"transform": "winsorized", "radius": "auto"},
            ),
            id="dp_pca pmwm, groups, auto radius",
        ),
        pytest.param(
            lambda: dppca.dp_pca(
                X, 4.0, 1e-6, scree="huber", score="sparse", random_state=1, on_weak="release"
            ),
            id="dp_pca huber, sparse",
        ),
        pytest.param(
            lambda: dppca.dp_frame(X[:, :2], 1.0, random_state=1, on_weak="release"), id="dp_frame"
        ),
        pytest.param(lambda: dppca.dp_quantile(X[:, 0], 0.5, 1.0, random_state=1), id="quantile"),
        pytest.param(
            lambda: dppca.DPPCA(2, epsilon=2.0, delta=1e-6, scree="clipped").fit(X), id="DPPCA"
        ),
    ],
)
def test_nothing_is_validated_after_the_charge_and_the_data_once(monkeypatch, run):
    after, data_checks = _calls_after_the_charge(monkeypatch, run)
    assert after == []
    assert len(data_checks) <= 1  # DPPCA converts X with scikit-learn's own check


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"scale": "private", "scree": {"method": "pmwm", "control": PMWM}},
        {
            "loading": {"transform": "winsorized", "radius": "auto"},
            "score": {"method": "sparse", "bins": 6},
            "noise": {"sampler": "continuous"},
        },
        {"noise": "paper", "scree": {"control": {"C_clip": 10.0}}},
    ],
)
@pytest.mark.filterwarnings("ignore::dppca.PrivacyWarning")  # the classical calibration's
def test_plans_are_made_without_checking_the_settings_again(monkeypatch, settings):
    """A checked plan is planned again at every step of the tight factor's search: the settings
    are not checked again (only the mechanism objects of ``dppca.privacy`` keep their
    invariants), so that the search is cheap."""
    from dppca._settings import Settings

    plan = dppca.plan_pca((5000, 6), 3.0, 1e-6, **settings)
    checked = []
    post_init = Settings.__post_init__

    def spy(self):
        checked.append(type(self).__name__)
        post_init(self)

    monkeypatch.setattr(Settings, "__post_init__", spy)
    profiled: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == validation.__file__:
            caller = frame.f_back.f_code.co_filename
            if "dppca" in caller and "/privacy/" not in caller and caller != validation.__file__:
                profiled.append(f"{frame.f_code.co_name} from {caller.split('dppca/')[-1]}")

    sys.setprofile(profile)
    try:
        for factor in (1.0, plan.factor, 2.0):
            plan.planner(factor)
    finally:
        sys.setprofile(None)
    assert checked == [] and profiled == []
    assert plan.planner(plan.factor) == plan.planner(plan.factor)  # the same plan each time
