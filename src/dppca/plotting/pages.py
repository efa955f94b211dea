"""Figures of several displays: the five-panel page of a :func:`dppca.dp_pca` result
(:class:`PageDisplay`), the loading and score grids of the R package's one-call plots
(:func:`loading_grid`, :func:`score_grid`), and the ``.plot(kind)`` of every result type
(:func:`display_result`). Drawing spends no privacy budget.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from dppca._validation import check_bool, check_choices, check_option
from dppca.numerics.linalg import axis_labels
from dppca.plotting._results import check_result
from dppca.plotting._style import deferred_labels, pyplot
from dppca.plotting.loadings import LoadingDisplay, named_variables
from dppca.plotting.scores import ScoreHistogramDisplay, ScorePointsDisplay
from dppca.plotting.scree import ScreeDisplay
from dppca.plotting.variables import BiplotDisplay, VariableDisplay
from dppca.releases.scores import check_axes

#: The display of each panel kind.
DISPLAYS: dict[str, Any] = {
    "scree": ScreeDisplay,
    "score": ScoreHistogramDisplay,
    "sample": ScorePointsDisplay,
    "loading": LoadingDisplay,
    "variable": VariableDisplay,
    "biplot": BiplotDisplay,
}


class PageDisplay:
    """The five panels of a :class:`~dppca.DPPCAResult` on one figure: scree, score plot,
    loadings, variables and biplot (a table of displays, ``displays_``; ``ax_`` holds their
    Axes in that order, ``figure_`` the figure).

    Examples
    --------
    >>> from dppca.plotting import PageDisplay
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, scree={"k": 3}, random_state=1)
    >>> page = PageDisplay.from_result(result, random_state=0)
    >>> sorted(page.displays_)
    ['biplot', 'loading', 'score', 'scree', 'variable']
    """

    PANELS = ("scree", "score", "loading", "variable", "biplot")

    @staticmethod
    def panel_options(
        *,
        variables: Any = 10,
        labels: bool = True,
        center: bool = True,
        random_state: Any = None,
        uncertainty: Any = None,
        scree: str = "pve",
        display_k: int | None = None,
        score: str = "histogram",
        loading: str = "point",
        heatmap_components: Any = None,
        variable: str = "vector",
        circle: bool = True,
        alpha: float = 0.0,
    ) -> dict[str, tuple[Any, dict[str, Any]]]:
        """Each panel's display and ``from_result`` options from the page's."""
        score_display = check_option(score, "score", ("histogram", "sample"))
        loading = check_option(loading, "loading", ("point", "vector", "heatmap"))
        if heatmap_components is not None and loading != "heatmap":
            raise ValueError(
                "heatmap_components (components) applies to the heatmap panel, "
                f"loading='heatmap'; got loading={loading!r}."
            )
        return {
            "scree": (
                ScreeDisplay,
                {"uncertainty": uncertainty, "kind": scree, "display_k": display_k},
            ),
            "score": (
                (ScoreHistogramDisplay, {"center": center})
                if score_display == "histogram"
                else (ScorePointsDisplay, {"center": center, "random_state": random_state})
            ),
            "loading": (
                LoadingDisplay,
                {
                    "kind": loading,
                    "variables": variables,
                    "labels": labels,
                    "uncertainty": uncertainty,
                    "components": heatmap_components,
                },
            ),
            "variable": (
                VariableDisplay,
                {"variables": variables, "kind": variable, "circle": circle, "labels": labels},
            ),
            "biplot": (
                BiplotDisplay,
                {
                    "variables": variables,
                    "labels": labels,
                    "alpha": alpha,
                    "center": center,
                    "random_state": random_state,
                },
            ),
        }

    def __init__(self, displays: dict[str, Any], figure: Any) -> None:
        self.displays_ = displays
        self.figure_ = figure
        #: The panels' Axes, in :attr:`PANELS` order.
        self.ax_ = np.array([displays[panel].ax_ for panel in self.PANELS], dtype=object)

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        non_private: bool = False,
        variables: Any = 10,
        labels: bool = True,
        center: bool = True,
        random_state: Any = None,
        uncertainty: Any = None,
        scree: str = "pve",
        display_k: int | None = None,
        score: str = "histogram",
        loading: str = "point",
        heatmap_components: Any = None,
        components: Any = None,
        variable: str = "vector",
        circle: bool = True,
        alpha: float = 0.0,
        figure: Any = None,
    ) -> PageDisplay:
        """Draw every panel (``non_private=True``: the reference's, titled as such) on a new
        figure, or on ``figure`` (a matplotlib Figure or SubFigure).

        ``scree``: ``"pve"`` or ``"scree"`` (the variances), ``display_k`` components;
        ``score``: ``"histogram"`` or ``"sample"`` (synthetic points); ``loading``:
        ``"point"``, ``"vector"`` or ``"heatmap"`` (a tall panel on the right), the heatmap's
        components given as ``heatmap_components`` (the R package's name) or ``components``
        (:class:`LoadingDisplay`'s): a number or PC numbers, default up to 5; ``variable``:
        ``"vector"`` or ``"point"``, in the unit circle unless ``circle=False``; ``alpha``: the
        biplot's; ``variables`` and ``labels``: the variables shown and named in the loading,
        variable and biplot panels (a number chooses the variables with the longest private
        loading vectors in the plotted plane, the same for every panel and for the reference
        page).
        """
        check_result(result, "PageDisplay", "DPPCAResult")
        if heatmap_components is not None and components is not None:
            raise TypeError(
                "Give the heatmap's components once, as heatmap_components or as components; got "
                f"heatmap_components={heatmap_components!r} and components={components!r}."
            )
        # One choice of variables for every panel (and both pages): from the private loadings.
        variables = named_variables(result.loadings, list(result.axis_labels), variables)
        options = cls.panel_options(
            variables=variables,
            labels=labels,
            center=center,
            random_state=random_state,
            uncertainty=uncertainty,
            scree=scree,
            display_k=display_k,
            score=score,
            loading=loading,
            heatmap_components=components if heatmap_components is None else heatmap_components,
            variable=variable,
            circle=circle,
            alpha=alpha,
        )
        heatmap = options["loading"][1]["kind"] == "heatmap"
        if figure is None:
            figure = pyplot().figure(
                figsize=(17, 10.5) if heatmap else (16, 10.5), layout="constrained"
            )
        if heatmap:  # a 2 x 2 block and a tall heatmap on the right
            grid = figure.add_gridspec(2, 3, width_ratios=[1.0, 1.0, 0.8])
            slots = [grid[0, 0], grid[0, 1], grid[:, 2], grid[1, 0], grid[1, 1]]
        else:
            grid = figure.add_gridspec(2, 6)
            slots = [grid[0, 0:2], grid[0, 2:4], grid[0, 4:6], grid[1, 1:3], grid[1, 3:5]]
        displays = {}
        with deferred_labels(figure):
            for panel, slot in zip(cls.PANELS, slots, strict=True):
                display, panel_options = options[panel]
                displays[panel] = display.from_result(
                    result, non_private=non_private, ax=figure.add_subplot(slot), **panel_options
                )
            figure.suptitle(page_title(result, non_private), fontsize=15, fontweight="bold")
        return cls(displays, figure)


def page_title(result: Any, non_private: bool = False) -> str:
    """The title of a result's page: the method and total budget, or that it is the
    non-private reference."""
    if non_private:
        return "Non-private PCA (reference: NOT differentially private)"
    total = result.privacy.total
    return (
        f"Private PCA ({getattr(result, 'method', 'g-DPPCA')}): total "
        f"ε={total.epsilon:.3g}, δ={total.delta:.2g}"
    )


def page_panels(
    result: Any,
    *,
    non_private: bool = False,
    panels: Any = PageDisplay.PANELS,
    axes: tuple[int, int] | None = None,
    figsize: tuple[float, float] = (5.5, 5),
    **options: Any,
) -> dict[str, Any]:
    """The ``panels`` of :class:`PageDisplay` each on a figure of its own (``figsize`` inches),
    with the page's ``options`` (:meth:`PageDisplay.panel_options`) and its one choice of
    variables, for files: the Axes at a fixed place (no layout engine to run; rendering crops
    each figure to what it draws, as ``bbox_inches="tight"``) and the labels placed. What a
    report renders panel by panel and composes into a page
    (:func:`dppca.plotting.export.compose_page`) and what the app redraws one at a time.
    ``axes``: the loading and variable panels' components (1-based; at most ``k`` for the
    variable panel), the released score axes by default; the variables shown are chosen in
    that plane.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, scree={"k": 3}, random_state=1)
    >>> list(page_panels(result, random_state=0)) == list(PageDisplay.PANELS)
    True
    >>> page_panels(result, panels=["loading"], axes=(1, 3))["loading"].ax_.get_ylabel()
    'PC3'
    """
    check_result(result, "page_panels", "DPPCAResult")
    chosen_panels = check_choices(panels, "panels", PageDisplay.PANELS)
    plane = list(result.axis_labels)
    if axes is not None:
        axes = check_axes(axes, len(result.feature_names))
        plane = list(axis_labels(axes))
    variables = named_variables(result.loadings, plane, options.pop("variables", 10))
    chosen = PageDisplay.panel_options(variables=variables, **options)
    if axes is not None:
        chosen["loading"][1]["axes"] = axes
        chosen["variable"][1]["axes"] = axes
    displays = {}
    for panel in PageDisplay.PANELS:
        if panel not in chosen_panels:
            continue
        display, panel_options = chosen[panel]
        figure = pyplot().figure(figsize=figsize)
        figure.subplots_adjust(left=0.14, right=0.96, bottom=0.11, top=0.88)
        try:
            with deferred_labels(figure):
                displays[panel] = display.from_result(
                    result, non_private=non_private, ax=figure.add_subplot(), **panel_options
                )
        except BaseException:  # no figure of a failed call stays open
            for drawn in [figure, *(shown.figure_ for shown in displays.values())]:
                pyplot().close(drawn)
            raise
    return displays


class PagesDisplay:
    """The private page and the non-private reference's on one figure, one above the other
    (the R package's ``plot.dp_pca`` draws both): ``private_`` and ``reference_`` are their
    :class:`PageDisplay`, ``figure_`` the figure and ``ax_`` their panels' Axes (2 x 5).

    Examples
    --------
    >>> from dppca.plotting import PagesDisplay
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, scree={"k": 3}, non_private=True, random_state=1)
    >>> pages = PagesDisplay.from_result(result, random_state=0)
    >>> pages.ax_.shape, pages.reference_.figure_.get_suptitle()[:20]
    ((2, 5), 'Non-private PCA (ref')
    """

    def __init__(self, private: PageDisplay, reference: PageDisplay, figure: Any) -> None:
        self.private_ = private
        self.reference_ = reference
        self.figure_ = figure
        self.ax_ = np.array([private.ax_, reference.ax_], dtype=object)

    @classmethod
    def from_result(cls, result: Any, **options: Any) -> PagesDisplay:
        """Both pages with the same ``options`` (:meth:`PageDisplay.from_result`'s but
        ``non_private`` and ``figure``) and independent synthetic points."""
        refused = sorted({"non_private", "figure"} & set(options))
        if refused:
            raise TypeError(f"PagesDisplay draws both pages; it does not take {refused}.")
        seed = options.pop("random_state", None)
        first, second = np.random.default_rng(seed).spawn(2)
        heatmap = options.get("loading") == "heatmap"
        figure = pyplot().figure(figsize=(17 if heatmap else 16, 21), layout="constrained")
        top, bottom = figure.subfigures(2, 1)
        return cls(
            PageDisplay.from_result(result, random_state=first, figure=top, **options),
            PageDisplay.from_result(
                result, non_private=True, random_state=second, figure=bottom, **options
            ),
            figure,
        )


def display_result(result: Any, kind: str, kinds: tuple[str, ...], **options: Any) -> Any:
    """The ``.plot(kind)`` of every result type.

    ``"all"`` gives a :class:`PageDisplay`, ``"pages"`` a :class:`PagesDisplay` (the private
    and the reference pages), ``"heatmap"`` a :class:`LoadingDisplay` heatmap, any other kind
    in ``kinds`` its display; ``options`` are that display's ``from_result`` keywords, and one
    it does not take is refused.
    """
    kind = check_option(kind, "kind", kinds)
    if "non_private" in options:
        options["non_private"] = check_bool(options["non_private"], "non_private")
    display = (
        PageDisplay
        if kind in ("all", "pages")
        else LoadingDisplay
        if kind == "heatmap"
        else DISPLAYS[kind]
    )
    accepted = set(inspect.signature(display.from_result).parameters) - {"result", "kind"}
    if kind == "pages":
        accepted -= {"non_private", "figure"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise TypeError(
            f"plot(kind={kind!r}) got option(s) it does not take: {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(accepted))}."
        )
    if kind == "pages":
        return PagesDisplay.from_result(result, **options)
    if kind == "heatmap":
        options["kind"] = "heatmap"
    return display.from_result(result, **options)
