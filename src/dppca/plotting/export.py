"""Figures rendered to image bytes in several formats, each laid out once, and pages composed
of panels rendered apart.

``savefig(..., bbox_inches="tight")`` runs the layout engine twice per file (once to measure the
tight box, once to render). Here the figure is laid out once, its layout frozen and its tight box
measured once; each format then costs one rendering, and the images agree on the box.
"""

from __future__ import annotations

import html
import io
import re
import warnings
from collections.abc import Mapping
from typing import Any

from dppca.plotting._style import pyplot


def render_figure(
    figure: Any, formats: Mapping[str, float | None], *, crop: bool = True
) -> dict[str, bytes]:
    """Render ``figure`` to each format (matplotlib's format name mapped to a resolution in dots
    per inch, ``None`` for the figure's own), cropped to its tight box padded by
    ``savefig.pad_inches`` as ``bbox_inches="tight"`` would (``crop=False``: the whole figure),
    then close the figure, whatever happens. A figure
    with a layout engine is laid out once and its layout fixed; one without (or whose layout
    is fixed already) is not drawn but to render it.

    Examples
    --------
    >>> from dppca.plotting._style import pyplot
    >>> figure = pyplot().figure(figsize=(2, 2), layout="constrained")
    >>> _ = figure.add_subplot().plot([0, 1], [1, 0])
    >>> images = render_figure(figure, {"png": 50, "svg": None})
    >>> images["png"][:4], images["svg"][:5]
    (b'\\x89PNG', b'<?xml')
    """
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    plt = pyplot()
    try:
        engine = figure.get_layout_engine()
        if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
            with warnings.catch_warnings():  # a noise-dominated panel's long labels: cosmetic
                warnings.filterwarnings("ignore", "constrained_layout not applied", UserWarning)
                figure.draw_without_rendering()
            figure.set_layout_engine("none")  # positions stay where the engine put them
        box = None
        if crop:
            box = figure.get_tightbbox(figure.canvas.get_renderer())
            box = box.padded(plt.rcParams["savefig.pad_inches"])
        images = {}
        for name, dpi in formats.items():
            buffer = io.BytesIO()
            figure.savefig(buffer, format=name, dpi=dpi or "figure", bbox_inches=box)
            images[name] = buffer.getvalue()
    finally:
        plt.close(figure)
    return images


#: The page's panels, row by row (as :class:`~dppca.plotting.PageDisplay` places them).
PAGE_ROWS = (("scree", "score", "loading"), ("variable", "biplot"))
#: Space between panels, in inches; the title's height, in inches, and size, in points.
GAP, TITLE_HEIGHT, TITLE_SIZE = 0.12, 0.45, 15
_SVG_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_SVG_SIZE = re.compile(r'\b(width|height)="([0-9.]+)pt"')


def _grid(sizes: Mapping[str, tuple[float, float]], rows: Any, gap: float, top: float):
    """Each panel's top-left corner (rows centred, panels top-aligned) and the page's size."""
    widths = [sum(sizes[name][0] for name in row) + gap * (len(row) - 1) for row in rows]
    page_width = max(widths)
    corners, y = {}, top
    for row, width in zip(rows, widths, strict=True):
        x = (page_width - width) / 2
        for name in row:
            corners[name] = (x, y)
            x += sizes[name][0] + gap
        y += max(sizes[name][1] for name in row) + gap
    return corners, (page_width, y - gap)


def _png_page(panels: Mapping[str, bytes], rows: Any, title: str, dpi: float) -> bytes:
    from PIL import Image

    images = {name: Image.open(io.BytesIO(png)).convert("RGB") for name, png in panels.items()}
    top = round(TITLE_HEIGHT * dpi)
    corners, (width, height) = _grid(
        {name: image.size for name, image in images.items()}, rows, round(GAP * dpi), top
    )
    page = Image.new("RGB", (int(width), int(height)), "white")
    heading = pyplot().figure(figsize=(width / dpi, TITLE_HEIGHT))
    heading.text(0.5, 0.5, title, ha="center", va="center", fontsize=TITLE_SIZE, weight="bold")
    title_png = render_figure(heading, {"png": dpi}, crop=False)["png"]
    page.paste(Image.open(io.BytesIO(title_png)).convert("RGB"), (0, 0))
    for name, image in images.items():
        x, y = corners[name]
        page.paste(image, (int(x), int(y)))
    out = io.BytesIO()
    page.save(out, format="png", dpi=(dpi, dpi))
    return out.getvalue()


