"""Figures rendered once for several formats, pages composed of panels, and labels moved apart."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
from PIL import Image

from dppca.plotting._style import pyplot
from dppca.plotting.export import compose_page, render_figure
from dppca.plotting.label_placement import POINT_RADIUS, place


def _panel(width: float, height: float, text: str):
    figure = pyplot().figure(figsize=(width, height), layout="constrained")
    ax = figure.add_subplot()
    ax.plot([0, 1], [1, 0])
    ax.set_title(text)
    return figure


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_one_layout_gives_the_tight_box_savefig_would():
    """The same size, to a pixel, as matplotlib's own bbox_inches="tight" (which lays the
    figure out again for every file)."""
    reference, figure = io.BytesIO(), _panel(4, 3, "reference")
    figure.savefig(reference, format="png", dpi=80, bbox_inches="tight")
    pyplot().close(figure)
    ours = render_figure(_panel(4, 3, "reference"), {"png": 80, "svg": None})
    expected = _pixels(reference.getvalue()).shape
    assert abs(_pixels(ours["png"]).shape[0] - expected[0]) <= 1
    assert abs(_pixels(ours["png"]).shape[1] - expected[1]) <= 1
    assert ElementTree.fromstring(ours["svg"]).tag.endswith("svg")
    assert not pyplot().get_fignums()  # closed


def test_a_page_pastes_its_panels_unchanged_and_nests_their_svgs():
    panels = {
        name: render_figure(_panel(*size, name), {"png": 50, "svg": None})
        for name, size in {"a": (3, 2), "b": (2, 3), "c": (4, 2)}.items()
    }
    page = compose_page(panels, "A page & its <title>", rows=[["a", "b"], ["c"]], dpi=50)
    image = _pixels(page["png"])
    sizes = {name: _pixels(images["png"]).shape[:2] for name, images in panels.items()}
    gap, top = round(0.12 * 50), round(0.45 * 50)
    width = max(sizes["a"][1] + gap + sizes["b"][1], sizes["c"][1])
    assert image.shape[1] == width
    assert image.shape[0] == top + max(sizes["a"][0], sizes["b"][0]) + gap + sizes["c"][0]
    x = (width - (sizes["a"][1] + gap + sizes["b"][1])) // 2
    height, wide = sizes["a"]
    assert np.array_equal(image[top : top + height, x : x + wide], _pixels(panels["a"]["png"]))
    root = ElementTree.fromstring(page["svg"])  # well formed, the title escaped
    nested = [child for child in root if child.tag.endswith("svg")]
    assert len(nested) == 3
    assert any(child.text == "A page & its <title>" for child in root.iter() if child.text)
    ids = [element.get("id") for element in root.iter() if element.get("id")]
    assert len(ids) == len(set(ids))  # each panel's figure_1, axes_1, ... made its own
    text = page["svg"].decode()
    references = re.findall(r'url\(#([^)]+)\)|href="#([^"]+)"', text)
    assert references and all((first or second) in ids for first, second in references)


@pytest.mark.parametrize("count", [2, 6, 12])
def test_labels_on_one_spot_end_apart_and_inside_their_limits(count):
    halves = np.tile([[20.0, 5.0]], (count, 1))
    placed = place(np.full((count, 2), 200.0), halves, np.empty((0, 2)), (0, 400, 0, 400))
    for i in range(count):
        for j in range(i + 1, count):
            gap = np.abs(placed[i] - placed[j])
            assert gap[0] >= 2 * halves[0, 0] or gap[1] >= 2 * halves[0, 1]  # boxes apart
    assert np.all(placed - halves >= 0) and np.all(placed + halves <= 400)


def test_labels_move_off_the_points_they_cover_and_the_run_is_the_same_each_time():
    rng = np.random.default_rng(4)
    points = rng.uniform(150, 250, size=(15, 2))
    centres = points[:8] + 1.0
    halves = np.tile([[18.0, 4.0]], (8, 1))
    placed = place(centres, halves, points, (0, 400, 0, 400))
    covered = (np.abs(placed[:, None, :] - points[None]) < halves[:, None, :] + POINT_RADIUS).all(
        -1
    )
    assert not covered.any()
    assert np.array_equal(placed, place(centres, halves, points, (0, 400, 0, 400)))


def test_a_label_too_wide_for_its_limits_is_put_against_their_low_edge():
    placed = place(
        np.array([[10.0, 50.0]]), np.array([[80.0, 5.0]]), np.empty((0, 2)), (0, 100, 0, 100)
    )
    assert placed[0, 0] == pytest.approx(80.0)  # its left edge at the limit


def test_points_not_drawn_are_no_obstacles_and_no_labels_are_nothing_to_place():
    start = np.array([[50.0, 50.0], [50.0, 50.0]])
    halves = np.array([[10.0, 4.0]] * 2)
    with_nan = place(start, halves, np.array([[np.nan, 0.0], [50.0, 50.0]]), (0, 100, 0, 100))
    assert np.array_equal(
        with_nan, place(start, halves, np.array([[50.0, 50.0]]), (0, 100, 0, 100))
    )
    assert place(np.empty((0, 2)), np.empty((0, 2)), np.empty((0, 2)), (0, 1, 0, 1)).shape == (0, 2)
