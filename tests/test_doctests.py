"""The examples in the docstrings run and give what they show; every public object has one."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import warnings

import matplotlib
import pytest

import dppca
import dppca.datasets
import dppca.plotting
from dppca.privacy.durfee import DurfeeQuantile
from dppca.privacy.histograms import HistogramMechanism
from dppca.privacy.mechanisms import GaussianMechanism
from dppca.privacy.quantiles import GridQuantile

#: The command-line entry point (running it would parse pytest's arguments).
SKIPPED = {"dppca.__main__"}
MODULES = sorted(
    module.name
    for module in pkgutil.walk_packages(dppca.__path__, "dppca.")
    if module.name not in SKIPPED
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    matplotlib.use("Agg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # examples show values; their warnings are tested apart
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def _public_objects():
    for module in (dppca, dppca.plotting, dppca.datasets):
        for name in module.__all__:
            if callable(getattr(module, name)):  # functions and classes, not constant tables
                yield f"{module.__name__}.{name}", getattr(module, name)
    for mechanism in (GaussianMechanism, HistogramMechanism, GridQuantile, DurfeeQuantile):
        yield mechanism.__qualname__, mechanism


@pytest.mark.parametrize(("name", "obj"), list(_public_objects()))
def test_every_public_object_has_a_numpydoc_examples_section(name, obj):
    assert "Examples\n" in (obj.__doc__ or ""), name


def test_the_examples_are_many():
    finder = doctest.DocTestFinder()
    examples = sum(
        len(test.examples)
        for name in MODULES
        for test in finder.find(importlib.import_module(name))
    )
    assert examples >= 150


def test_every_public_method_and_property_says_what_it_does():
    missing = []
    for name, obj in _public_objects():
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        for attribute, value in vars(obj).items():
            function = value.fget if isinstance(value, property) else value
            function = getattr(function, "__func__", function)
            if not attribute.startswith("_") and callable(function) and not function.__doc__:
                missing.append(f"{name}.{attribute}")
    assert missing == []


@pytest.mark.parametrize(("name", "obj"), list(_public_objects()))
def test_public_examples_run_as_copied(name, obj):
    """A public object's examples import what they use: they run in a fresh namespace."""
    matplotlib.use("Agg")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder(recurse=False).find(obj, name, globs={}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runner.run(test)
    assert runner.failures == 0, name
