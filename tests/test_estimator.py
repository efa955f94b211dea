"""DPPCA, the scikit-learn transformer."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from dppca import DPPCA, Accountant, Budget, dp_loading

# scikit-learn's checks fit a few dozen rows, where no private clip level, radius or scale can
# be located: they test the estimator's mechanics, so these estimators release anyway.
_CHECKS = parametrize_with_checks(
    [
        DPPCA(on_weak="release"),
        DPPCA(
            n_components=1,
            sign_transform="winsorized",
            radius="auto",
            epsilon=2.0,
            on_weak="release",
        ),
        DPPCA(scree=None),
        DPPCA(n_components=None, scale="private", epsilon=4.0, on_weak="release"),
    ]
)
# scikit-learn before 1.7 hands pytest a generator of cases, which pytest 9 deprecates.
_NAMES, _CASES = _CHECKS.args


@pytest.mark.parametrize(_NAMES, list(_CASES), **_CHECKS.kwargs)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _data(n=1500, p=4, seed=0):
    return np.random.default_rng(seed).standard_normal((n, p)) * [4.0, 2.0, 1.0, 0.5][:p]


def test_fit_sets_the_private_directions_and_the_spend():
    X = _data()
    model = DPPCA(n_components=2, epsilon=0.8, delta=1e-7, scree=None, random_state=3).fit(X)
    reference = dp_loading(X, 0.8, 1e-7, random_state=3)
    assert model.components_.shape == (2, 4)
    assert np.array_equal(model.components_, reference.directions[:, :2].T)
    assert model.n_components_ == 2
    assert model.n_features_in_ == 4
    # One release: its exact privacy loss, at the requested epsilon, is the request.
    assert model.privacy_spent_.epsilon == 0.8 and model.privacy_spent_.delta <= 1e-7
    assert model.privacy_spent_.isclose(Budget(0.8, 1e-7))
    assert len(model.privacy_ledger_) == 1
    assert model.sigma_ == reference.sigma


def test_transform_projects_without_centring():
    X = _data()
    model = DPPCA(random_state=0).fit(X)
    assert np.allclose(model.transform(X), X @ model.components_.T)
    assert np.array_equal(model.fit_transform(X), model.transform(X))
    assert list(model.get_feature_names_out()) == ["dppca0", "dppca1"]


def test_dataframe_feature_names_and_float32():
    frame = pd.DataFrame(_data(), columns=["a", "b", "c", "d"])
    model = DPPCA(random_state=0).fit(frame)
    assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
    scores = model.transform(frame.astype(np.float32))
    assert scores.dtype == np.float32


def test_init_only_stores_parameters_and_clone_keeps_them():
    model = DPPCA(n_components=-5, epsilon="bad")
    assert model.n_components == -5 and model.epsilon == "bad"
    assert clone(model).get_params() == model.get_params()


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        (
            {"n_components": 5},
            ValueError,
            r"n_components must be an integer in \[1, n_features=4\]",
        ),
        ({"n_components": 0}, ValueError, r"a fraction in \(0, 1\) or None; got n_components=0"),
        ({"n_components": 1.5}, ValueError, r"a fraction in \(0, 1\) or None; got n_compo"),
        ({"n_components": "2"}, TypeError, r"or None; got '2' \(type str\)"),
        ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
        ({"delta": 2.0}, ValueError, "delta must be < 1"),
        ({"sign_transform": "cubic"}, ValueError, "^sign_transform must be one of"),
        ({"sign_transform": "winsorized"}, ValueError, '^sign_transform="winsorized" needs'),
        ({"scree": "huber", "scree_control": {"bogus": 1}}, ValueError, "Unknown scree_control"),
    ],
)
def test_parameter_errors_at_fit(params, error, message):
    with pytest.raises(error, match=message):
        DPPCA(**params).fit(_data())


def test_transform_needs_fit_and_matching_features():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        DPPCA().transform(_data())
    model = DPPCA(random_state=0).fit(_data())
    with pytest.raises(ValueError, match="features"):
        model.transform(_data(p=3))


def test_scree_sets_explained_variance():
    X = _data(2000)
    model = DPPCA(n_components=2, epsilon=1e6, delta=1e-6, scree="clipped", random_state=0).fit(X)
    assert model.explained_variance_.shape == (2,)
    variances = (X @ model.components_.T).var(axis=0, ddof=1)
    assert np.allclose(model.explained_variance_, variances, rtol=0.1)
    ratio = model.explained_variance_ratio_
    assert ratio.shape == (2,) and 0 < ratio.sum() <= 1
    total = np.trace(np.cov(X, rowvar=False))  # the variance summed over all directions
    assert ratio[0] == pytest.approx(variances[0] / total, rel=0.1)
    assert model.privacy_spent_.epsilon == 1e6 and model.privacy_spent_.delta <= 1e-6
    names = [entry.name for entry in model.privacy_ledger_]
    assert names[0].startswith("loading") and any(name.startswith("scree") for name in names)
    plain = DPPCA(scree=None, random_state=0).fit(X)
    assert not hasattr(plain, "explained_variance_")
    default = DPPCA(random_state=0).fit(X)  # a quarter of the budget to the scree
    assert default.explained_variance_ratio_.shape == (2,)
    scree = [entry for entry in default.privacy_ledger_ if entry.component == "scree"]
    factor = default.composition_factor_  # every share's epsilon times one factor
    assert sum(entry.epsilon for entry in scree) == pytest.approx(0.25 * factor)
    assert sum(entry.delta for entry in scree) == pytest.approx(2.5e-7)


def test_scree_parameter_errors():
    with pytest.raises(ValueError, match="scree must be one of"):
        DPPCA(scree="median").fit(_data())
    with pytest.raises(ValueError, match="scree_share must be < 1"):
        DPPCA(scree="clipped", scree_share=1.0).fit(_data())
    with pytest.raises(ValueError, match=r"needs the control parameter.*scree_control="):
        DPPCA(scree="pmwm").fit(_data())


def test_accountant_is_charged_by_every_fit_and_shared_by_clones():
    from dppca import Accountant, BudgetExceededError, PrivacyWarning

    X = np.random.default_rng(0).standard_normal((1500, 4))
    accountant = Accountant(Budget(2.5, 1e-5), composition="basic")
    model = DPPCA(2, epsilon=1.0, delta=1e-6, accountant=accountant)
    model.fit(X)
    assert accountant.spent.isclose(Budget(1.0, 1e-6))
    twin = clone(model)
    assert twin.accountant is accountant
    with pytest.warns(PrivacyWarning, match="2 calls of DPPCA.fit"):
        twin.fit(X)
    assert accountant.spent.isclose(Budget(2.0, 2e-6))
    components = twin.components_.copy()
    with pytest.raises(BudgetExceededError):
        twin.fit(X)  # refused before any noise: the earlier fit stays as it was
    assert np.array_equal(twin.components_, components)
    assert accountant.spent.isclose(Budget(2.0, 2e-6))


def test_a_search_that_refits_is_told_what_it_spent_in_total():
    """Every fit of a grid search charges the shared accountant; from the second on a warning
    counts them and gives the total, so the refit's says what the whole search spent."""
    from sklearn.model_selection import GridSearchCV

    from dppca import Accountant, PrivacyWarning

    X = np.random.default_rng(0).standard_normal((3000, 4)) * [3.0, 2.0, 1.0, 0.5]
    accountant = Accountant(Budget(100.0, 1e-4), composition="basic")
    model = DPPCA(epsilon=4.0, delta=1e-7, accountant=accountant, random_state=None)

    def released_share(estimator, X, y=None):
        return float(estimator.explained_variance_ratio_.sum())

    search = GridSearchCV(model, {"n_components": [1, 2]}, cv=3, scoring=released_share)
    with pytest.warns(PrivacyWarning) as caught:
        search.fit(X)
    counts = [str(w.message) for w in caught if "calls of DPPCA.fit" in str(w.message)]
    assert len(counts) == 2 * 3  # the second to the seventh fit
    assert counts[-1].startswith("7 calls of DPPCA.fit have been charged to this accountant")
    assert "epsilon=28, delta=7e-07 in total (basic composition)" in counts[-1]
    assert accountant.calls("DPPCA.fit") == 7


