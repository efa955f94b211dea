"""Display objects, in the manner of scikit-learn's ``ConfusionMatrixDisplay``.

A display holds the arrays it draws (``__init__``), draws them with :meth:`plot` (``ax=None``
makes a new figure; the Axes and Figure are kept as ``ax_`` and ``figure_``) and is built from a
result with ``from_result``, which also plots. Every result type has ``.plot(kind)``, which
returns the display; a display given a result it cannot draw raises a ``TypeError`` naming the
types it takes. Drawing spends no privacy budget: displays show released values and their
post-processing; non-private references are drawn only when asked and are titled as such.

Figures of several displays are in :mod:`dppca.plotting.pages`.
"""

from __future__ import annotations

import textwrap
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_option
from dppca.numerics.linalg import orient_columns, pc_labels
from dppca.plotting._results import check_result, is_result
from dppca.plotting._style import DP_COLOR, NONPRIVATE_COLOR, axes_or_new, finish, note
from dppca.plotting.loadings import as_loadings, plot_loading_heatmap, plot_loadings
from dppca.plotting.scores import plot_score_histogram, plot_score_points
from dppca.plotting.scree import plot_scree, scree_series
from dppca.plotting.variables import plot_biplot, plot_variables
from dppca.releases.notes import POOLED_SCREE
from dppca.releases.sampling import SAMPLING_METHODS, NoMassWarning, sample_scores
from dppca.releases.scores import check_axes, shift_cells

#: Shown under a variable plot of a release with k = 2 estimated components.
TWO_COMPONENTS_CAPTION = (
    "With k = 2 estimated components every arrow has length 1: the lengths carry no "
    "information. Estimate more components (k) to see how well each variable is represented."
)


def version_titles(non_private: bool) -> tuple[str, str]:
    return ("Non-private", " (reference)") if non_private else ("DP", "")


#: The ledger components of each part of a pipeline's budget named in a caption.
_CAPTIONED = {"scree": ("scree",), "score": ("score.frame", "score.histogram")}


def _budget(result: Any, part: str) -> str:
    """What the releases of ``part`` spent together, from the ledger (under tight composition
    a part spends more than its share of the total)."""
    spent = result.privacy.select(*_CAPTIONED[part]).total
    return f"ε={spent.epsilon:.3g}, δ={spent.delta:.2g}"


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
class UnusableDisplay(_Display):
    """The panel of a release marked unusable (:mod:`dppca.releases.status`): its title and,
    in place of the values (released as NaN), what happened.

    Examples
    --------
    >>> from dppca.plotting import UnusableDisplay
    >>> display = UnusableDisplay("DP score histogram", "frame", "misplaced: it misses the data")
    >>> "not usable" in display.plot().ax_.texts[0].get_text()
    True
    """

    title: str
    release: str
    reason: str

    def _draw(self, ax: Any) -> Any:
        ax = axes_or_new(ax)
        ax.set_xticks([])
        ax.set_yticks([])
        finish(ax, self.title)
        note(ax, textwrap.fill(f"The {self.release} is not usable: {self.reason}", 40))
        return ax


def unusable(result: Any, names: tuple[str, ...], title: str, ax: Any) -> Any:
    """An :class:`UnusableDisplay` drawn on ``ax`` when one of the result's releases ``names``
    is marked unusable, or None."""
    for name in names:
        status = getattr(result, "status", {}).get(name)
        if status is not None and not status.usable:
            return UnusableDisplay(title, name, str(status)).plot(ax)
    return None


def status_caption(result: Any, names: tuple[str, ...]) -> str | None:
    """A caption naming the result's releases ``names`` that are usable but not ok
    (noise-dominated, too wide, guessed), or None."""
    flagged = []
    for name in names:
        status = getattr(result, "status", {}).get(name)
        if status is not None and status.usable and status.state != "ok":
            flagged.append(f"the {name} is {status.state}")
    if not flagged:
        return None
    return "Caution: " + "; ".join(flagged) + " (see result.status)."


