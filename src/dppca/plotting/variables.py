"""The variable (correlation) plot and the biplot."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_option
from dppca.numerics.biplot import BiplotCoordinates
from dppca.plotting._display import Display, reference_of, unusable, version_titles
from dppca.plotting._results import check_result, is_result, refuse
from dppca.plotting._style import (
    BIPLOT_ARROW_COLOR,
    BIPLOT_POINT_COLOR,
    DP_COLOR,
    NONPRIVATE_COLOR,
    axes_or_new,
    caption_below,
    draw_arrows,
    finish,
    finish_square,
    label_points,
    labels_ready,
    note,
)
from dppca.plotting.loadings import select_variables
from dppca.results.sampling import NoMassWarning


def plot_variables(
    coordinates: Any,
    *,
    variables: Any = None,
    kind: str = "vector",
    circle: bool = True,
    color: str = DP_COLOR,
    title: str | None = "DP variable plot",
    labels: bool = True,
    caption: str | None = None,
    ax: Any = None,
):
    """Variable correlations with two components as arrows (or points), with the unit circle.

    ``coordinates`` is a DataFrame of variables by two components (for example
    ``result.variable_coordinates()``), or a :class:`~dppca.DPPCAResult`, whose private
    coordinates are drawn; NaN rows (no variance in the estimated components) are left out.
    ``variables`` selects the variables shown (see :func:`~dppca.plotting.loadings.plot_loadings`);
    ``circle`` draws the unit circle; ``caption`` is a note under the panel.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_variables
    >>> import pandas as pd
    >>> table = pd.DataFrame({"PC1": [0.9, -0.2], "PC2": [0.1, 0.7]}, index=["a", "b"])
    >>> [float(limit) for limit in plot_variables(table, kind="point").get_xlim()]
    [-1.15, 1.15]
    """
    from matplotlib.patches import Circle

    kind = check_option(kind, "kind", ("vector", "point"))
    if is_result(coordinates, "DPPCAResult"):
        coordinates = coordinates.variable_coordinates()
    elif not isinstance(coordinates, pd.DataFrame):
        refuse(
            coordinates,
            "coordinates",
            "plot_variables",
            "a DataFrame of variables by two components or a DPPCAResult",
            "Correlations need the private scree values of dp_pca."
            if is_result(coordinates)
            else "",
        )
    columns = list(coordinates.columns[:2])
    shown = select_variables(coordinates.dropna(), columns, variables)
    tips = shown[columns].to_numpy()
    ax = axes_or_new(ax)
    ax.axhline(0, color="0.75", linestyle="--", linewidth=0.6)
    ax.axvline(0, color="0.75", linestyle="--", linewidth=0.6)
    if circle:
        ax.add_patch(
            Circle(
                (0, 0),
                1.0,
                fill=False,
                linestyle="--",
                edgecolor="0.6",
                linewidth=0.8,
                gid="unit circle",
            )
        )
        limit = 1.15
    else:
        limit = 1.2 * max(float(np.max(np.abs(tips))) if len(tips) else 0.1, 0.1)
    if kind == "vector":
        draw_arrows(ax, tips, color)
    else:
        ax.scatter(tips[:, 0], tips[:, 1], s=22, color=color, alpha=0.9, zorder=3, gid="points")
    if caption:
        caption_below(ax, caption)
    names = [str(name) for name in shown.index] if labels else []
    finish_square(ax, tips if labels else tips[:0], names, color, limit, title, columns)
    return ax


def plot_biplot(
    biplot: BiplotCoordinates,
    names: list[str],
    *,
    axis_labels: tuple[str, str] = ("PC1", "PC2"),
    variables: Any = None,
    labels: bool = True,
    title: str | None = "DP biplot",
    points_label: str = "synthetic scores (drawn from the private histogram)",
    ax: Any = None,
):
    """Grey score points and variable arrows (coordinates from ``biplot_coordinates`` or
    :meth:`dppca.DPPCAResult.biplot`); the points are named in a legend (``points_label``).
    A result is refused: its points are drawn at random, which
    :class:`~dppca.plotting.BiplotDisplay` does (``result.plot("biplot", random_state=...)``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_biplot
    >>> import numpy as np
    >>> from dppca.numerics.biplot import biplot_coordinates
    >>> points = np.random.default_rng(0).normal(size=(200, 2))
    >>> coordinates = biplot_coordinates(points, np.eye(3), np.array([4.0, 1.0, 0.5]), (1, 2), 200)
    >>> ax = plot_biplot(coordinates, ["a", "b", "c"])
    >>> ax.get_legend().get_texts()[0].get_text()
    'synthetic scores (drawn from the private histogram)'
    """
    if not isinstance(biplot, BiplotCoordinates):
        refuse(
            biplot,
            "biplot",
            "plot_biplot",
            "BiplotCoordinates (from DPPCAResult.biplot)",
            'BiplotDisplay.from_result(result) or result.plot("biplot") draws a DPPCAResult.'
            if is_result(biplot)
            else "",
        )
    ax = axes_or_new(ax)
    if len(biplot.points):
        ax.scatter(
            biplot.points[:, 0],
            biplot.points[:, 1],
            s=4,
            color=BIPLOT_POINT_COLOR,
            alpha=0.6,
            linewidths=0,
            gid="points",
            label=points_label,
        )
        ax.legend(loc="lower right", fontsize=7, frameon=False, markerscale=2.5)
    arrows = pd.DataFrame(biplot.arrows, index=names, columns=list(axis_labels))
    shown = select_variables(arrows, list(axis_labels), variables)
    if biplot.arrow_scale > 0:
        tips = shown.to_numpy()
        draw_arrows(ax, tips, BIPLOT_ARROW_COLOR)
        span = (biplot.xlim[1] - biplot.xlim[0]) if biplot.xlim else 2 * biplot.score_radius
        if labels:
            label_points(ax, tips, [str(n) for n in shown.index], BIPLOT_ARROW_COLOR, span / 2)
    if biplot.note:
        ax.text(0.02, 0.02, biplot.note, transform=ax.transAxes, fontsize=7, color="0.4")
    if not len(biplot.points) and biplot.arrow_scale == 0:
        note(ax, "No synthetic points to draw")
    if biplot.xlim is not None and biplot.ylim is not None:
        ax.set_xlim(*biplot.xlim)
        ax.set_ylim(*biplot.ylim)
    ax.set_aspect("equal")
    finish(ax, title, axis_labels[0], axis_labels[1])
    labels_ready(ax)
    return ax


#: Shown under a variable plot of a release with k = 2 estimated components.
TWO_COMPONENTS_CAPTION = (
    "With k = 2 estimated components every arrow has length 1: the lengths carry no "
    "information. Estimate more components (k) to see how well each variable is represented."
)


@dataclass(eq=False)
class VariableDisplay(Display):
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
        axes: tuple[int, int] | None = None,
        ax: Any = None,
    ) -> VariableDisplay:
        """The variable plot of a :class:`~dppca.DPPCAResult` (post-processing of its release),
        on the score axes or on ``axes`` (at most ``k``), in the unit circle unless
        ``circle=False``; with ``k = 2`` a caption says that every arrow then has length 1."""
        check_result(result, "VariableDisplay", "DPPCAResult")
        prefix, suffix = version_titles(non_private)
        if non_private:
            reference_of(result)
        else:
            marked = unusable(result, ("scree",), f"{prefix} variable plot{suffix}", ax)
            if marked is not None:
                return marked
        return cls(
            result.variable_coordinates(non_private=non_private, axes=axes),
            variables=variables,
            kind=kind,
            circle=check_bool(circle, "circle"),
            color=NONPRIVATE_COLOR if non_private else DP_COLOR,
            title=f"{prefix} variable plot{suffix}",
            labels=labels,
            caption=TWO_COMPONENTS_CAPTION if result.k == 2 and not non_private else None,
        ).plot(ax)


@dataclass(eq=False)
class BiplotDisplay(Display):
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
            reference_of(result)
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