_SVG_ID = re.compile(r'(\bid="|url\(#|href="#)([^"()]+)')


def _prefixed_ids(body: str, prefix: str) -> str:
    """``body`` with every id and every reference to one (``url(#...)``, ``href="#..."``)
    prefixed by ``prefix``: the panels of a page each number their own ``figure_1``,
    ``axes_1``, ... from one."""
    return _SVG_ID.sub(lambda match: f"{match.group(1)}{prefix}-{match.group(2)}", body)


def _svg_page(panels: Mapping[str, bytes], rows: Any, title: str) -> bytes:
    bodies, sizes = {}, {}
    for name, svg in panels.items():
        text = svg.decode("utf-8")
        root = _SVG_ROOT.search(text)
        if root is None:
            raise ValueError(f"panel {name!r} is not an SVG image")
        size = dict(_SVG_SIZE.findall(root.group(0)))
        sizes[name] = (float(size["width"]), float(size["height"]))
        bodies[name] = _prefixed_ids(text[root.end() :], name)  # with the closing </svg>
    corners, (width, height) = _grid(sizes, rows, GAP * 72, TITLE_HEIGHT * 72)
    parts = [
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        f'<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="{width:.3f}pt" '
        f'height="{height:.3f}pt" viewBox="0 0 {width:.3f} {height:.3f}" '
        'xmlns="http://www.w3.org/2000/svg" version="1.1">\n'
        f'<rect width="{width:.3f}" height="{height:.3f}" fill="#ffffff"/>\n'
        f'<text x="{width / 2:.3f}" y="{TITLE_HEIGHT * 36:.3f}" text-anchor="middle" '
        'dominant-baseline="central" font-family="DejaVu Sans, Bitstream Vera Sans, sans-serif" '
        f'font-size="{TITLE_SIZE}" font-weight="bold">{html.escape(title)}</text>\n'
    ]
    for name, body in bodies.items():
        x, y = corners[name]
        w, h = sizes[name]
        parts.append(
            f'<svg x="{x:.3f}" y="{y:.3f}" width="{w:.3f}" height="{h:.3f}" '
            f'viewBox="0 0 {w:.3f} {h:.3f}">{body}\n'
        )
    parts.append("</svg>\n")
    return "".join(parts).encode("utf-8")


def compose_page(
    panels: Mapping[str, Mapping[str, bytes]],
    title: str,
    *,
    rows: Any = PAGE_ROWS,
    dpi: float = 110,
) -> dict[str, bytes]:
    """One page from panels rendered apart (by :func:`render_figure`, tight-cropped): a bold
    ``title`` above the ``rows`` of panels (each row centred), as PNG (the panels' PNGs at
    ``dpi``, pasted) and SVG (their SVGs nested, still vector), for each format every panel has.

    Examples
    --------
    >>> from dppca.plotting._style import pyplot
    >>> def panel():
    ...     figure = pyplot().figure(figsize=(2, 2), layout="constrained")
    ...     figure.add_subplot().plot([0, 1])
    ...     return render_figure(figure, {"png": 50, "svg": None})
    >>> page = compose_page({"a": panel(), "b": panel()}, "Two panels", rows=[["a", "b"]], dpi=50)
    >>> from PIL import Image
    >>> import io
    >>> width, height = Image.open(io.BytesIO(page["png"])).size
    >>> width > 2 * 90, page["svg"].count(b"<svg")
    (True, 3)
    """
    shown = [name for row in rows for name in row]
    formats = set.intersection(*(set(panels[name]) for name in shown))
    page = {}
    if "png" in formats:
        page["png"] = _png_page({name: panels[name]["png"] for name in shown}, rows, title, dpi)
    if "svg" in formats:
        page["svg"] = _svg_page({name: panels[name]["svg"] for name in shown}, rows, title)
    return page
