"""The settings objects: checked once from their constraint tables, with errors in the caller's
names; the same objects in dp_pca, plan_pca, DPPCA and the result; the keywords that moved into
them still work for one release, with a warning."""

from __future__ import annotations

import dataclasses
import inspect
import json
import warnings

import numpy as np
import pytest

import dppca
from dppca import LoadingSettings, NoiseSettings, PCASettings, ScoreSettings, ScreeSettings

X = np.random.default_rng(0).normal(size=(3000, 4)) * [3.0, 2.0, 1.0, 0.5]


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: ScreeSettings(method="median"), ValueError, "method must be one of"),
        (lambda: ScreeSettings(k=0), ValueError, "k must be"),
        (lambda: ScreeSettings(mono="yes"), TypeError, "mono must be True or False"),
        (lambda: ScreeSettings("huber", control={"bogus": 1}), ValueError, "Unknown control"),
        (lambda: ScreeSettings("pmwm"), ValueError, r"needs the control parameter"),
        (lambda: ScoreSettings(method="dense"), ValueError, "method must be one of"),
        (lambda: ScoreSettings(axes=(1,)), TypeError, "axes must be a pair"),
        (lambda: ScoreSettings(bins=0), ValueError, "bins must be an integer >= 1"),
        (lambda: ScoreSettings(frame=((0, 1), (2, 2))), ValueError, "frame"),
        (lambda: ScoreSettings(group_levels=["a", "a"]), ValueError, "must not repeat"),
        (lambda: ScoreSettings(inflate=-1.0), ValueError, "inflate must be"),
        (lambda: LoadingSettings(pairs=3), ValueError, "pairs must be"),
        (lambda: LoadingSettings(pairs="some"), TypeError, "pairs must be"),
        (lambda: LoadingSettings(radius=2.0), ValueError, "radius applies to"),
        (lambda: LoadingSettings(radius="auto"), ValueError, 'radius="auto" applies to'),
        (lambda: LoadingSettings(sensitivity="loose"), ValueError, "sensitivity must be one of"),
        (lambda: NoiseSettings(sampler="exact"), ValueError, "sampler must be one of"),
        (lambda: NoiseSettings(composition="sum"), ValueError, "composition must be one of"),
        (
            lambda: NoiseSettings(calibration="classical", sampler="discrete"),
            ValueError,
            "applies to sampler='continuous'",
        ),
    ],
)
def test_each_setting_is_checked_once_at_construction(build, error, message):
    with pytest.raises(error, match=message):
        build()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"scree": "median"}, ValueError, "scree must be one of"),
        ({"score": "dense"}, ValueError, "score must be one of"),
        ({"score": ("add", "add")}, ValueError, "score must not repeat"),
        (
            {"scree": {"method": ("clipped", "huber"), "control": {"T": 5}}},
            ValueError,
            r"several scree methods, scree\['control'\] must be a dict keyed by method",
        ),
        (
            {"scree": {"method": ("clipped", "huber"), "control": {"huber": {"x": 1}}}},
            ValueError,
            r"Unknown scree\['control'\]\['huber'\] parameter",
        ),
        (
            {"scree": {"method": ("clipped", "pmwm")}},
            ValueError,
            r"for example scree\['control'\]=\{'pmwm': \{'a': 0.0, 'b': 10.0,",
        ),
        (
            {"scree": {"method": "pmwm"}},
            ValueError,
            r"for example scree=\{'method': 'pmwm', 'control': \{'a': 0.0,",
        ),
        ({"noise": "exact"}, ValueError, "noise must be one of"),
        ({"scree": {"method": "huber", "control": {"x": 1}}}, ValueError, r"scree\['control'\]"),
        ({"score": {"bogus": 1}}, ValueError, r"Unknown score setting\(s\) \['bogus'\]"),
        ({"loading": 3}, TypeError, "loading"),
        ({"scree": {"k": 9}}, ValueError, r"scree\['k'\] must be an integer in \[2, p=4\]; got 9"),
        ({"scree": {"k": 2}, "score": {"axes": (1, 3)}}, ValueError, r"axes'\] must be PC .* k=2"),
        ({"loading": {"pairs": 4000}}, ValueError, r"pairs'\] <= n - 1 = 2999"),
        ({"noise": {"sampler": "exact"}}, ValueError, r"noise\['sampler'\] must be one of"),
        ({"noise": "paper"}, ValueError, "needs a public number C_clip"),
    ],
)
def test_dp_pca_and_plan_pca_name_the_callers_parameters(options, error, message):
    with pytest.raises(error, match=message):
        dppca.plan_pca(X.shape, 2.0, 1e-6, **options)
    with pytest.raises(error, match=message):
        dppca.dp_pca(X, 2.0, 1e-6, **options)


