"""The example gallery runs (in its quick mode) and writes one PNG per example."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

GALLERY = Path(__file__).parents[2] / "examples" / "plot_gallery.py"

#: One file per example: the one-call plots, the pages and panels, the grids, the estimator and
#: every helper of dppca.plotting.
EXPECTED = {
    "dp_loading_plot",
    "dp_scree_plot",
    "dp_score_plot",
    "dp_score_plot_group",
    "page_private",
    "page_non_private",
    "page_options",
    "panel_scree",
    "panel_score",
    "panel_sample",
    "panel_loading",
    "panel_heatmap",
    "panel_variable",
    "panel_biplot",
    "panel_variable_k2",
    "adult_scaled_page",
    "loading_grid",
    "score_grid",
    "estimator_loadings",
    "plot_scree",
    "plot_loadings",
    "plot_loading_heatmap",
    "plot_score_histogram",
    "plot_score_points",
    "plot_variables",
    "plot_biplot",
}


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (its signature and IHDR chunk)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path.name
    return struct.unpack(">II", head[16:24])


@pytest.mark.filterwarnings("ignore")  # the releases' notes on noise; the files are checked
def test_the_gallery_draws_every_example(tmp_path):
    spec = importlib.util.spec_from_file_location("plot_gallery", GALLERY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.gallery(tmp_path, quick=True)
    assert sorted(path.name for path in written) == sorted(f"{name}.png" for name in EXPECTED)
    assert {path.name for path in tmp_path.iterdir()} == {f"{name}.png" for name in EXPECTED}
    for path in written:
        width, height = _png_size(path)
        assert width > 50 and height > 50, path.name
        assert path.stat().st_size > 2000, path.name
