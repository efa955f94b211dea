"""Panels and full pages of a :class:`dppca.DPPCAResult` (R ``plot.dp_pca``)."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd

from dppca._validation import check_bool, check_option
from dppca.plotting._style import NONPRIVATE_COLOR, pyplot
from dppca.plotting.loadings import plot_loading_heatmap, plot_loadings
from dppca.plotting.scores import plot_score_histogram
from dppca.plotting.scree import plot_scree
from dppca.plotting.variables import plot_biplot, plot_variables
from dppca.releases.sampling import NoMassWarning

KINDS = ("all", "scree", "score", "loading", "heatmap", "variable", "biplot")
PANELS = ("scree", "score", "loading", "variable", "biplot")


def _budget(result, component: str) -> str:
    budget = result.budgets[component]
    return f"ε={budget.epsilon:.3g}, δ={budget.delta:.2g}"


def _reference_loadings(result) -> pd.DataFrame:
    reference = result._reference()
    columns = [f"PC{j + 1}" for j in range(reference.directions.shape[1])]
    return pd.DataFrame(reference.directions, index=result.feature_names, columns=columns)


def plot_result(
    result,
    kind: str = "all",
    *,
    nonprivate: bool = False,
    top: int | None = 10,
    center: bool = True,
    random_state: Any = None,
    uncertainty: Any = None,
    ax: Any = None,
):
    """One panel (returns the Axes) or the five-panel page (``kind="all"``, returns the Figure).

    Parameters
    ----------
    result : DPPCAResult
    kind : {"all", "scree", "score", "loading", "heatmap", "variable", "biplot"}
    nonprivate : bool, default False
        Draw the non-private reference instead (needs ``dp_pca(..., non_private=True)``); its
        score histogram uses the private frame and the private opacity scale, its biplot the
        private arrow scale and frame.
    top : int or None, default 10
        Label only the variables with the longest vectors (loading, variable and biplot panels).
    center : bool, default True
        Display centring by the private frame centre (no budget).
    random_state : None, int, SeedSequence or Generator
        Draws the synthetic points of the biplot (post-processing).
    uncertainty : Uncertainty, optional
        From :meth:`~dppca.DPPCAResult.uncertainty`: error bars on the scree, whiskers on the
        loadings and a note on unstable components (private panels only).
    ax : matplotlib Axes, optional
        For a single panel.
    """
    kind = check_option(kind, "kind", KINDS)
    nonprivate = check_bool(nonprivate, "nonprivate")
    if nonprivate:
        result._reference()
    if kind == "all":
        return plot_page(
            result,
            nonprivate=nonprivate,
            top=top,
            center=center,
            random_state=random_state,
            uncertainty=uncertainty,
        )
    bands = None if nonprivate else uncertainty
    prefix = "Non-private" if nonprivate else "DP"
    suffix = " (reference)" if nonprivate else ""
    if kind == "scree":
        series = (
            {"nonprivate": result.nonprivate.pve}
            if nonprivate
            else {result.settings["scree_method"]: result.pve}
        )
        title = f"{prefix} proportion of variance{suffix}"
        if not nonprivate:
            title += f"\n(scree {_budget(result, 'scree')})"
        intervals = None
        if bands is not None:
            method = result.settings["scree_method"]
            intervals = {method: (bands.pve["lower"], bands.pve["upper"])}
            title += _unstable_note(bands)
        return plot_scree(series, kind="pve", title=title, intervals=intervals, ax=ax)
    if kind == "score":
        limits = result.frame.limits(center=center)
        private = result.groups if result.groups is not None else result.histogram
        tables = private
        if nonprivate:
            reference = result.nonprivate
            tables = reference.groups if reference.groups is not None else reference.histogram
        tables = _shift(tables, result.frame.center) if center else tables
        opacity = _largest(private)
        title = f"{prefix} score histogram{suffix}"
        if not nonprivate:
            title += f"\n({result.settings['score_method']}, score {_budget(result, 'score')})"
        return plot_score_histogram(
            tables,
            limits,
            axis_labels=result.axis_labels,
            opacity_max=opacity or None,
            title=title,
            ax=ax,
        )
    if kind in ("loading", "heatmap"):
        loadings = _reference_loadings(result) if nonprivate else result.loadings
        title = f"{prefix} loading {'plot' if kind == 'loading' else 'heatmap'}{suffix}"
        if kind == "heatmap":
            return plot_loading_heatmap(
                loadings, components=min(result.k, 5), top=top, title=title, ax=ax
            )
        if bands is not None:
            title += _unstable_note(bands, result.axes)
        return plot_loadings(
            loadings,
            axes=result.axes,
            kind="point",
            top=top,
            title=title,
            color=NONPRIVATE_COLOR if nonprivate else "#1F4E79",
            intervals=None if bands is None else bands.loadings,
            ax=ax,
        )
    if kind == "variable":
        return plot_variables(
            result.variable_coordinates(nonprivate=nonprivate),
            top=top,
            title=f"{prefix} variable plot{suffix}",
            color=NONPRIVATE_COLOR if nonprivate else "#1F4E79",
            ax=ax,
        )
    with warnings.catch_warnings():  # an empty histogram is shown by the panel's own note
        warnings.simplefilter("ignore", NoMassWarning)
        private, reference = result.biplot(center=center, random_state=random_state)
    coordinates = reference if nonprivate else private
    return plot_biplot(
        coordinates,
        result.feature_names,
        axis_labels=result.axis_labels,
        top=top,
        title=f"{prefix} biplot{suffix}",
        ax=ax,
    )


def plot_loading_comparison(result, *, kind: str = "point", top: int | None = 10):
    """Non-private (left) and private (right) loading plots on one shared scale.

    The reference directions are sign-aligned to the private ones, so that matching variables
    point the same way. Needs ``dp_pca(..., non_private=True)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    reference = _reference_loadings(result)
    columns = [f"PC{result.axes[0]}", f"PC{result.axes[1]}"]
    largest = max(
        float(abs(table[columns]).to_numpy().max()) for table in (reference, result.loadings)
    )
    limit = 1.35 * max(largest, 0.1)
    figure, (left, right) = pyplot().subplots(1, 2, figsize=(11, 5.5), layout="constrained")
    plot_loadings(
        reference,
        axes=result.axes,
        kind=kind,
        top=top,
        limit=limit,
        color=NONPRIVATE_COLOR,
        title="Non-private loading plot (reference)",
        ax=left,
    )
    plot_loadings(
        result.loadings,
        axes=result.axes,
        kind=kind,
        top=top,
        limit=limit,
        title="DP loading plot",
        ax=right,
    )
    return figure


