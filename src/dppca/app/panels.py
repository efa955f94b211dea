"""The private page in the app, panel by panel: each panel is drawn on its own in the views
chosen (post-processing of the release: no budget), kept for the run, and drawn again only when
one of its own views changes; the run's report supplies each panel's first drawing."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dppca.plotting.pages import PageDisplay

#: The page's panels, in the report's order.
PANELS = PageDisplay.PANELS
#: The views each panel is drawn in (:func:`~dppca.plotting.pages.page_panels`' options), with
#: the choices the report's panels were drawn in.
VIEWS: dict[str, dict[str, Any]] = {
    "scree": {"scree": "pve"},
    "score": {"score": "histogram"},
    "loading": {"loading": "point", "axes": None},
    "variable": {"axes": None},
    "biplot": {},
}
#: What each panel shows, for the page's image descriptions.
DESCRIPTIONS = {
    "scree": "The private scree: proportion of variance or variances by component",
    "score": "The private score plot",
    "loading": "The private loadings",
    "variable": "The private variable plot",
    "biplot": "The private biplot",
}


def plane_choices(release: Any, largest: int = 4) -> dict[str, str]:
    """The loading and variable panels' choice of components: the released score axes, or any
    two of the first ``largest`` among the scree's ``k`` (the variable plot needs their
    variances).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> plane_choices(SimpleNamespace(k=3, feature_names=["a", "b", "c", "d"]))
    {'': 'as the score plot', '1,2': 'PC1 and PC2', '1,3': 'PC1 and PC3', '2,3': 'PC2 and PC3'}
    """
    shown = min(release.k, len(release.feature_names), largest)
    pairs = [(i, j) for j in range(2, shown + 1) for i in range(1, j)]
    return {"": "as the score plot", **{f"{i},{j}": f"PC{i} and PC{j}" for i, j in pairs}}


def read_axes(choice: str) -> tuple[int, int] | None:
    """A choice of :func:`plane_choices` as components (``None``: the released axes)."""
    if not choice:
        return None
    first, second = choice.split(",")
    return int(first), int(second)


@dataclass(eq=False)
class PanelImages:
    """One run's panels as PNG, by panel and view: the report's drawings first, then every
    view asked for, drawn once."""

    release: Any
    uncertainty: Any
    images: dict[tuple[str, tuple[tuple[str, Any], ...]], bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_report(cls, release: Any, uncertainty: Any, folder: Path) -> PanelImages:
        """The panels a report wrote into ``folder`` (``<panel>.png``), in the report's views."""
        panels = cls(release, uncertainty)
        for panel in PANELS:
            panels.images[_key(panel, VIEWS[panel])] = (folder / f"{panel}.png").read_bytes()
        return panels

    def cached(self, panel: str, **views: Any) -> bytes | None:
        """The panel in ``views`` (those it does not read are ignored), if drawn already."""
        return self.images.get(_key(panel, _chosen(panel, views)))

    def png(self, panel: str, **views: Any) -> bytes:
        """The panel in ``views``, drawn now unless drawn already."""
        from dppca.plotting.export import render_figure
        from dppca.plotting.pages import page_panels
        from dppca.report import PNG_DPI

        chosen = _chosen(panel, views)
        with self.lock:
            image = self.images.get(_key(panel, chosen))
            if image is None:
                display = page_panels(
                    self.release,
                    panels=[panel],
                    random_state=0,
                    uncertainty=self.uncertainty,
                    **chosen,
                )[panel]
                image = render_figure(display.figure_, {"png": PNG_DPI})["png"]
                self.images[_key(panel, chosen)] = image
        return image


def _chosen(panel: str, views: dict[str, Any]) -> dict[str, Any]:
    return {name: views.get(name, default) for name, default in VIEWS[panel].items()}


def _key(panel: str, chosen: dict[str, Any]) -> tuple[str, tuple[tuple[str, Any], ...]]:
    return panel, tuple(sorted(chosen.items()))
