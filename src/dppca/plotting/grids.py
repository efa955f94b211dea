"""The R package's one-call figures of a result: the loading grid of ``dp_loading_plot``
(:func:`loading_grid`) and the score grid of ``dp_score_plot`` (:func:`score_grid`). Drawing
spends no privacy budget.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dppca._validation import check_bool, check_choices
from dppca.numerics.linalg import axis_labels, pc_labels
from dppca.plotting._display import plotted_axes, reference_directions, version_titles
from dppca.plotting._results import check_result
from dppca.plotting._style import deferred_labels, pyplot
from dppca.plotting.loadings import (
    LoadingDisplay,
    default_components,
    directions_of,
    heatmap_columns,
    named_variables,
)
from dppca.plotting.scores import ScoreHistogramDisplay, ScorePointsDisplay, histogram_methods
from dppca.releases.scores import check_axes
from dppca.results.sampling import SAMPLING_METHODS


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
        kind: named_variables(loadings, heatmap if kind == "heatmap" else plane, variables)
        for kind in kinds
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
    methods = list(histogram_methods(result))
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
