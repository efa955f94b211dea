"""The other projects' pages the API reference links to (intersphinx), written as inventories
at each build: CI has no network to fetch the projects' own, so the names the reference uses
are listed here with the pages the projects publish them on.

``ALIASES`` maps the short type names of the docstrings' parameter lists to these names
(numpydoc's cross-references); ``write_inventories`` writes one Sphinx inventory (version 2)
per project and returns intersphinx's mapping to them.
"""

from __future__ import annotations

import zlib
from pathlib import Path

#: Each project: its documentation's address, its name, and the entries (name, role, page and
#: anchor; ``$`` stands for the name).
PROJECTS: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
    "python": (
        "https://docs.python.org/3/",
        "Python",
        [
            ("None", "py:data", "library/constants.html#$"),
            ("True", "py:data", "library/constants.html#$"),
            ("False", "py:data", "library/constants.html#$"),
            ("int", "py:class", "library/functions.html#$"),
            ("float", "py:class", "library/functions.html#$"),
            ("callable", "py:function", "library/functions.html#$"),
            ("str", "py:class", "library/stdtypes.html#$"),
            ("list", "py:class", "library/stdtypes.html#$"),
            ("tuple", "py:class", "library/stdtypes.html#$"),
            ("dict", "py:class", "library/stdtypes.html#$"),
            ("bltin-boolean-values", "std:label", "library/stdtypes.html#$"),
            ("sequence", "std:term", "glossary.html#term-sequence"),
            ("iterable", "std:term", "glossary.html#term-iterable"),
        ],
    ),
    "numpy": (
        "https://numpy.org/doc/stable/",
        "NumPy",
        [
            ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#$"),
            ("numpy.frexp", "py:data", "reference/generated/numpy.frexp.html#$"),
            ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
            (
                "numpy.random.SeedSequence",
                "py:class",
                "reference/random/bit_generators/generated/numpy.random.SeedSequence.html#$",
            ),
            ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
            ("array_like", "std:term", "glossary.html#term-array_like"),
            ("arrays.scalars", "std:label", "reference/arrays.scalars.html#$"),
        ],
    ),
    "pandas": (
        "https://pandas.pydata.org/docs/",
        "pandas",
        [
            ("pandas.DataFrame", "py:class", "reference/api/pandas.DataFrame.html#$"),
            ("pandas.Series", "py:class", "reference/api/pandas.Series.html#$"),
            ("pandas.Categorical", "py:class", "reference/api/pandas.Categorical.html#$"),
        ],
    ),
    "sklearn": (
        "https://scikit-learn.org/stable/",
        "scikit-learn",
        [
            (
                "sklearn.decomposition.PCA",
                "py:class",
                "modules/generated/sklearn.decomposition.PCA.html#$",
            ),
            (
                "sklearn.pipeline.Pipeline",
                "py:class",
                "modules/generated/sklearn.pipeline.Pipeline.html#$",
            ),
            (
                "sklearn.base.BaseEstimator",
                "py:class",
                "modules/generated/sklearn.base.BaseEstimator.html#$",
            ),
        ],
    ),
    "matplotlib": (
        "https://matplotlib.org/stable/",
        "Matplotlib",
        [
            ("matplotlib.axes.Axes", "py:class", "api/_as_gen/matplotlib.axes.Axes.html#$"),
            ("matplotlib.figure.Figure", "py:class", "api/_as_gen/matplotlib.figure.Figure.html#$"),
        ],
    ),
}

#: Short type names in the docstrings' parameter lists and what they name.
ALIASES = {
    "ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "SeedSequence": "numpy.random.SeedSequence",
    "RandomState": "numpy.random.RandomState",
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "Categorical": "pandas.Categorical",
    "Axes": "matplotlib.axes.Axes",
    "Figure": "matplotlib.figure.Figure",
    "Pipeline": "sklearn.pipeline.Pipeline",
}


def inventory(project: str) -> bytes:
    """The Sphinx inventory (version 2) of ``project``'s entries, as Sphinx writes them
    (labels and glossary terms at priority -1, objects at 1)."""
    _, title, entries = PROJECTS[project]
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {title}\n"
        "# Version: stable\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    lines = "".join(
        f"{name} {role} {-1 if role.startswith('std:') else 1} {page} -\n"
        for name, role, page in entries
    )
    return header.encode() + zlib.compress(lines.encode())


def write_inventories(folder: Path) -> dict[str, tuple[str, str]]:
    """Write every project's inventory into ``folder``; intersphinx's mapping to them."""
    folder.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for project, (address, _, _) in PROJECTS.items():
        path = folder / f"{project}.inv"
        path.write_bytes(inventory(project))
        mapping[project] = (address, str(path))
    return mapping