def _unstable_note(bands, axes: tuple[int, int] | None = None) -> str:
    """``"\nunstable under the noise: PC3, PC4"`` for the flagged components (all, or ``axes``)."""
    flagged = [j for j in bands.unstable() if axes is None or j in axes]
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


def _largest(tables) -> float:
    if isinstance(tables, dict):
        return max(float(t["prob"].max()) for t in tables.values())
    return float(tables["prob"].max())


def _shift(tables, center):
    from dppca.releases.scores import shift_cells

    if isinstance(tables, dict):
        return {label: shift_cells(table, center) for label, table in tables.items()}
    return shift_cells(tables, center)


def plot_page(
    result,
    *,
    nonprivate: bool = False,
    top: int | None = 10,
    center: bool = True,
    random_state: Any = None,
    uncertainty: Any = None,
):
    """The five panels (scree, score, loading, variable, biplot) on one figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot()
    figure = plt.figure(figsize=(16, 10.5), layout="constrained")
    grid = figure.add_gridspec(2, 6)
    slots = [grid[0, 0:2], grid[0, 2:4], grid[0, 4:6], grid[1, 1:3], grid[1, 3:5]]
    for panel, slot in zip(PANELS, slots, strict=True):
        plot_result(
            result,
            panel,
            nonprivate=nonprivate,
            top=top,
            center=center,
            random_state=random_state,
            uncertainty=uncertainty,
            ax=figure.add_subplot(slot),
        )
    total = result.privacy.total
    figure.suptitle(
        "Non-private PCA (reference: NOT differentially private)"
        if nonprivate
        else f"Private PCA (g-DPPCA): total ε={total.epsilon:.3g}, δ={total.delta:.2g}",
        fontsize=15,
        fontweight="bold",
    )
    return figure
