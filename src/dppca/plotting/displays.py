"""Display objects, in the manner of scikit-learn's ``ConfusionMatrixDisplay``.

A display holds the arrays it draws (``__init__``), draws them with :meth:`plot` (``ax=None``
makes a new figure; the Axes and Figure are kept as ``ax_`` and ``figure_``) and is built from a
result with ``from_result``, which also plots. Every result type has ``.plot(kind)``, which
returns the display. Drawing spends no privacy budget: displays show released values and their
post-processing; non-private references are drawn only when asked and are titled as such.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_option
from dppca.numerics.linalg import pc_labels
from dppca.plotting._style import DP_COLOR, NONPRIVATE_COLOR, pyplot
from dppca.plotting.loadings import plot_loading_heatmap, plot_loadings
from dppca.plotting.scores import plot_score_histogram
from dppca.plotting.scree import plot_scree
from dppca.plotting.variables import plot_biplot, plot_variables
from dppca.releases.sampling import NoMassWarning
from dppca.releases.scores import shift_cells


def _titles(non_private: bool) -> tuple[str, str]:
    return ("Non-private", " (reference)") if non_private else ("DP", "")


def _budget(result: Any, component: str) -> str:
    budget = getattr(result.budgets, component)
    return f"ε={budget.epsilon:.3g}, δ={budget.delta:.2g}"


def _reference(result: Any) -> Any:
    """The result's non-private reference, or a clear error when it was not requested."""
    if getattr(result, "non_private", None) is None:
        raise ValueError(
            "No non-private reference was computed; compute the result with non_private=True "
            "(the reference is NOT differentially private)."
        )
    return result.non_private


def unstable_note(uncertainty: Any, axes: tuple[int, int] | None = None) -> str:
    """``"\\nunstable under the noise: PC3, PC4"`` for the flagged components (all, or
    ``axes``); empty when none is flagged or no uncertainty is given."""
    if uncertainty is None:
        return ""
    flagged = [j for j in uncertainty.unstable() if axes is None or j in axes]
    if not flagged:
        return ""
    runs: list[list[int]] = []
    for j in flagged:
        if runs and j == runs[-1][-1] + 1:
            runs[-1].append(j)
        else:
            runs.append([j])
    text = ", ".join(f"PC{r[0]}" if len(r) == 1 else f"PC{r[0]}-{r[-1]}" for r in runs)
    return f"\nunstable under the noise: {text}"


class _Display:
    """What every display shares: ``ax_`` and ``figure_`` after :meth:`plot`."""

    ax_: Any
    figure_: Any

    def _draw(self, ax: Any) -> Any:
        raise NotImplementedError

    def plot(self, ax: Any = None) -> Any:
        """Draw on ``ax`` (a new figure when None) and return the display."""
        self.ax_ = self._draw(ax)
        self.figure_ = self.ax_.figure
        return self


@dataclass(eq=False)
class ScreeDisplay(_Display):
    """Proportions of variance (or variances) by component, one line per series.

    Parameters
    ----------
    values : dict of str to array of shape (k,)
        Keys ``"clipped"``, ``"pmwm"``, ``"huber"`` (private) or ``"non_private"`` pick the style.
    kind : {"pve", "variance"}, default "pve"
    intervals : dict of str to (lower, upper), optional
        Error bars per series (from :meth:`dppca.DPPCAResult.uncertainty`).
    title : str, optional

    Examples
    --------
    >>> import numpy as np
    >>> display = ScreeDisplay({"clipped": np.array([0.6, 0.3, 0.1])}).plot()
    >>> display.ax_.get_ylabel()
    'Proportion of variance explained'
    """

    values: dict[str, np.ndarray]
    kind: str = "pve"
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
    title: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_scree(
            self.values, kind=self.kind, title=self.title, intervals=self.intervals, ax=ax
        )

    @classmethod
    def from_result(
        cls, result: Any, *, non_private: bool = False, uncertainty: Any = None, ax: Any = None
    ) -> ScreeDisplay:
        """The private PVE of a :class:`~dppca.DPPCAResult` (with ``uncertainty``'s error bars)
        or of every method of a :class:`~dppca.ScreeResult`; ``non_private=True`` draws the
        reference instead."""
        prefix, suffix = _titles(non_private)
        title = f"{prefix} proportion of variance{suffix}"
        intervals = None
        if non_private:
            values = {"non_private": np.asarray(_reference(result).pve)}
        elif isinstance(result.pve, dict):  # a ScreeResult: every method
            values = dict(result.pve)
        else:
            method = result.settings["scree_method"]
            values = {method: result.pve}
            title += f"\n(scree {_budget(result, 'scree')})"
            if uncertainty is not None:
                intervals = {method: (uncertainty.pve["lower"], uncertainty.pve["upper"])}
                title += unstable_note(uncertainty)
        return cls(values, intervals=intervals, title=title).plot(ax)


