"""Scree and proportion-of-variance plots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dppca._validation import check_option
from dppca.plotting._results import is_result, refuse
from dppca.plotting._style import SCREE_STYLES, axes_or_new, caption_below, finish

SCREE_KINDS = ("pve", "scree")


def scree_series(result: Any, kind: str) -> dict[str, np.ndarray]:
    """The private series of a :class:`~dppca.DPPCAResult` (its scree method's) or of a
    :class:`~dppca.ScreeResult` (every method's): proportions of variance (``kind="pve"``)
    or the variances."""
    if is_result(result, "ScreeResult"):
        return dict(result.pve if kind == "pve" else result.values)
    return {result.settings["scree_method"]: result.pve if kind == "pve" else result.scree}


def plot_scree(
    series: Any,
    *,
    kind: str = "pve",
    title: str | None = None,
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    caption: str | None = None,
    ax: Any = None,
):
    """Lines with markers over the component number, one per series.

    Parameters
    ----------
    series : dict of str to array, DPPCAResult or ScreeResult
        Keys ``"clipped"``, ``"pmwm"``, ``"huber"`` (private) or ``"non_private"`` (reference)
        pick the colour, marker and legend label; other keys are used as labels. A result
        gives its private series (every method of a :class:`~dppca.ScreeResult`).
    kind : {"pve", "scree"}
        The axis label and default title; pass the matching values (proportions of variance,
        or the variances themselves). A result's series follow it.
    intervals : dict of str to (lower, upper), optional
        Error bars for some series (for example the noise intervals of
        :meth:`~dppca.DPPCAResult.uncertainty`).
    caption : str, optional
        A note under the panel.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dppca.plotting import plot_scree
    >>> ax = plot_scree({"clipped": [0.6, 0.3, 0.1], "non_private": [0.62, 0.28, 0.1]})
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['Clipped (DP)', 'Non-private']
    """
    kind = check_option(kind, "kind", SCREE_KINDS)
    if is_result(series, "DPPCAResult", "ScreeResult"):
        series = scree_series(series, kind)
    elif not isinstance(series, Mapping):
        refuse(
            series,
            "series",
            "plot_scree",
            "a dict of str to arrays, a DPPCAResult or a ScreeResult",
            "A scree needs a released scree (dp_pca or dp_scree)." if is_result(series) else "",
        )
    ax = axes_or_new(ax)
    k = 0
    for name, values in series.items():
        values = np.asarray(values, dtype=float)
        k = max(k, len(values))
        color, marker, label = SCREE_STYLES.get(name, ("0.3", "o", name))
        ax.plot(
            np.arange(1, len(values) + 1),
            values,
            color=color,
            marker=marker,
            markersize=5,
            linewidth=1.2,
            label=label,
        )
        if intervals is not None and name in intervals:
            lower, upper = (np.asarray(bound, dtype=float) for bound in intervals[name])
            ax.errorbar(
                np.arange(1, len(values) + 1),
                values,
                yerr=[np.maximum(values - lower, 0.0), np.maximum(upper - values, 0.0)],
                fmt="none",
                ecolor=color,
                elinewidth=1.0,
                capsize=3,
                gid=f"intervals-{name}",
            )
    step = max(1, -(-k // 15))  # at most 15 labelled components
    ax.set_xticks(range(1, k + 1, step))
    if kind == "pve":
        ax.set_ylim(bottom=0)
    if len(series) > 1:
        ax.legend(frameon=False, fontsize=8)
    default = "Proportion of variance explained" if kind == "pve" else "Variance (scree)"
    finish(ax, title if title is not None else default, "Component", default)
    if caption:
        caption_below(ax, caption)
    return ax