@dataclass(eq=False)
class ScreeDisplay(_Display):
    """Proportions of variance (or variances) by component, one line per series.

    Parameters
    ----------
    values : dict of str to array of shape (k,)
        Keys ``"clipped"``, ``"pmwm"``, ``"huber"`` (private) or ``"non_private"`` pick the style.
    kind : {"pve", "scree"}, default "pve"
        Proportions of variance, or the variances (eigenvalues) themselves.
    intervals : dict of str to (lower, upper), optional
        Error bars per series (from :meth:`dppca.DPPCAResult.uncertainty`).
    title : str, optional
    caption : str, optional
        A note under the panel.

    Examples
    --------
    >>> from dppca.plotting import ScreeDisplay
    >>> import numpy as np
    >>> display = ScreeDisplay({"clipped": np.array([0.6, 0.3, 0.1])}).plot()
    >>> display.ax_.get_ylabel()
    'Proportion of variance explained'
    """

    values: dict[str, np.ndarray]
    kind: str = "pve"
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
    title: str | None = None
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_scree(
            self.values,
            kind=self.kind,
            title=self.title,
            intervals=self.intervals,
            caption=self.caption,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        non_private: bool = False,
        kind: str = "pve",
        display_k: int | None = None,
        uncertainty: Any = None,
        ax: Any = None,
    ) -> ScreeDisplay:
        """The private PVE (``kind="scree"``: the variances) of a :class:`~dppca.DPPCAResult`,
        with ``uncertainty``'s error bars, or of every method of a
        :class:`~dppca.ScreeResult` on one panel. ``non_private=True`` draws the pipeline's
        reference instead, and adds the reference to a scree result's methods (as the R
        package's ``dp_scree_plot``). ``display_k`` shows the first components only (the
        proportions keep their denominator over all ``k``)."""
        check_result(result, "ScreeDisplay", "DPPCAResult", "ScreeResult")
        kind = check_option(kind, "kind", ("pve", "scree"))
        prefix, suffix = version_titles(non_private)
        what = "proportion of variance" if kind == "pve" else "variances (scree)"
        title = f"{prefix} {what}{suffix}"
        if not non_private:
            marked = unusable(result, ("scree",), title, ax)
            if marked is not None:
                return marked
        intervals = None
        if isinstance(result.pve, dict):  # a ScreeResult: every method, and the reference
            values = scree_series(result, kind)
            if non_private:
                reference = _reference(result)
                values["non_private"] = reference.pve if kind == "pve" else reference.eigenvalues
                title = f"DP {what}\nwith the non-private reference"
        elif non_private:
            reference = _reference(result)
            values = {"non_private": reference.pve if kind == "pve" else reference.eigenvalues}
        else:
            method = result.settings["scree_method"]
            values = scree_series(result, kind)
            title += f"\n(scree {_budget(result, 'scree')})"
            if uncertainty is not None:
                table = uncertainty.pve if kind == "pve" else uncertainty.scree
                intervals = {method: (table["lower"].to_numpy(), table["upper"].to_numpy())}
                title += unstable_note(uncertainty)
        k = len(next(iter(values.values())))
        caption = None if non_private else status_caption(result, ("scree",))
        if not non_private and any(
            note.startswith(POOLED_SCREE) for note in getattr(result, "notes", ())
        ):
            pooled = "The variances along the directions increase somewhere: the fit pooled them."
            caption = " ".join(filter(None, [caption, pooled]))
        if display_k is not None:
            shown = int(display_k)
            if isinstance(display_k, bool) or shown != display_k or not 1 <= shown <= k:
                raise ValueError(f"display_k must be an integer in [1, k={k}]; got {display_k!r}.")
            values = {name: np.asarray(series)[:shown] for name, series in values.items()}
            if intervals is not None:
                intervals = {
                    name: (low[:shown], high[:shown]) for name, (low, high) in intervals.items()
                }
            if shown < k and kind == "pve":
                caption = " ".join(
                    filter(None, [caption, f"Proportions are over all k = {k} components."])
                )
        return cls(values, kind=kind, intervals=intervals, title=title, caption=caption).plot(ax)


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
    legend : bool, default True
        The groups' legend.
    caption : str, optional

    Examples
    --------
    >>> from dppca.plotting import ScoreHistogramDisplay
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
    legend: bool = True
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_score_histogram(
            self.tables,
            self.limits,
            axis_labels=self.axis_labels,
            opacity_max=self.opacity_max,
            title=self.title,
            legend=self.legend,
            caption=self.caption,
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
        legend: bool = True,
        ax: Any = None,
    ) -> ScoreHistogramDisplay:
        """The score histogram of a :class:`~dppca.DPPCAResult` or a :class:`~dppca.ScoreResult`
        (``method``: which of its histograms, default the first), centred on the private frame's
        centre (``center=True``, no budget). ``non_private=True`` draws the empirical histogram
        on the same frame, with the private opacity scale."""
        check_result(result, "ScoreHistogramDisplay", "DPPCAResult", "ScoreResult")
        prefix, suffix = version_titles(non_private)
        marked = unusable(result, ("frame", "histogram"), f"{prefix} score histogram{suffix}", ax)
        if marked is not None:
            return marked
        private = _private_tables(result, method)
        tables = private
        if non_private:
            reference = _reference(result)
            tables = reference.groups if reference.groups is not None else reference.histogram
        if center:
            tables = _shift(tables, result.frame.center)
        title = f"{prefix} score histogram{suffix}"
        if not non_private:
            name = (
                result.settings["score_method"]
                if method is None and not hasattr(result, "histograms")
                else (method or result.methods[0])
            )
            spent = f", score {_budget(result, 'score')}" if hasattr(result, "budgets") else ""
            title += f"\n({name}{spent})"
        return cls(
            tables,
            result.frame.limits(center=center),
            axis_labels=result.axis_labels,
            opacity_max=_largest(private) or None,
            title=title,
            legend=legend,
            caption=frame_caption(result),
        ).plot(ax)


