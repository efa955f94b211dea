"""``import dppca`` stays light: scikit-learn and matplotlib load only when used."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from sklearn.isotonic import IsotonicRegression

from dppca.numerics.monotone import antitonic


def test_import_does_not_load_scikit_learn_or_matplotlib():
    code = (
        "import sys, dppca; "
        "print(','.join(m for m in ('sklearn', 'matplotlib') if m in sys.modules)); "
        "dppca.DPPCA; print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]  # nothing before DPPCA is used, scikit-learn after


def test_antitonic_agrees_with_scikit_learn_isotonic_regression():
    rng = np.random.default_rng(0)
    for size in (1, 2, 5, 30):
        for _ in range(50):
            values = rng.standard_normal(size) * rng.choice([0.1, 1.0, 100.0])
            clipped = np.maximum(values, 0.0)
            expected = (
                clipped
                if size < 2
                else IsotonicRegression(increasing=False).fit_transform(np.arange(size), clipped)
            )
            assert np.allclose(antitonic(values), expected, rtol=1e-12, atol=1e-15)
