"""Results render as HTML tables in notebooks, with their budget."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import dppca


def test_every_result_renders_its_tables_and_budget():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.standard_normal((3000, 3)) * [3, 2, 1], columns=["a", "b", "c"])
    labels = rng.choice(["x", "y"], size=3000)
    pipeline = dppca.dp_pca(X, 4.0, 1e-6, groups=labels, random_state=0, on_weak="release")
    page = pipeline._repr_html_()
    assert "Importance of components (private)" in page and "Privacy budget spent" in page
    assert "<th>Score histogram</th>" in page and "<th>Total</th>" in page
    releases = [
        dppca.dp_loading(X, 1.0, 1e-6, random_state=0, on_weak="release"),
        dppca.dp_scree(X, 3, 1.0, 1e-6, directions=np.eye(3), random_state=0, on_weak="release"),
        dppca.dp_score(
            X, 1.0, 1e-6, directions=np.eye(3), groups=labels, random_state=0, on_weak="release"
        ),
        dppca.dp_scale(X, 1.0, 1e-6, random_state=0, on_weak="release"),
    ]
    for release in releases:
        text = release._repr_html_()
        assert "Privacy budget spent" in text and "<th>Total</th>" in text
        # The total row, 4 significant digits: dp_score's releases compose to just under 1e-6.
        assert re.search(r"<th>Total</th><td>1</td><td>(1e-06|9\.99\d*e-07)</td>", text)
    assert "<th>PC1</th>" in releases[0]._repr_html_()
    assert "groups</b>: x, y" in releases[2]._repr_html_()
    ledger = pipeline.privacy._repr_html_()
    assert "Privacy ledger (" in ledger and "epsilon = 4" in ledger


def test_notes_and_text_are_escaped():
    from dppca._html import card

    text = card("<b>", [("a<", "b>")], [], notes=["x < y & z"])
    assert "&lt;b&gt;" in text and "x &lt; y &amp; z" in text


def test_an_accountant_renders_its_total_spend_and_charges():
    from dppca.privacy.composition import PrivacyLoss

    accountant = dppca.Accountant(dppca.Budget(2.0, 1e-5))
    assert "Privacy accountant (0 charges)" in accountant._repr_html_()
    for name in ("first fit", "second fit"):
        accountant.spend(dppca.Budget(1.0, 1e-6), name, [PrivacyLoss("gaussian", mu=0.3)])
    page = accountant._repr_html_()
    assert "Privacy accountant (2 charges)" in page
    assert "<b>composition</b>: tight" in page and "mu = 0.4243" in page
    assert "<th>first fit</th>" in page and "<th>Total</th>" in page