def test_invalid_settings_are_refused_before_the_accountant_is_charged():
    from dppca import Accountant

    X = np.random.default_rng(0).standard_normal((200, 4))
    accountant = Accountant(Budget(10.0, 1e-3))
    for settings in (
        {"sign_transform": "winsorized", "radius": 1e-160},
        {"pairs": 3},
        {"epsilon": 1e10, "delta": 0.5, "sign_transform": "winsorized", "radius": 1e-150},
    ):
        with pytest.raises(ValueError):
            DPPCA(accountant=accountant, **settings).fit(X)
    assert accountant.spent == Budget(0.0, 0.0)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"sign_transform": "bad"}, r"^sign_transform must be one of"),
        ({"sign_transform": "winsorized"}, r'^sign_transform="winsorized" needs a positive'),
        ({"radius": "auto"}, r'applies to sign_transform="winsorized"'),
    ],
)
def test_sign_errors_name_the_estimators_parameter(settings, message):
    with pytest.raises((ValueError, TypeError), match=message):
        DPPCA(**settings).fit(_data())


def test_all_components_inverse_transform_and_pandas_output():
    X = pd.DataFrame(_data(1000), columns=list("abcd"))
    model = DPPCA(n_components=None, epsilon=1e6, delta=1e-6, random_state=0).fit(X)
    assert model.components_.shape == (4, 4) and model.n_components_ == 4
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X, atol=1e-9)
    model.set_output(transform="pandas")
    frame = model.transform(X)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["dppca0", "dppca1", "dppca2", "dppca3"]
    with pytest.raises(ValueError, match="n_components_=4 columns"):
        model.inverse_transform(X.iloc[:, :2])


