"""The examples in the docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "dppca.pipeline",
    "dppca.privacy.accountant",
    "dppca.privacy.budget",
    "dppca.privacy.calibration",
    "dppca.privacy.quantiles",
    "dppca.report",
    "dppca.releases.frame",
    "dppca.releases.histogram",
    "dppca.numerics.kendall",
    "dppca.releases.scree",
    "dppca.numerics.sensitivity",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