def test_strings_dicts_and_objects_are_the_same_settings():
    as_objects = PCASettings(
        loading=LoadingSettings("winsorized", radius=2.0),
        scree=ScreeSettings("huber", k=3),
        score=ScoreSettings(bins=8),
        noise=NoiseSettings(sampler="continuous"),
    )
    as_dicts = PCASettings.of(
        loading={"transform": "winsorized", "radius": 2.0},
        scree={"method": "huber", "k": 3},
        score={"bins": (8, 8)},
        noise={"sampler": "continuous"},
    )
    assert as_objects == as_dicts
    assert PCASettings.of(scree="huber").scree == ScreeSettings(method="huber")
    assert PCASettings.of(noise="paper", scree="huber").noise == NoiseSettings(mechanism="paper")


def test_settings_are_frozen_and_a_replacement_is_checked_again():
    settings = ScreeSettings("huber")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.method = "pmwm"  # type: ignore[misc]
    assert settings.replace(k=3).k == 3
    with pytest.raises(ValueError, match="method must be one of"):
        settings.replace(method="median")


def test_the_noise_settings_resolve_what_none_and_paper_mean():
    assert (NoiseSettings().sampler, NoiseSettings().composition) == ("discrete", "tight")
    classical = NoiseSettings(calibration="classical")
    assert (classical.sampler, classical.composition) == ("continuous", "basic")
    paper = NoiseSettings(mechanism="paper", calibration="analytic")  # the paper's overrides
    assert (paper.calibration, paper.composition, paper.sampler) == (
        "classical",
        "basic",
        "continuous",
    )
    with pytest.raises(ValueError, match="composition='tight' needs calibration='analytic'"):
        NoiseSettings(mechanism="paper", composition="tight")


def test_the_paper_mechanism_clips_the_scree_by_component_unless_told_otherwise():
    paper = NoiseSettings(mechanism="paper")
    clipped = ScreeSettings(control={"C_clip": 3.0}).for_noise(paper)
    assert clipped.controls["clipped"]["clip_by"] == "component"
    rows = ScreeSettings(control={"clip_by": "row"}).for_noise(paper)
    assert rows.controls["clipped"]["clip_by"] == "row"
    assert ScreeSettings("huber").for_noise(paper) == ScreeSettings("huber")
    both = ScreeSettings(("huber", "clipped"), control={"clipped": {"C_clip": 3.0}})
    compared = both.for_noise(paper)
    assert compared.controls["clipped"]["clip_by"] == "component"
    assert compared.control == {"clipped": {"C_clip": 3.0, "clip_by": "component"}, "huber": {}}


def test_the_result_records_its_settings_and_they_survive_json():
    settings = {
        "scree": {"method": "huber", "k": 3},
        "score": {"bins": 6, "frame": ((-9, 9), (-9, 9)), "axes": (1, 3)},
        "noise": {"sampler": "continuous"},
    }
    result = dppca.dp_pca(X, 4.0, 1e-6, random_state=1, **settings)
    recorded = PCASettings.of(**result.settings["call"])
    assert recorded == PCASettings.of(**settings)
    again = dppca.DPPCAResult.from_json(result.to_json())
    assert PCASettings.of(**again.settings["call"]) == recorded
    replayed = dppca.dp_pca(X, 4.0, 1e-6, random_state=1, **result.settings["call"])
    np.testing.assert_array_equal(replayed.directions, result.directions)
    np.testing.assert_array_equal(replayed.scree, result.scree)


def test_a_callable_transform_is_named_in_the_record():
    def h(s):
        return np.minimum(s, 1.0)

    result = dppca.dp_pca(X, 4.0, 1e-6, random_state=1, loading={"transform": h, "radius": 1.0})
    assert result.settings["call"]["loading"]["transform"] == "custom:h"
    assert json.loads(result.to_json())["settings"]["call"]["loading"]["transform"] == "custom:h"