def test_scales_are_used_by_transform_and_inverse_transform():
    X = _data(8000) * [1.0, 100.0, 0.01, 1.0]
    public = DPPCA(2, epsilon=4.0, scale=[1.0, 100.0, 0.01, 1.0], random_state=0).fit(X)
    assert public.scale_.tolist() == [1.0, 100.0, 0.01, 1.0]
    np.testing.assert_allclose(
        public.transform(X), (X / public.scale_) @ public.components_.T, rtol=1e-12
    )
    private = DPPCA(2, epsilon=8.0, scale="private", random_state=0).fit(X)
    assert private.scale_ / np.array([4.0, 200.0, 0.01, 0.5]) == pytest.approx(1.0, rel=0.1)
    factor = private.composition_factor_  # the tight composition's, > 1
    scale = [entry for entry in private.privacy_ledger_ if entry.component == "scale"]
    assert sum(entry.epsilon for entry in scale) == pytest.approx(0.8 * factor)
    assert sum(entry.delta for entry in scale) == pytest.approx(1e-7)
    spent = private.privacy_spent_
    assert spent.epsilon == 8.0 and 0.99e-6 < spent.delta <= 1e-6
    back = private.inverse_transform(private.transform(X))
    assert back.shape == X.shape
    with pytest.raises(ValueError, match="must leave a share for the directions"):
        DPPCA(scale="private", scale_share=0.5, scree_share=0.5).fit(X)
    with pytest.raises(ValueError, match="4 positive numbers"):
        DPPCA(scale=[1.0, 2.0]).fit(X)


def test_float32_scores_stay_finite_with_tiny_scales():
    X = (_data(500) * 1e30).astype(np.float32)
    model = DPPCA(2, epsilon=4.0, scale=[1e-10, 1.0, 1.0, 1.0], random_state=0).fit(X)
    assert np.isfinite(model.transform(X)).all()