@dataclass(eq=False)
class ScorePointsDisplay(_Display):
    """Score points: synthetic draws from a private histogram (or, as the reference, the
    observed scores), coloured by group.

    Parameters
    ----------
    points : DataFrame
        Two coordinate columns and optionally ``group``.
    limits : ((float, float), (float, float)), optional
    title : str, optional
    legend : bool, default True
    caption : str, optional

    Examples
    --------
    >>> from dppca.plotting import ScorePointsDisplay
    >>> import pandas as pd
    >>> points = pd.DataFrame({"PC1": [0.0, 1.0], "PC2": [1.0, 0.0]})
    >>> ScorePointsDisplay(points).plot().ax_.get_title()
    'DP synthetic scores'
    """

    points: pd.DataFrame
    limits: tuple[tuple[float, float], tuple[float, float]] | None = None
    title: str | None = "DP synthetic scores"
    legend: bool = True
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_score_points(
            self.points,
            self.limits,
            title=self.title,
            legend=self.legend,
            caption=self.caption,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        method: str | None = None,
        non_private: bool = False,
        sampling: str = "uniform",
        n_points: int | None = None,
        bandwidth_scale: float | None = None,
        center: bool = True,
        random_state: Any = None,
        legend: bool = True,
        ax: Any = None,
    ) -> ScorePointsDisplay:
        """Synthetic points drawn from the private histogram of a :class:`~dppca.DPPCAResult`
        or :class:`~dppca.ScoreResult` (``sampling``: ``"uniform"`` or ``"center"``,
        post-processing with ``random_state``); ``non_private=True`` draws the observed scores
        (the reference scatter)."""
        check_result(result, "ScorePointsDisplay", "DPPCAResult", "ScoreResult")
        sampling = check_option(sampling, "sampling", SAMPLING_METHODS)
        title = "Non-private scatter (reference)" if non_private else "DP synthetic scores"
        marked = unusable(result, ("frame", "histogram"), title, ax)
        if marked is not None:
            return marked
        if non_private:
            points = _reference(result).scores.copy()
            if center:
                points[list(result.axis_labels)] -= result.frame.center
            title = "Non-private scatter (reference)"
        else:
            with warnings.catch_warnings():  # an empty histogram is shown by the panel's note
                warnings.simplefilter("ignore", NoMassWarning)
                points = sample_scores(
                    result,
                    n=n_points,
                    method=sampling,
                    bandwidth_scale=bandwidth_scale,
                    random_state=random_state,
                    histogram=method,
                    center=center,
                )
            source = method or (
                result.methods[0] if hasattr(result, "methods") else result.settings["score_method"]
            )
            title = f"DP synthetic scores\n({source} histogram, {sampling} sampling)"
        return cls(
            points,
            result.frame.limits(center=center),
            title=title,
            legend=legend,
            caption=frame_caption(result),
        ).plot(ax)