@dataclass(eq=False)
class ScoreHistogramDisplay(_Display):
    """A private 2-D histogram of scores: cells shaded by probability, one colour per group.

    Parameters
    ----------
    tables : DataFrame or dict of label to DataFrame
        Cells (``xmin, xmax, ymin, ymax, prob``), or one table per group.
    limits : ((float, float), (float, float))
        The frame's x and y limits.
    axis_labels : (str, str), default ("PC1", "PC2")
    opacity_max : float, optional
        The probability drawn fully opaque (share it between panels that should compare).
    title : str, optional

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"xmin": [0.0, 1.0], "xmax": [1.0, 2.0], "ymin": [0.0, 0.0],
    ...                       "ymax": [1.0, 1.0], "prob": [0.25, 0.75]})
    >>> display = ScoreHistogramDisplay(cells, ((0.0, 2.0), (0.0, 1.0))).plot()
    >>> [float(limit) for limit in display.ax_.get_xlim()]
    [0.0, 2.0]
    """

    tables: pd.DataFrame | dict[Any, pd.DataFrame]
    limits: tuple[tuple[float, float], tuple[float, float]]
    axis_labels: tuple[str, str] = ("PC1", "PC2")
    opacity_max: float | None = None
    title: str | None = "DP score histogram"

    def _draw(self, ax: Any) -> Any:
        return plot_score_histogram(
            self.tables,
            self.limits,
            axis_labels=self.axis_labels,
            opacity_max=self.opacity_max,
            title=self.title,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        method: str | None = None,
        non_private: bool = False,
        center: bool = True,
        ax: Any = None,
    ) -> ScoreHistogramDisplay:
        """The score histogram of a :class:`~dppca.DPPCAResult` or a :class:`~dppca.ScoreResult`
        (``method``: which of its histograms, default the first), centred on the private frame's
        centre (``center=True``, no budget). ``non_private=True`` draws the empirical histogram
        on the same frame, with the private opacity scale."""
        prefix, suffix = _titles(non_private)
        private = _private_tables(result, method)
        tables = private
        if non_private:
            reference = _reference(result)
            tables = reference.groups if reference.groups is not None else reference.histogram
        if center:
            tables = _shift(tables, result.frame.center)
        title = f"{prefix} score histogram{suffix}"
        if not non_private and hasattr(result, "budgets"):
            title += f"\n({result.settings['score_method']}, score {_budget(result, 'score')})"
        return cls(
            tables,
            result.frame.limits(center=center),
            axis_labels=result.axis_labels,
            opacity_max=_largest(private) or None,
            title=title,
        ).plot(ax)


def _private_tables(result: Any, method: str | None) -> Any:
    """The private histogram (or per-group histograms) of a pipeline or score result."""
    if hasattr(result, "histograms"):  # a ScoreResult: one histogram per method
        name = (
            result.methods[0] if method is None else check_option(method, "method", result.methods)
        )
        if result.groups is not None:
            return {level: tables[name] for level, tables in result.groups.items()}
        return result.histograms[name]
    return result.groups if result.groups is not None else result.histogram


