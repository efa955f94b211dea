"""The documentation's links to numpy, pandas, scikit-learn and matplotlib: the inventories the
build writes (CI has no network to fetch the projects' own) hold every name the docstrings'
types are aliased to, in Sphinx's format, and the build uses them."""

from __future__ import annotations

import importlib.util
import zlib
from pathlib import Path

DOCS = Path(__file__).parents[1] / "docs"


def _external():
    spec = importlib.util.spec_from_file_location("_external", DOCS / "_external.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(data: bytes) -> dict[str, tuple[str, str]]:
    """An inventory (version 2) read back: name -> (role, page and anchor)."""
    lines = data.split(b"\n", 4)
    assert lines[0] == b"# Sphinx inventory version 2"
    assert lines[3] == b"# The remainder of this file is compressed using zlib."
    entries = {}
    for line in zlib.decompress(lines[4]).decode().splitlines():
        name, role, priority, page, shown = line.split(" ", 4)
        assert priority in {"1", "-1"} and shown == "-"
        entries[name] = (role, page.replace("$", name))
    return entries


def test_every_alias_names_an_entry_of_an_inventory_written_for_the_build(tmp_path):
    external = _external()
    mapping = external.write_inventories(tmp_path)
    assert {"numpy", "pandas", "sklearn", "matplotlib"} <= set(mapping)
    known = {}
    for project, (address, path) in mapping.items():
        assert address.startswith("https://") and address.endswith("/")
        entries = _entries(Path(path).read_bytes())
        assert entries, project
        known.update(entries)
    assert set(external.ALIASES.values()) <= set(known)
    assert known["numpy.ndarray"] == (
        "py:class",
        "reference/generated/numpy.ndarray.html#numpy.ndarray",
    )
    assert known["array_like"] == ("std:term", "glossary.html#term-array_like")


def test_the_build_links_parameter_types_through_these_inventories():
    conf = (DOCS / "conf.py").read_text()
    assert '"sphinx.ext.intersphinx"' in conf
    assert "intersphinx_mapping = write_inventories(" in conf
    assert "numpydoc_xref_param_type = True" in conf
    assert "check_links.py" in (DOCS.parent / "Makefile").read_text()