def frame_caption(result: Any) -> str | None:
    """The caption of a score panel: a warning when the frame or the histogram is flagged."""
    return status_caption(result, ("frame", "histogram"))


def _private_tables(result: Any, method: str | None) -> Any:
    """The private histogram (or per-group histograms) of a pipeline or score result."""
    if hasattr(result, "histograms"):  # a ScoreResult: one histogram per method
        name = (
            result.methods[0] if method is None else check_option(method, "method", result.methods)
        )
        if result.groups is not None:
            return {level: tables[name] for level, tables in result.groups.items()}
        return result.histograms[name]
    if method is not None:
        check_option(method, "method", [result.settings["score_method"]])
    return result.groups if result.groups is not None else result.histogram


def _largest(tables: Any) -> float:
    if isinstance(tables, dict):
        return max(float(t["prob"].max()) for t in tables.values())
    return float(tables["prob"].max())


def _shift(tables: Any, center: np.ndarray) -> Any:
    if isinstance(tables, dict):
        return {label: shift_cells(table, center) for label, table in tables.items()}
    return shift_cells(tables, center)


def directions_of(result: Any, display: str = "LoadingDisplay") -> tuple[np.ndarray, list[str]]:
    """The directions (columns) and variable names of anything with directions: a result, a
    fitted :class:`~dppca.DPPCA`, a DataFrame or an array (``display`` names the caller in the
    error for anything else)."""
    try:
        loadings = as_loadings(result, "result", display)
    except TypeError:
        raise TypeError(
            f"{display} draws a DPPCAResult, LoadingResult, ScreeResult, ScoreResult, a "
            f"fitted DPPCA, a DataFrame of loadings or an array of directions; got "
            f"{type(result).__name__}."
        ) from None
    return loadings.to_numpy(), [str(name) for name in loadings.index]


def plotted_axes(result: Any) -> tuple[int, int]:
    """The components a pipeline or score result plots; PC1 and PC2 for anything else."""
    if is_result(result, "DPPCAResult", "ScoreResult"):
        return (int(result.axes[0]), int(result.axes[1]))
    return (1, 2)


def reference_directions(result: Any, align_sign: bool = True) -> np.ndarray:
    """Ordinary PCA's directions of a result's reference: sign-aligned to the private ones, or
    (``align_sign=False``) with their own sign convention (largest entry positive)."""
    reference = _reference(result)
    directions = np.asarray(reference.directions)
    return directions if align_sign else orient_columns(directions)