def _largest(tables: Any) -> float:
    if isinstance(tables, dict):
        return max(float(t["prob"].max()) for t in tables.values())
    return float(tables["prob"].max())


def _shift(tables: Any, center: np.ndarray) -> Any:
    if isinstance(tables, dict):
        return {label: shift_cells(table, center) for label, table in tables.items()}
    return shift_cells(tables, center)


@dataclass(eq=False)
class LoadingDisplay(_Display):
    """Loadings of two components as points or arrows, or of several as a heatmap.

    Parameters
    ----------
    loadings : DataFrame
        Index: variables; columns ``PC1..PCp``.
    axes : (int, int), default (1, 2)
    kind : {"point", "vector", "heatmap"}, default "point"
    top : int, optional
        Label only the ``top`` variables with the longest vectors.
    components : int, default 5
        Components of the heatmap.
    limit : float, optional
        The axes' (or colour scale's) half-range; share it between panels that should compare.
    color : str
    intervals : DataFrame, optional
        Whiskers (from :meth:`dppca.DPPCAResult.uncertainty`).
    title : str, optional

    Examples
    --------
    >>> import pandas as pd
    >>> loadings = pd.DataFrame({"PC1": [0.8, 0.6], "PC2": [-0.6, 0.8]}, index=["a", "b"])
    >>> LoadingDisplay(loadings, kind="vector").plot().ax_.get_xlabel()
    'PC1'
    """

    loadings: pd.DataFrame
    axes: tuple[int, int] = (1, 2)
    kind: str = "point"
    top: int | None = None
    components: int = 5
    limit: float | None = None
    color: str = DP_COLOR
    intervals: pd.DataFrame | None = None
    title: str | None = "DP loading plot"

    def __post_init__(self) -> None:
        self.kind = check_option(self.kind, "kind", ("point", "vector", "heatmap"))

    def _draw(self, ax: Any) -> Any:
        if self.kind == "heatmap":
            return plot_loading_heatmap(
                self.loadings,
                components=self.components,
                top=self.top,
                limit=self.limit,
                title=self.title,
                ax=ax,
            )
        return plot_loadings(
            self.loadings,
            axes=self.axes,
            kind=self.kind,
            top=self.top,
            limit=self.limit,
            color=self.color,
            title=self.title,
            intervals=self.intervals,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        kind: str = "point",
        non_private: bool = False,
        top: int | None = 10,
        uncertainty: Any = None,
        ax: Any = None,
    ) -> LoadingDisplay:
        """The private loadings of any result with directions (the pipeline's plotted axes, PC1
        and PC2 otherwise); ``non_private=True`` draws ordinary PCA's, sign-aligned."""
        prefix, suffix = _titles(non_private)
        names = list(result.feature_names)
        directions = _reference_directions(result) if non_private else result.directions
        columns = pc_labels(directions.shape[1])
        loadings = pd.DataFrame(directions, index=names, columns=columns)
        axes = tuple(getattr(result, "axes", (1, 2)))
        title = f"{prefix} loading {'heatmap' if kind == 'heatmap' else 'plot'}{suffix}"
        bands = None if non_private or kind == "heatmap" else uncertainty
        if bands is not None:
            title += unstable_note(bands, axes)
        return cls(
            loadings,
            axes=(axes[0], axes[1]),
            kind=kind,
            top=top,
            components=min(getattr(result, "k", len(columns)), 5),
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            intervals=None if bands is None else bands.loadings,
            title=title,
        ).plot(ax)


