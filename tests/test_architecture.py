"""The package's layers, read from its source: lower layers never import higher ones, some parts
import no module in a circle, no module is too long, and every noise draw happens in
``dppca.privacy``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dppca

PACKAGE = Path(dppca.__file__).parent

#: Layers from the bottom; a module may import its own layer and those below it.
LAYERS = [
    {"_validation", "_progress", "exceptions", "_groups", "_html", "_settings", "_stack"},
    {"numerics"},
    {"privacy"},
    {"results"},
    {"releases"},
    {"pipeline", "orchestrator", "planning"},
    {"plotting", "estimator", "_estimator_params", "datasets", "baselines", "audit"},
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
    ("numerics/permutation.py", "random_permutation"): "the keys of the data-independent order",
    ("numerics/bins.py", "random_offsets"): "the data-independent shift of a grid",
    ("results/sampling.py", "_draw"): "synthetic points from a released histogram",
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


@pytest.mark.parametrize(
    ("module", "tree"), [pytest.param(*pair, id=pair[0]) for pair in _modules()]
)
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


#: The parts of the package whose modules import each other in no circle, lazy imports and
#: ``if TYPE_CHECKING:`` imports included: the whole package.
ACYCLIC = ("dppca",)
#: The one way up the layers: a result's ``plot()`` enters the plotting layer, imported when it
#: is called (post-processing, no budget). These edges, each only inside a method ``plot``, are
#: left out of the circle search; every other import takes part in it.
PLOT_ENTRIES = {
    (f"dppca.results.{name}", "dppca.plotting.pages")
    for name in ("loading", "scree", "scores", "pca")
}
#: The longest a module may be, in lines.
MAX_LINES = 500
#: Modules longer than ``MAX_LINES``, waiting to be split.
LONG_MODULES: set[str] = set()


def module_name(path: Path) -> str:
    """``dppca.x.y`` for the module ``x/y.py`` and for the package ``x/y/__init__.py``."""
    parts = [PACKAGE.name, *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(name: str, is_package: bool, source: str, modules: set[str]) -> set[str]:
    """The modules among ``modules`` that the source of module ``name`` imports anywhere: at
    module level, in functions and under ``if TYPE_CHECKING:``.

    ``import a.b`` and ``from a.b import c`` import ``a.b`` (a module, or a package's
    ``__init__``), or the submodule ``a.b.c`` when there is one; relative imports are resolved
    from the module's package.
    """
    package = name.split(".") if is_package else name.split(".")[:-1]
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                imported.add(submodule if submodule in modules else base)
    return {module for module in imported if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and the modules of the package it imports
    (:func:`module_imports`)."""
    paths = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    return {
        name: module_imports(name, path.name == "__init__.py", path.read_text(), set(paths))
        for name, path in paths.items()
    }


def find_cycle(graph: dict[str, set[str]], modules: set[str]) -> list[str] | None:
    """A circle of imports among ``modules`` (its first module repeated at its end), or None."""
    path: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> list[str] | None:
        path.append(module)
        for imported in sorted(graph[module] & modules):
            if imported in path:
                return [*path[path.index(imported) :], imported]
            if imported not in done and (cycle := visit(imported)):
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(modules):
        if module not in done and (cycle := visit(module)):
            return cycle
    return None


def test_imports_are_read_wherever_they_are():
    source = """
from typing import TYPE_CHECKING

from dppca.x import y, value
from .z import thing

if TYPE_CHECKING:
    from dppca.t import T


def late():
    import dppca.w
"""
    modules = {"dppca.x", "dppca.x.y", "dppca.a.z", "dppca.t", "dppca.w", "dppca.a.b"}
    found = module_imports("dppca.a.b", False, source, modules)
    assert found == {"dppca.x", "dppca.x.y", "dppca.a.z", "dppca.t", "dppca.w"}
    assert module_imports("dppca.a", True, "from . import b", modules) == {"dppca.a.b"}


def test_the_cycle_finder_names_the_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"b", "d"}, "d": set()}
    assert find_cycle(graph, set(graph)) == ["b", "c", "b"]
    assert find_cycle(graph, {"a", "b", "d"}) is None  # the circle leaves the part checked


def test_results_enter_plotting_only_from_their_plot_methods():
    for importer, imported in PLOT_ENTRIES:
        path = PACKAGE / (importer.removeprefix("dppca.").replace(".", "/") + ".py")
        tree = ast.parse(path.read_text())
        places = {
            function.name
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef)
            for node in ast.walk(function)
            if isinstance(node, ast.ImportFrom) and node.module == imported
        }
        module_level = [
            node
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == imported
        ]
        assert places == {"plot"} and not module_level, (importer, places)


def test_no_import_circle():
    graph = import_graph()
    assert graph["dppca.audit"] >= {"dppca.releases.loading.release"}  # a function's import
    for importer, imported in PLOT_ENTRIES:
        graph[importer].discard(imported)
    modules = {
        module
        for module in graph
        if any(module == part or module.startswith(f"{part}.") for part in ACYCLIC)
    }
    cycle = find_cycle(graph, modules)
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_is_too_long():
    long = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if len(path.read_text().splitlines()) > MAX_LINES
    }
    assert long <= LONG_MODULES, sorted(long - LONG_MODULES)
    assert long >= LONG_MODULES  # a module split leaves the list
