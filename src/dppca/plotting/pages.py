"""Figures of several displays: the five-panel page of a :func:`dppca.dp_pca` result
(:class:`PageDisplay`), the loading and score grids of the R package's one-call plots
(:func:`loading_grid`, :func:`score_grid`), and the ``.plot(kind)`` of every result type
(:func:`display_result`). Drawing spends no privacy budget.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_choices, check_option
from dppca.numerics.linalg import axis_labels, pc_labels
from dppca.plotting._display import plotted_axes, reference_directions, version_titles
from dppca.plotting._results import check_result
from dppca.plotting._style import deferred_labels, pyplot
from dppca.plotting.loadings import (
    LoadingDisplay,
    default_components,
    directions_of,
    heatmap_columns,
    select_variables,
)
from dppca.plotting.scores import ScoreHistogramDisplay, ScorePointsDisplay
from dppca.plotting.scree import ScreeDisplay
from dppca.plotting.variables import BiplotDisplay, VariableDisplay
from dppca.releases.scores import check_axes
from dppca.results.sampling import SAMPLING_METHODS

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
        variables = _named(result.loadings, list(result.axis_labels), variables)
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
            total = result.privacy.total
            figure.suptitle(
                "Non-private PCA (reference: NOT differentially private)"
                if non_private
                else f"Private PCA ({getattr(result, 'method', 'g-DPPCA')}): total "
                f"ε={total.epsilon:.3g}, δ={total.delta:.2g}",
                fontsize=15,
                fontweight="bold",
            )
        return cls(displays, figure)


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
        for page in (top, bottom):  # the label placer lays out ``ax.figure``: the root's work
            page.draw_without_rendering = figure.draw_without_rendering
        return cls(
            PageDisplay.from_result(result, random_state=first, figure=top, **options),
            PageDisplay.from_result(
                result, non_private=True, random_state=second, figure=bottom, **options
            ),
            figure,
        )


def loading_grid(
    result: Any,
    *,
    display: Any = "vector",
    non_private: bool = False,
    variables: Any = 10,
    labels: bool = True,
    align_sign: bool = True,
    axes: tuple[int, int] | None = None,
    heatmap_components: Any = None,
) -> tuple[Any, dict[tuple[str, str], LoadingDisplay]]:
    """Loading panels of a result: one column per ``display`` (``"vector"``, ``"point"``,
    ``"heatmap"``, in that order) and, with ``non_private=True``, the reference above the
    private row, every panel of a kind on one shared scale and showing the same variables (a
    number of ``variables`` is chosen from the private loadings, post-processing), as the R
    package's ``dp_loading_plot``. ``heatmap_components``: a number or PC numbers. Returns the
    figure and the displays keyed by (version, display).

    Examples
    --------
    >>> from dppca.plotting import loading_grid
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 3)) * [3, 2, 1]
    >>> result = dppca.dp_loading(X, 4.0, 1e-6, non_private=True, random_state=1)
    >>> figure, displays = loading_grid(result, display=("vector", "heatmap"), non_private=True)
    >>> sorted(displays)
    [('DP', 'heatmap'), ('DP', 'vector'), ('Non-private', 'heatmap'), ('Non-private', 'vector')]
    """
    order = ("vector", "point", "heatmap")
    chosen = check_choices(display, "display", order)
    kinds = [kind for kind in order if kind in chosen]
    versions = [True, False] if check_bool(non_private, "non_private") else [False]
    directions, names = directions_of(result, "loading_grid")
    loadings = pd.DataFrame(directions, index=names, columns=pc_labels(directions.shape[1]))
    shown_axes = check_axes(axes if axes is not None else plotted_axes(result), len(names))
    components = (
        default_components(result, directions) if heatmap_components is None else heatmap_components
    )
    heatmap = heatmap_columns(loadings, components)
    plane = list(axis_labels(shown_axes))
    chosen_names = {
        kind: _named(loadings, heatmap if kind == "heatmap" else plane, variables) for kind in kinds
    }
    sets = [directions] + ([reference_directions(result, align_sign)] if non_private else [])
    columns = [int(label[2:]) - 1 for label in plane]
    largest = max(float(np.abs(d[:, columns]).max()) for d in sets)
    strongest = max(
        float(np.abs(d[:, [int(label[2:]) - 1 for label in heatmap]]).max()) for d in sets
    )
    figure, grid = pyplot().subplots(
        len(versions),
        len(kinds),
        figsize=(5.2 * len(kinds) + 0.5, 5.0 * len(versions)),
        squeeze=False,
        layout="constrained",
    )
    displays = {}
    with deferred_labels(figure):
        for row, version in enumerate(versions):
            for column, kind in enumerate(kinds):
                displays[(version_titles(version)[0], kind)] = LoadingDisplay.from_result(
                    result,
                    kind=kind,
                    non_private=version,
                    variables=chosen_names[kind],
                    labels=labels,
                    align_sign=align_sign,
                    axes=shown_axes,
                    components=components,
                    limit=max(strongest, 1e-12) if kind == "heatmap" else 1.35 * max(largest, 0.1),
                    ax=grid[row, column],
                )
    return figure, displays


def _named(loadings: pd.DataFrame, columns: list[str], variables: Any) -> Any:
    """``variables`` as names: a number is resolved on ``loadings`` (the private ones), so that
    every panel shows the same variables; names, None and "all" pass through."""
    if isinstance(variables, int) and not isinstance(variables, bool):
        return list(select_variables(loadings, columns, variables).index)
    return variables


def score_grid(
    result: Any,
    *,
    panels: Any = ("histogram",),
    sampling: Any = "uniform",
    non_private: bool = False,
    n_points: int | None = None,
    bandwidth_scale: float | None = None,
    center: bool = True,
    random_state: Any = None,
) -> tuple[Any, dict[tuple[str, str], Any]]:
    """The score figure of the R package's ``dp_score_plot``: a row of histograms (the
    reference scatter and histogram first with ``non_private=True``, then every private
    method's), and with ``"sample"`` in ``panels`` one row per ``sampling`` method of synthetic
    points from each private histogram. Returns the figure and the displays keyed by (panel,
    method).

    Examples
    --------
    >>> from dppca.plotting import score_grid
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_score(X, 4.0, 1e-6, bins=8, directions=np.eye(3), random_state=1)
    >>> figure, displays = score_grid(result, panels=("histogram", "sample"), random_state=0)
    >>> sorted(displays)
    [('histogram', 'thresholded'), ('sample: uniform', 'thresholded')]
    """
    check_result(result, "score_grid", "DPPCAResult", "ScoreResult")
    chosen = check_choices(panels, "panels", ("histogram", "sample"))
    samplings = check_choices(sampling, "sampling", SAMPLING_METHODS) if "sample" in chosen else ()
    methods = (
        list(result.methods) if hasattr(result, "methods") else [result.settings["score_method"]]
    )
    rows: list[list[tuple[str, str | None]]] = []
    # As the R package: the reference's column comes first (its histogram above, its scatter
    # below when there are sample rows), then one column per private method.
    if "histogram" in chosen:
        lead: list[tuple[str, str | None]] = []
        if non_private:
            lead = [("histogram", None)] if samplings else [("scatter", None), ("histogram", None)]
        rows.append(lead + [("histogram", method) for method in methods])
    for index, how in enumerate(samplings):
        lead = []
        if non_private:
            lead = [("scatter", None) if index == 0 else ("blank", None)]
        rows.append(lead + [(f"sample: {how}", method) for method in methods])
    width = max(len(row) for row in rows)
    figure, grid = pyplot().subplots(
        len(rows),
        width,
        figsize=(4.6 * width + 1.2, 4.4 * len(rows)),
        squeeze=False,
        layout="constrained",
    )
    generators = iter(np.random.default_rng(random_state).spawn(len(samplings) * len(methods) + 1))
    displays: dict[tuple[str, str], Any] = {}
    for r, row in enumerate(rows):
        for c in range(width):
            ax = grid[r, c]
            if c >= len(row):
                ax.set_visible(False)
                continue
            panel, method = row[c]
            legend = c == len(row) - 1  # one legend per row, on its right
            display: Any
            if panel == "blank":
                ax.set_visible(False)
                continue
            if panel == "scatter":
                display = ScorePointsDisplay.from_result(
                    result, non_private=True, center=center, legend=legend, ax=ax
                )
            elif panel == "histogram":
                display = ScoreHistogramDisplay.from_result(
                    result,
                    method=method,
                    non_private=method is None,
                    center=center,
                    legend=legend,
                    ax=ax,
                )
            else:
                display = ScorePointsDisplay.from_result(
                    result,
                    method=method,
                    sampling=panel.split(": ")[1],
                    n_points=n_points,
                    bandwidth_scale=bandwidth_scale,
                    center=center,
                    random_state=next(generators),
                    legend=legend,
                    ax=ax,
                )
            displays[(panel, method or "non_private")] = display
    return figure, displays


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