@pytest.mark.parametrize("scree", [None, "clipped"])
def test_tight_composition_gives_every_release_less_noise_for_the_same_total(scree):
    """The fit's releases (directions, scree) composed exactly: the directions' noise is
    smaller than with the shares cut linearly, and the composed total stays within the
    request; with the scree the total is met closely (the factor is the largest that fits)."""
    X = _data(2000)
    arguments = {"epsilon": 2.0, "delta": 1e-6, "scree": scree, "random_state": 0}
    tight = DPPCA(2, **arguments).fit(X)
    basic = DPPCA(2, composition="basic", **arguments).fit(X)
    assert basic.composition_factor_ == 1.0 and basic.privacy_spent_.isclose(Budget(2.0, 1e-6))
    spent = tight.privacy_spent_
    assert spent.epsilon == 2.0 and spent.delta <= 1e-6
    if scree is None:  # one release: nothing to compose
        assert tight.composition_factor_ == pytest.approx(1.0, abs=1e-5)
        return
    assert spent.delta > 0.99e-6
    # The directions hold 3/4 of the budget, so the gain is smaller than with equal thirds.
    assert tight.sigma_ < 0.9 * basic.sigma_
    assert tight.composition_factor_ > 1.1
    refused = DPPCA(2, composition="linear", **arguments)
    with pytest.raises(ValueError, match="composition must be one of"):
        refused.fit(X)


def test_a_refit_warns_about_its_scales_first_and_both_point_at_the_caller():
    """The scales' note comes as soon as they are released, before the refit count, and each
    warning names the caller's line (not the library's)."""
    from dppca import Accountant, NoiseDominatedWarning, PrivacyWarning

    X = np.random.default_rng(0).standard_normal((3000, 3)) * [1.0, 100.0, 1.0]
    X[:, 2] = 0.0  # every pair tied: its scale is flagged
    accountant = Accountant(Budget(100.0, 1e-4))
    model = DPPCA(
        2,
        epsilon=4.0,
        delta=1e-6,
        scale="private",
        on_weak="release",
        accountant=accountant,
        random_state=1,
    )
    with pytest.warns(NoiseDominatedWarning):
        model.fit(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X)
    kinds = [w.category for w in caught]
    assert kinds.index(NoiseDominatedWarning) < kinds.index(PrivacyWarning)
    assert {w.filename for w in caught} == {__file__}


def test_a_fraction_keeps_the_components_its_private_scree_needs():
    """``n_components=0.9`` keeps the fewest leading directions whose private proportions of
    variance reach 0.9: the same release as ``None`` with the same seed, cut there; on a clear
    spectrum that is what scikit-learn's PCA keeps."""
    from sklearn.decomposition import PCA

    from dppca.numerics.monotone import components_for

    X = _data(5000)
    expected = PCA(0.9).fit(X).n_components_
    for seed in range(3):
        every = DPPCA(None, epsilon=4.0, delta=1e-7, random_state=seed).fit(X)
        model = DPPCA(0.9, epsilon=4.0, delta=1e-7, random_state=seed).fit(X)
        k = components_for(every.explained_variance_ratio_, 0.9)
        assert model.n_components_ == k == expected
        np.testing.assert_array_equal(model.components_, every.components_[:k])
        assert model.explained_variance_ratio_.sum() >= 0.9
    with pytest.raises(ValueError, match=r"scree=None releases none"):
        DPPCA(0.9, scree=None).fit(X)
    for wrong in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match=r"a fraction in \(0, 1\) or None; got n_comp"):
            DPPCA(wrong).fit(X)


def test_components_keep_the_datas_floating_type():
    X = _data(3000)
    single = DPPCA(2, epsilon=4.0, delta=1e-7, random_state=0).fit(X.astype(np.float32))
    double = DPPCA(2, epsilon=4.0, delta=1e-7, random_state=0).fit(X)
    assert single.components_.dtype == np.float32 and double.components_.dtype == np.float64
    np.testing.assert_allclose(single.components_, double.components_, atol=1e-5)


