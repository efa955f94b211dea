"""Loading plots: vectors, points and a heatmap of private (or reference) directions."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_option, check_positive_int
from dppca.numerics.linalg import axis_labels, pc_labels
from dppca.plotting._display import (
    Display,
    plotted_axes,
    reference_directions,
    unstable_note,
    version_titles,
)
from dppca.plotting._results import is_result, refuse
from dppca.plotting._style import (
    DP_COLOR,
    HEATMAP_HIGH,
    HEATMAP_LOW,
    NONPRIVATE_COLOR,
    axes_or_new,
    draw_arrows,
    finish_square,
)
from dppca.releases.scores import check_axes

LOADING_KINDS = ("vector", "point")


def as_loadings(loadings: Any, name: str, function: str) -> pd.DataFrame:
    """Loadings as a DataFrame (variables by ``PC1..PCq``): a DataFrame as it is; the private
    directions of a result (:class:`~dppca.DPPCAResult`, :class:`~dppca.LoadingResult`,
    :class:`~dppca.ScreeResult`, :class:`~dppca.ScoreResult`) or of a fitted
    :class:`~dppca.DPPCA`, named by its variables; or a 2-D array of directions in columns
    (variables ``X1..Xp``). Anything else is a ``TypeError`` naming ``name`` of ``function``."""
    if isinstance(loadings, pd.DataFrame):
        return loadings
    names = None
    if is_result(loadings):
        array, names = np.asarray(loadings.directions), list(loadings.feature_names)
    elif hasattr(loadings, "components_"):  # a fitted DPPCA: components in rows
        array = np.asarray(loadings.components_).T
        names = [str(n) for n in getattr(loadings, "feature_names_in_", [])] or None
    else:
        try:
            array = np.asarray(loadings, dtype=float)
        except (TypeError, ValueError):
            array = None
    if array is None or array.ndim != 2 or not np.isfinite(array).all():
        refuse(
            loadings,
            name,
            function,
            "a DataFrame of loadings, a 2-D array of finite directions (one column per "
            "component), a DPPCAResult, LoadingResult, ScreeResult, ScoreResult or a fitted DPPCA",
        )
    return pd.DataFrame(
        array,
        index=names or [f"X{j + 1}" for j in range(array.shape[0])],
        columns=pc_labels(array.shape[1]),
    )


def select_variables(loadings: pd.DataFrame, columns: list[str], variables: Any) -> pd.DataFrame:
    """The rows to show: all (``None`` or ``"all"``), the ``variables`` rows with the longest
    vectors on ``columns`` (a number), or the variables named (a list, in its order)."""
    if variables is None or (isinstance(variables, str) and variables == "all"):
        return loadings
    if isinstance(variables, numbers.Integral) and not isinstance(variables, bool):
        count = check_positive_int(variables, "variables")
        norms = np.hypot.reduce(loadings[columns].to_numpy(), axis=1)
        order = np.argsort(-norms, kind="stable")[:count]
        return loadings.iloc[np.sort(order)]
    if isinstance(variables, str) or not isinstance(variables, Sequence | np.ndarray | pd.Index):
        raise TypeError(
            "variables must be None, 'all', a number of variables or a list of variable names; "
            f"got {variables!r}."
        )
    names = [str(name) for name in variables]
    unknown = [name for name in names if name not in loadings.index]
    if unknown:
        raise ValueError(f"Unknown variables: {', '.join(unknown)}.")
    return loadings.loc[names]


def plot_loadings(
    loadings: Any,
    *,
    axes: tuple[int, int] = (1, 2),
    kind: str = "point",
    variables: Any = None,
    limit: float | None = None,
    color: str = DP_COLOR,
    title: str | None = "DP loading plot",
    intervals: pd.DataFrame | None = None,
    labels: bool = True,
    ax: Any = None,
):
    """Variables as arrows or points in the plane of two principal directions.

    Parameters
    ----------
    loadings : DataFrame, array of shape (p, q), result or fitted DPPCA
        Variables (index) by components ``PC1..PCq`` (for example ``result.loadings``),
        directions in columns, or the private directions of a :class:`~dppca.DPPCAResult`,
        :class:`~dppca.LoadingResult`, :class:`~dppca.ScreeResult`,
        :class:`~dppca.ScoreResult` or a fitted :class:`~dppca.DPPCA`.
    axes : (int, int), default (1, 2)
    kind : {"point", "vector"}, default "point"
    variables : None, "all", int or list of str, optional
        All variables, the ``variables`` with the longest vectors in this plane, or the
        variables named.
    limit : float, optional
        Half-width of the square axes; default 1.35 times the largest coordinate (pass the same
        value to panels that should share a scale).
    color : str
    title : str or None
    intervals : DataFrame, optional
        Whiskers: rows ``variable``, ``component``, ``lower``, ``upper`` (the ``loadings`` table
        of :meth:`~dppca.DPPCAResult.uncertainty`).
    labels : bool, default True
        Name the variables (moved apart from each other and the points).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Drawing spends no privacy budget: it only shows released directions.

    Examples
    --------
    >>> from dppca.plotting import plot_loadings
    >>> import numpy as np
    >>> ax = plot_loadings(np.eye(3), kind="vector")
    >>> ax.get_xlabel(), len([t for t in ax.texts if t.get_gid() == "label"])
    ('PC1', 3)
    """
    kind = check_option(kind, "kind", LOADING_KINDS)
    loadings = as_loadings(loadings, "loadings", "plot_loadings")
    columns = list(axis_labels(axes))
    missing = [c for c in columns if c not in loadings.columns]
    if missing:
        raise ValueError(f"axes {tuple(axes)} need loadings columns {missing}.")
    shown = select_variables(loadings, columns, variables)
    tips = shown[columns].to_numpy()
    if limit is None:
        limit = 1.35 * max(float(np.max(np.abs(tips))) if len(tips) else 0.0, 0.1)
    ax = axes_or_new(ax)
    ax.axhline(0, color="0.8", linestyle="--", linewidth=0.6)
    ax.axvline(0, color="0.8", linestyle="--", linewidth=0.6)
    if kind == "vector":
        draw_arrows(ax, tips, color)
    else:
        ax.scatter(tips[:, 0], tips[:, 1], s=22, color=color, alpha=0.9, zorder=3, gid="points")
    if intervals is not None:
        _whiskers(ax, intervals, shown.index, columns, tips, color)
    names = [str(name) for name in shown.index] if labels else []
    finish_square(ax, tips if labels else tips[:0], names, color, limit, title, columns)
    return ax


def _whiskers(ax, intervals: pd.DataFrame, names, columns, tips, color) -> None:
    """Horizontal and vertical noise intervals through each variable's point, along the
    components that have them (the scree's ``k`` first)."""
    table = intervals.set_index(["variable", "component"])
    for (x, y), name in zip(tips, names, strict=True):
        for axis, column in enumerate(columns):
            if (name, column) not in table.index:
                continue
            low, high = table.loc[(name, column), ["lower", "upper"]].to_numpy()
            xs, ys = ([low, high], [y, y]) if axis == 0 else ([x, x], [low, high])
            ax.plot(xs, ys, color=color, alpha=0.45, linewidth=1.0, gid="whisker")


def heatmap_columns(loadings: pd.DataFrame, components: Any) -> list[str]:
    """The heatmap's columns: the first ``components`` (a number) or the components numbered
    (a sequence of distinct PC numbers from 1, as the R package's ``heatmap_components``)."""
    q = loadings.shape[1]
    if isinstance(components, numbers.Integral) and not isinstance(components, bool):
        return list(loadings.columns[: min(check_positive_int(components, "components"), q)])
    if isinstance(components, str) or not isinstance(components, Sequence | np.ndarray):
        raise TypeError(
            "components must be a number of components or a sequence of PC numbers; got "
            f"{components!r}."
        )
    chosen = [check_positive_int(value, "components") for value in components]
    if not chosen or len(set(chosen)) != len(chosen) or max(chosen) > q:
        raise ValueError(
            f"components must be distinct PC numbers from 1 to {q}; got {list(components)}."
        )
    return [loadings.columns[j - 1] for j in chosen]


def plot_loading_heatmap(
    loadings: Any,
    *,
    components: Any = 5,
    variables: Any = None,
    limit: float | None = None,
    values: bool = True,
    digits: int = 2,
    title: str | None = "DP loading heatmap",
    ax: Any = None,
):
    """A diverging heatmap of variables by directions: the first ``components`` (a number) or
    the components numbered (a sequence of PC numbers).

    Blue is negative, red positive, white 0, with symmetric limits ``+-limit`` (default the
    largest absolute loading shown; pass the same value to panels that should share it).
    ``values`` writes each loading in its cell with ``digits`` decimals. ``loadings`` and
    ``variables`` as in :func:`plot_loadings`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_loading_heatmap
    >>> import numpy as np
    >>> ax = plot_loading_heatmap(np.eye(4), components=2)
    >>> ax.images[0].get_array().shape
    (4, 2)
    >>> [t.get_text() for t in plot_loading_heatmap(np.eye(4), components=[1, 3]).get_xticklabels()]
    ['PC1', 'PC3']
    """
    from matplotlib.colors import LinearSegmentedColormap

    loadings = as_loadings(loadings, "loadings", "plot_loading_heatmap")
    columns = heatmap_columns(loadings, components)
    digits = check_positive_int(digits, "digits", minimum=0)
    shown = select_variables(loadings, columns, variables)
    cells = shown[columns].to_numpy()
    if limit is None:
        limit = max(float(np.max(np.abs(cells))), 1e-12)
    cmap = LinearSegmentedColormap.from_list("dppca", [HEATMAP_LOW, "#FFFFFF", HEATMAP_HIGH])
    ax = axes_or_new(ax, figsize=(0.9 * len(columns) + 2.5, 0.28 * len(shown) + 1.5))
    image = ax.imshow(cells, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, fontweight="bold")
    ax.set_yticks(range(len(shown)), [str(name) for name in shown.index], fontsize=8)
    if values:
        for (row, column), value in np.ndenumerate(cells):
            ax.text(
                column,
                row,
                f"{value:.{digits}f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if abs(value) >= 0.55 * limit else "0.15",
            )
    ax.figure.colorbar(image, ax=ax, label="Loading", shrink=0.8)
    if title:
        ax.set_title(title, fontweight="bold", fontsize=11)
    return ax


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


@dataclass(eq=False)
class LoadingDisplay(Display):
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


def named_variables(loadings: pd.DataFrame, columns: list[str], variables: Any) -> Any:
    """``variables`` as names: a number is resolved on ``loadings`` (the private ones), so that
    every panel shows the same variables; names, None and "all" pass through."""
    if isinstance(variables, int) and not isinstance(variables, bool):
        return list(select_variables(loadings, columns, variables).index)
    return variables