def test_the_entry_points_take_few_parameters():
    assert len(inspect.signature(dppca.dp_pca).parameters) <= 16
    assert len(inspect.signature(dppca.plan_pca).parameters) <= 10


MOVED_CALL = {"k": 3, "bins": 6, "sampler": "continuous", "scree_control": {"C_clip": 50.0}}
NEW_CALL = {
    "scree": {"k": 3, "control": {"C_clip": 50.0}},
    "score": {"bins": 6},
    "noise": {"sampler": "continuous"},
}


def test_moved_keywords_work_for_one_release_with_a_warning_at_the_callers_line():
    with pytest.warns(DeprecationWarning) as caught:
        old = dppca.dp_pca(X, 4.0, 1e-6, random_state=2, **MOVED_CALL)
    (warning,) = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert warning.filename == __file__
    message = str(warning.message)
    assert "['bins', 'k', 'sampler', 'scree_control']" in message
    assert "scree={'k': ..., 'control': ...}" in message and "noise={'sampler': ...}" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = dppca.dp_pca(X, 4.0, 1e-6, random_state=2, **NEW_CALL)
    np.testing.assert_array_equal(old.directions, new.directions)
    np.testing.assert_array_equal(old.scree, new.scree)
    assert old.histogram.equals(new.histogram)
    assert old.settings["call"] == new.settings["call"]


def test_moved_keywords_merge_with_the_settings_given_and_keep_their_names_in_errors():
    with pytest.warns(DeprecationWarning):
        plan = dppca.plan_pca(X.shape, 2.0, 1e-6, scree="huber", k=3, mechanism="gaussian")
    assert (plan.settings.scree.method, plan.settings.scree.k) == ("huber", 3)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="Unknown scree_control"):
        dppca.plan_pca(X.shape, 2.0, 1e-6, scree="huber", scree_control={"bogus": 1})
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="k must be an integer"):
        dppca.dp_pca(X, 2.0, 1e-6, k=9)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="group_levels"):
        dppca.dp_pca(X, 2.0, 1e-6, group_levels=[])


def test_dppca_stays_flat_and_builds_the_same_settings():
    model = dppca.DPPCA(2, epsilon=2.0, delta=1e-6, sign_transform="winsorized", radius=3.0)
    assert "sign_transform" in model.get_params() and "loading" not in model.get_params()
    with pytest.raises(ValueError, match='sign_transform="winsorized"'):
        dppca.DPPCA(2, radius="auto").fit(X)


def test_a_replacement_starts_from_the_settings_as_given_not_as_resolved():
    paper = NoiseSettings(mechanism="paper")
    assert paper.replace(mechanism="gaussian") == NoiseSettings()
    assert NoiseSettings().replace(calibration="classical").sampler == "continuous"
    assert paper.to_dict() == {
        "mechanism": "paper",
        "calibration": "analytic",
        "composition": None,
        "sampler": None,
    }


def test_moved_keywords_merge_with_settings_objects_as_given():
    def h(s):
        return np.minimum(s, 1.0)

    with pytest.warns(DeprecationWarning):
        plan = dppca.plan_pca(
            X.shape, 2.0, 1e-6, loading=LoadingSettings(transform=h, radius=3.0), pairs=10
        )
    assert plan.settings.loading.transform is h and plan.settings.loading.pairs == 10
    with pytest.warns(DeprecationWarning):
        plan = dppca.plan_pca(X.shape, 2.0, 1e-6, noise=NoiseSettings(), calibration="classical")
    assert (plan.settings.noise.sampler, plan.composition) == ("continuous", "basic")


@pytest.mark.parametrize(
    "call",
    [
        {"scree": {"k": 3}, "k": 4},
        {"scree": ScreeSettings(k=3), "k": 4},
        {"noise": NoiseSettings(mechanism="paper"), "mechanism": "gaussian"},
        {"noise": "paper", "mechanism": "gaussian"},
    ],
)
def test_a_setting_given_twice_is_refused(call):
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="given twice"):
        dppca.plan_pca(X.shape, 2.0, 1e-6, **call)


def test_an_empty_control_is_no_control_with_several_methods():
    settings = ScreeSettings(("clipped", "huber"), control={})
    assert settings.controls == ScreeSettings(("clipped", "huber")).controls
    assert settings.control == {"clipped": {}, "huber": {}}