def loading_comparison(result: Any, *, kind: str = "point", top: int | None = 10) -> Any:
    """Non-private (left) and private (right) :class:`LoadingDisplay` on one shared scale, the
    reference sign-aligned to the private directions. Needs ``non_private=True``; returns the
    Figure.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 3)) * [3, 2, 1]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, non_private=True, random_state=1)
    >>> len(loading_comparison(result).axes)
    2
    """
    reference = _reference_directions(result)
    axes = tuple(getattr(result, "axes", (1, 2)))
    columns = [axes[0] - 1, axes[1] - 1]
    largest = max(float(np.abs(d[:, columns]).max()) for d in (reference, result.directions))
    figure, (left, right) = pyplot().subplots(1, 2, figsize=(11, 5.5), layout="constrained")
    names = pc_labels(reference.shape[1])
    for directions, ax, non_private in ((reference, left, True), (result.directions, right, False)):
        prefix, suffix = _titles(non_private)
        LoadingDisplay(
            pd.DataFrame(directions, index=list(result.feature_names), columns=names),
            axes=(axes[0], axes[1]),
            kind=kind,
            top=top,
            limit=1.35 * max(largest, 0.1),
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            title=f"{prefix} loading plot{suffix}",
        ).plot(ax)
    return figure


def _reference_directions(result: Any) -> np.ndarray:
    reference = _reference(result)
    return np.asarray(reference.directions)


@dataclass(eq=False)
class VariableDisplay(_Display):
    """Variables as arrows of their correlations with two components, in the unit circle.

    Parameters
    ----------
    coordinates : DataFrame
        Index: variables; two columns of correlations.
    top : int, optional
    color : str
    title : str, optional

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"PC1": [0.9, -0.2], "PC2": [0.1, 0.7]}, index=["a", "b"])
    >>> VariableDisplay(table).plot().ax_.get_title()
    'DP variable plot'
    """

    coordinates: pd.DataFrame
    top: int | None = None
    color: str = DP_COLOR
    title: str | None = "DP variable plot"

    def _draw(self, ax: Any) -> Any:
        return plot_variables(
            self.coordinates, top=self.top, title=self.title, color=self.color, ax=ax
        )

    @classmethod
    def from_result(
        cls, result: Any, *, non_private: bool = False, top: int | None = 10, ax: Any = None
    ) -> VariableDisplay:
        """The variable plot of a :class:`~dppca.DPPCAResult` (post-processing of its release)."""
        prefix, suffix = _titles(non_private)
        if non_private:
            _reference(result)
        return cls(
            result.variable_coordinates(non_private=non_private),
            top=top,
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            title=f"{prefix} variable plot{suffix}",
        ).plot(ax)


@dataclass(eq=False)
class BiplotDisplay(_Display):
    """Synthetic score points from the private histogram with the variables' arrows.

    Parameters
    ----------
    coordinates : BiplotCoordinates
        From :meth:`dppca.DPPCAResult.biplot`.
    feature_names : list of str
    axis_labels : (str, str), default ("PC1", "PC2")
    top : int, optional
    title : str, optional

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 3)) * [3, 2, 1]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, random_state=1)
    >>> private, _ = result.biplot(random_state=0)
    >>> BiplotDisplay(private, result.feature_names, top=2).plot().ax_.get_title()
    'DP biplot'
    """

    coordinates: Any
    feature_names: list[str]
    axis_labels: tuple[str, str] = ("PC1", "PC2")
    top: int | None = None
    title: str | None = "DP biplot"

    def _draw(self, ax: Any) -> Any:
        return plot_biplot(
            self.coordinates,
            self.feature_names,
            axis_labels=self.axis_labels,
            top=self.top,
            title=self.title,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        non_private: bool = False,
        top: int | None = 10,
        center: bool = True,
        random_state: Any = None,
        ax: Any = None,
    ) -> BiplotDisplay:
        """The biplot of a :class:`~dppca.DPPCAResult`: points sampled from its private
        histogram (``random_state``, post-processing), arrows on the private scale."""
        prefix, suffix = _titles(non_private)
        if non_private:
            _reference(result)
        with warnings.catch_warnings():  # an empty histogram is shown by the panel's own note
            warnings.simplefilter("ignore", NoMassWarning)
            private, reference = result.biplot(center=center, random_state=random_state)
        return cls(
            reference if non_private else private,
            result.feature_names,
            axis_labels=result.axis_labels,
            top=top,
            title=f"{prefix} biplot{suffix}",
        ).plot(ax)


