"""Sphinx configuration of the dppca documentation (``make docs``; warnings are errors)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

import dppca

sys.path.insert(0, str(Path(__file__).parent))
from _external import ALIASES, write_inventories  # the docs folder, just added

matplotlib.use("Agg")

project = "dppca"
author = "the dppca developers"
copyright = "2026, the dppca developers"
release = dppca.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "gallery/*.md5", "tutorials/*.md5"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_xref_param_type = True
numpydoc_xref_aliases = ALIASES
numpydoc_xref_ignore = "all"  # only the aliased names link; the rest stays plain text
# numpy, pandas, scikit-learn and matplotlib, from inventories written here (CI is offline).
intersphinx_mapping = write_inventories(Path(__file__).parent / "_build" / "inventories")
numpydoc_validation_checks: set[str] = set()

sphinx_gallery_conf = {
    "examples_dirs": ["../examples/gallery", "../examples/tutorials"],
    "gallery_dirs": ["gallery", "tutorials"],
    "filename_pattern": r"/(plot|tutorial)_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
}

html_theme = "pydata_sphinx_theme"
html_title = f"dppca {release}"
html_theme_options = {
    "navigation_depth": 2,
    "header_links_before_dropdown": 7,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
}
html_static_path = ["_static"]

# Examples draw with matplotlib's Agg backend; its font cache notes are not warnings of ours.
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