@dataclass(eq=False)
class LoadingDisplay(_Display):
    """Loadings of two components as points or arrows, or of several as a heatmap.

    Parameters
    ----------
    loadings : DataFrame or array of shape (p, q)
        Index: variables; columns ``PC1..PCq`` (an array: directions in columns).
    axes : (int, int), default (1, 2)
    kind : {"point", "vector", "heatmap"}, default "point"
    variables : None, "all", int or list of str, optional
        All variables, the ``variables`` with the longest vectors, or those named.
    components : int or sequence of int, default 5
        Components of the heatmap: the first ``components``, or the PC numbers given.
    limit : float, optional
        The axes' (or colour scale's) half-range; share it between panels that should compare.
    color : str
    intervals : DataFrame, optional
        Whiskers (from :meth:`dppca.DPPCAResult.uncertainty`).
    title : str, optional
    labels : bool, default True
        Name the variables.
    values : bool, default True
        Write the loadings in the heatmap's cells, with ``digits`` decimals (default 2).

    Examples
    --------
    >>> from dppca.plotting import LoadingDisplay
    >>> import pandas as pd
    >>> loadings = pd.DataFrame({"PC1": [0.8, 0.6], "PC2": [-0.6, 0.8]}, index=["a", "b"])
    >>> LoadingDisplay(loadings, kind="vector").plot().ax_.get_xlabel()
    'PC1'
    """

    loadings: Any
    axes: tuple[int, int] = (1, 2)
    kind: str = "point"
    variables: Any = None
    components: Any = 5
    limit: float | None = None
    color: str = DP_COLOR
    intervals: pd.DataFrame | None = None
    title: str | None = "DP loading plot"
    labels: bool = True
    values: bool = True
    digits: int = 2

    def __post_init__(self) -> None:
        self.kind = check_option(self.kind, "kind", ("point", "vector", "heatmap"))
        self.loadings = as_loadings(self.loadings, "loadings", "LoadingDisplay")
        self.labels = check_bool(self.labels, "labels")
        self.values = check_bool(self.values, "values")
        if self.kind != "heatmap":
            self.axes = check_axes(self.axes, self.loadings.shape[1])

    def _draw(self, ax: Any) -> Any:
        if self.kind == "heatmap":
            return plot_loading_heatmap(
                self.loadings,
                components=self.components,
                variables=self.variables,
                limit=self.limit,
                values=self.values,
                digits=self.digits,
                title=self.title,
                ax=ax,
            )
        return plot_loadings(
            self.loadings,
            axes=self.axes,
            kind=self.kind,
            variables=self.variables,
            limit=self.limit,
            color=self.color,
            title=self.title,
            intervals=self.intervals,
            labels=self.labels,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        kind: str = "point",
        non_private: bool = False,
        variables: Any = 10,
        labels: bool = True,
        align_sign: bool = True,
        axes: tuple[int, int] | None = None,
        components: Any = None,
        limit: float | None = None,
        values: bool = True,
        digits: int = 2,
        uncertainty: Any = None,
        ax: Any = None,
    ) -> LoadingDisplay:
        """The loadings of any result with directions, of a fitted :class:`~dppca.DPPCA`, or of
        a DataFrame or array (the pipeline's plotted axes, PC1 and PC2 otherwise).
        ``non_private=True`` draws ordinary PCA's, sign-aligned to the private directions
        unless ``align_sign=False``. ``components`` (the heatmap's): a number (default up to
        5) or PC numbers; ``values`` and ``digits``: the heatmap's cell text."""
        prefix, suffix = version_titles(non_private)
        directions, names = directions_of(result)
        if non_private:
            directions = reference_directions(result, check_bool(align_sign, "align_sign"))
        columns = pc_labels(directions.shape[1])
        loadings = pd.DataFrame(directions, index=names, columns=columns)
        chosen = axes if axes is not None else plotted_axes(result)
        title = f"{prefix} loading {'heatmap' if kind == 'heatmap' else 'plot'}{suffix}"
        bands = None if non_private or kind == "heatmap" else uncertainty
        if bands is not None:
            title += unstable_note(bands, chosen)
        directions_status = getattr(result, "status", {}).get("directions")
        if not non_private and directions_status is not None and directions_status.state != "ok":
            title += f"\n(directions {directions_status.state})"
        if components is None:
            components = default_components(result, directions)
        return cls(
            loadings,
            axes=(chosen[0], chosen[1]),
            kind=kind,
            variables=variables,
            components=components,
            limit=limit,
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            intervals=None if bands is None else bands.loadings,
            title=title,
            labels=labels,
            values=values,
            digits=digits,
        ).plot(ax)


def default_components(result: Any, directions: np.ndarray) -> int:
    """The heatmap's components by default: the released ``k`` of a pipeline or scree result
    (all directions otherwise), at most 5."""
    known = is_result(result, "DPPCAResult", "ScreeResult")
    return min(int(result.k) if known else directions.shape[1], 5)


