"""The package's layers, read from its source: lower layers never import higher ones, and every
noise draw happens in ``dppca.privacy``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dppca

PACKAGE = Path(dppca.__file__).parent

#: Layers from the bottom; a module may import its own layer and those below it.
LAYERS = [
    {"_validation", "_progress", "exceptions", "_groups", "_html"},
    {"numerics"},
    {"privacy"},
    {"releases"},
    {"results"},
    {"pipeline", "orchestrator", "planning"},
    {"plotting", "estimator", "datasets", "baselines", "audit"},
    {"report", "figures", "job"},
    {"cli", "cli_input", "cli_options", "app", "__main__", "__init__"},
]

#: Random draws of a numpy Generator (or of the package's noise source).
DRAWS = {
    "normal",
    "standard_normal",
    "laplace",
    "exponential",
    "standard_exponential",
    "gumbel",
    "poisson",
    "binomial",
    "uniform",
    "random",
    "integers",
    "choice",
    "permutation",
    "shuffle",
    "bytes",
    "multivariate_normal",
    "bits",
    "below",
}

#: Draws outside ``dppca.privacy`` that are not privacy noise, each with its reason.
NOT_NOISE = {
    ("numerics/pairs.py", "random_pairs"): "the data-independent random pairing",
    ("numerics/pairs.py", "random_halves"): "the data-independent random split",
    ("numerics/kendall.py", "unit_kendall"): "the data-independent permutation of the design",
    ("numerics/dask_rows.py", "dask_unit_kendall"): "the same permutation, on Dask data",
    ("releases/sampling.py", "_draw"): "synthetic points from a released histogram",
    ("results/uncertainty.py", "direction_redraws"): "simulation from released noise scales",
    ("results/uncertainty.py", "scree_redraws"): "simulation from released noise scales",
    ("baselines/geodesic.py", "nsggd"): "the data-independent random start of a competitor",
    ("audit.py", "_scenarios"): "the audit's synthetic neighbouring data sets",
}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text())


def _layer(module: str) -> int:
    top = module.split("/")[0].removesuffix(".py")
    return next(i for i, names in enumerate(LAYERS) if top in names)


def _imports(tree: ast.Module, *, top_level: bool):
    nodes = tree.body if top_level else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dppca."):
            yield node.module.split(".")[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dppca."):
                    yield alias.name.split(".")[1]


@pytest.mark.parametrize(("module", "tree"), list(_modules()), ids=lambda value: str(value)[:40])
def test_module_level_imports_go_down_the_layers(module, tree):
    own = _layer(module)
    upward = [name for name in _imports(tree, top_level=True) if _layer(name) > own]
    assert not upward, f"{module} imports {upward} from a higher layer"


def test_lower_layers_reach_up_only_to_draw():
    """A function-level import from a higher layer is allowed only into ``dppca.plotting``
    (the ``.plot`` methods import matplotlib when used) or, in ``dppca.audit``, the releases
    it audits."""
    for module, tree in _modules():
        own = _layer(module)
        upward = {name for name in _imports(tree, top_level=False) if _layer(name) > own}
        assert upward <= {"plotting"} or module == "audit.py", (module, upward)


def test_no_noise_is_drawn_outside_privacy():
    found = set()
    for module, tree in _modules():
        if module.startswith("privacy/"):
            continue
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in DRAWS
                ):
                    found.add((module, function.name))
    assert found <= set(NOT_NOISE), sorted(found - set(NOT_NOISE))
    assert set(NOT_NOISE) <= found  # the exceptions are still needed