class PageDisplay:
    """The five panels of a :class:`~dppca.DPPCAResult` on one figure: scree, score histogram,
    loadings, variables and biplot (a table of displays, ``displays_``; ``ax_`` holds their
    Axes in that order, ``figure_`` the figure).

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, k=3, random_state=1)
    >>> page = PageDisplay.from_result(result, random_state=0)
    >>> sorted(page.displays_)
    ['biplot', 'loading', 'score', 'scree', 'variable']
    """

    PANELS = ("scree", "score", "loading", "variable", "biplot")

    @staticmethod
    def panel_options(
        *, top: int | None, center: bool, random_state: Any, uncertainty: Any
    ) -> dict[str, dict[str, Any]]:
        """Each panel's ``from_result`` options from the page's."""
        return {
            "scree": {"uncertainty": uncertainty},
            "score": {"center": center},
            "loading": {"top": top, "uncertainty": uncertainty},
            "variable": {"top": top},
            "biplot": {"top": top, "center": center, "random_state": random_state},
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
        top: int | None = 10,
        center: bool = True,
        random_state: Any = None,
        uncertainty: Any = None,
    ) -> PageDisplay:
        """Draw every panel (``non_private=True``: the reference's, titled as such)."""
        figure = pyplot().figure(figsize=(16, 10.5), layout="constrained")
        grid = figure.add_gridspec(2, 6)
        slots = [grid[0, 0:2], grid[0, 2:4], grid[0, 4:6], grid[1, 1:3], grid[1, 3:5]]
        options = cls.panel_options(
            top=top, center=center, random_state=random_state, uncertainty=uncertainty
        )
        displays = {}
        for panel, slot in zip(cls.PANELS, slots, strict=True):
            displays[panel] = DISPLAYS[panel].from_result(
                result, non_private=non_private, ax=figure.add_subplot(slot), **options[panel]
            )
        total = result.privacy.total
        figure.suptitle(
            "Non-private PCA (reference: NOT differentially private)"
            if non_private
            else f"Private PCA (g-DPPCA): total ε={total.epsilon:.3g}, δ={total.delta:.2g}",
            fontsize=15,
            fontweight="bold",
        )
        return cls(displays, figure)


#: The display of each panel kind.
DISPLAYS: dict[str, Any] = {
    "scree": ScreeDisplay,
    "score": ScoreHistogramDisplay,
    "loading": LoadingDisplay,
    "variable": VariableDisplay,
    "biplot": BiplotDisplay,
}


def display_result(result: Any, kind: str, kinds: tuple[str, ...], **options: Any) -> Any:
    """The ``.plot(kind)`` of every result type.

    ``"all"`` gives a :class:`PageDisplay`, ``"heatmap"`` a :class:`LoadingDisplay` heatmap, any
    other kind in ``kinds`` its display; ``options`` are that display's ``from_result``
    keywords, and one it does not take is refused.
    """
    kind = check_option(kind, "kind", kinds)
    if "non_private" in options:
        options["non_private"] = check_bool(options["non_private"], "non_private")
    display = (
        PageDisplay if kind == "all" else LoadingDisplay if kind == "heatmap" else DISPLAYS[kind]
    )
    accepted = set(inspect.signature(display.from_result).parameters) - {"result", "kind"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise TypeError(
            f"plot(kind={kind!r}) got option(s) it does not take: {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(accepted))}."
        )
    if kind == "heatmap":
        options["kind"] = "heatmap"
    return display.from_result(result, **options)