@dataclass(eq=False)
class VariableDisplay(_Display):
    """Variables as arrows (or points) of their correlations with two components, in the unit
    circle.

    Parameters
    ----------
    coordinates : DataFrame
        Index: variables; two columns of correlations.
    variables : None, "all", int or list of str, optional
    kind : {"vector", "point"}, default "vector"
    circle : bool, default True
        Draw the unit circle.
    color : str
    title : str, optional
    labels : bool, default True
    caption : str, optional

    Examples
    --------
    >>> from dppca.plotting import VariableDisplay
    >>> import pandas as pd
    >>> table = pd.DataFrame({"PC1": [0.9, -0.2], "PC2": [0.1, 0.7]}, index=["a", "b"])
    >>> VariableDisplay(table).plot().ax_.get_title()
    'DP variable plot'
    """

    coordinates: pd.DataFrame
    variables: Any = None
    kind: str = "vector"
    circle: bool = True
    color: str = DP_COLOR
    title: str | None = "DP variable plot"
    labels: bool = True
    caption: str | None = None

    def _draw(self, ax: Any) -> Any:
        return plot_variables(
            self.coordinates,
            variables=self.variables,
            kind=self.kind,
            circle=self.circle,
            title=self.title,
            color=self.color,
            labels=self.labels,
            caption=self.caption,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        non_private: bool = False,
        variables: Any = 10,
        kind: str = "vector",
        circle: bool = True,
        labels: bool = True,
        ax: Any = None,
    ) -> VariableDisplay:
        """The variable plot of a :class:`~dppca.DPPCAResult` (post-processing of its release),
        in the unit circle unless ``circle=False``; with ``k = 2`` a caption says that every
        arrow then has length 1."""
        check_result(result, "VariableDisplay", "DPPCAResult")
        prefix, suffix = version_titles(non_private)
        if non_private:
            _reference(result)
        else:
            marked = unusable(result, ("scree",), f"{prefix} variable plot{suffix}", ax)
            if marked is not None:
                return marked
        return cls(
            result.variable_coordinates(non_private=non_private),
            variables=variables,
            kind=kind,
            circle=check_bool(circle, "circle"),
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            title=f"{prefix} variable plot{suffix}",
            labels=labels,
            caption=TWO_COMPONENTS_CAPTION if result.k == 2 and not non_private else None,
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
    variables : None, "all", int or list of str, optional
    labels : bool, default True
    title : str, optional
    points_label : str
        The legend entry of the points.

    Examples
    --------
    >>> from dppca.plotting import BiplotDisplay
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(600, 3)) * [3, 2, 1]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, random_state=1)
    >>> private, _ = result.biplot(random_state=0)
    >>> BiplotDisplay(private, result.feature_names, variables=2).plot().ax_.get_title()
    'DP biplot'
    """

    coordinates: Any
    feature_names: list[str]
    axis_labels: tuple[str, str] = ("PC1", "PC2")
    variables: Any = None
    labels: bool = True
    title: str | None = "DP biplot"
    points_label: str = "synthetic scores (drawn from the private histogram)"

    def _draw(self, ax: Any) -> Any:
        return plot_biplot(
            self.coordinates,
            self.feature_names,
            axis_labels=self.axis_labels,
            variables=self.variables,
            labels=self.labels,
            title=self.title,
            points_label=self.points_label,
            ax=ax,
        )

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        non_private: bool = False,
        variables: Any = 10,
        labels: bool = True,
        alpha: float = 0.0,
        center: bool = True,
        random_state: Any = None,
        ax: Any = None,
    ) -> BiplotDisplay:
        """The biplot of a :class:`~dppca.DPPCAResult`: points sampled from its private
        histogram (``random_state``, post-processing), arrows on the private scale; ``alpha``
        in [0, 1] moves the eigenvalues' weight from the arrows (0) to the points (1)."""
        check_result(result, "BiplotDisplay", "DPPCAResult")
        prefix, suffix = version_titles(non_private)
        if non_private:
            _reference(result)
        marked = unusable(result, ("scree", "frame", "histogram"), f"{prefix} biplot{suffix}", ax)
        if marked is not None:
            return marked
        with warnings.catch_warnings():  # an empty histogram is shown by the panel's own note
            warnings.simplefilter("ignore", NoMassWarning)
            private, reference = result.biplot(
                alpha=alpha, center=center, random_state=random_state
            )
        return cls(
            reference if non_private else private,
            result.feature_names,
            axis_labels=result.axis_labels,
            variables=variables,
            labels=labels,
            title=f"{prefix} biplot{suffix}",
            points_label="observed scores (NOT private)"
            if non_private
            else "synthetic scores (drawn from the private histogram)",
        ).plot(ax)


#: The display of each panel kind.
DISPLAYS: dict[str, Any] = {
    "scree": ScreeDisplay,
    "score": ScoreHistogramDisplay,
    "sample": ScorePointsDisplay,
    "loading": LoadingDisplay,
    "variable": VariableDisplay,
    "biplot": BiplotDisplay,
}