def test_a_public_centre_is_subtracted_and_added_back():
    """``center=`` a public centre: the scores are ``(X - c) @ components_.T``, the inverse
    adds it back, and the SSCM's directions are taken about it (nothing spent on a centre)."""
    X = _data(4000) + 500.0
    centre = np.full(4, 500.0)
    model = DPPCA(2, epsilon=4.0, delta=1e-7, center=centre, random_state=0).fit(X)
    np.testing.assert_array_equal(model.mean_, centre)
    np.testing.assert_allclose(model.transform(X), (X - centre) @ model.components_.T)
    restored = model.inverse_transform(model.transform(X))
    np.testing.assert_allclose(
        restored - centre, (X - centre) @ model.components_.T @ model.components_
    )
    sscm = DPPCA(2, epsilon=4.0, delta=1e-7, statistic="sscm", center=centre, random_state=0)
    sscm.fit(X)
    assert [entry.name for entry in sscm.privacy_ledger_.entries][:3] == [
        "loading: SSCM pair scale",
        "loading: SSCM spread",  # n epsilon is large for d = 4: the weights adapt
        "loading: SSCM matrix",
    ]
    assert abs(sscm.components_[0, 0]) > 0.98
    assert DPPCA(2, random_state=0).fit(X).mean_ is None


def test_the_sscms_private_centre_is_the_mean_at_no_extra_cost():
    """``center="private"`` with the SSCM: ``mean_`` is the centre its directions were taken
    about (near the data's centre, in their units also with private scales); with the Kendall
    matrix it is refused before anything is spent."""
    X = _data(6000) * [1.0, 1.0, 1.0, 1.0] + [1000.0, -50.0, 3.0, 0.0]
    model = DPPCA(2, epsilon=4.0, delta=1e-7, statistic="sscm", center="private", random_state=1)
    model.fit(X)
    assert np.abs(model.mean_ - [1000.0, -50.0, 3.0, 0.0]).max() < 0.3
    assert model.privacy_spent_ <= Budget(4.0, 1e-7)
    scaled = DPPCA(
        2,
        epsilon=6.0,
        delta=1e-7,
        statistic="sscm",
        center="private",
        scale="private",
        random_state=1,
    ).fit(X)
    assert np.abs(scaled.mean_ - [1000.0, -50.0, 3.0, 0.0]).max() < 0.5
    accountant = Accountant(Budget(10.0, 1e-3))
    with pytest.raises(ValueError, match="center='private' takes the SSCM's private centre"):
        DPPCA(2, epsilon=4.0, delta=1e-7, center="private", accountant=accountant).fit(X)
    assert accountant.spent == Budget(0.0, 0.0)
    for wrong, error, message in [
        ("middle", ValueError, "center must be one of"),
        ([0.0, 0.0], ValueError, r"center must be None, \"private\" or 4 numbers"),
        ([0.0, np.nan, 0.0, 0.0], ValueError, "center must contain only finite values"),
    ]:
        with pytest.raises(error, match=message):
            DPPCA(2, center=wrong).fit(X)


def test_a_saved_model_keeps_its_release_but_cannot_charge_its_accountant_again():
    import pickle

    from dppca import DetachedAccountantError
    from dppca.privacy.accountant import DetachedAccountant

    X = _data(3000)
    owner = Accountant(Budget(10.0, 1e-5))
    model = DPPCA(2, epsilon=2.0, delta=1e-7, accountant=owner, random_state=0).fit(X)
    loaded = pickle.loads(pickle.dumps(model))
    assert isinstance(loaded.accountant, DetachedAccountant)
    assert "refuses every charge" in repr(loaded.accountant)
    np.testing.assert_array_equal(loaded.transform(X), model.transform(X))
    with pytest.raises(DetachedAccountantError, match="saved and loaded"):
        loaded.fit(X)
    assert owner.spent == model.privacy_spent_
