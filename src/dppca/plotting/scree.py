"""Scree and proportion-of-variance plots."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca._validation import check_option
from dppca.plotting._display import (
    Display,
    budget_title,
    reference_of,
    status_caption,
    unstable_note,
    unusable,
    version_titles,
)
from dppca.plotting._results import check_result, is_result, refuse
from dppca.plotting._style import (
    SCREE_STYLES,
    axes_or_new,
    caption_below,
    finish,
)
from dppca.releases.notes import POOLED_SCREE

SCREE_KINDS = ("pve", "scree")


def scree_series(result: Any, kind: str) -> dict[str, np.ndarray]:
    """The private series of every scree method of a :class:`~dppca.DPPCAResult` or a
    :class:`~dppca.ScreeResult`: proportions of variance (``kind="pve"``) or the variances."""
    if is_result(result, "ScreeResult"):
        return dict(result.pve if kind == "pve" else result.values)
    return dict(result.scree_series(kind))


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


@dataclass(eq=False)
class ScreeDisplay(Display):
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
                reference = reference_of(result)
                values["non_private"] = reference.pve if kind == "pve" else reference.eigenvalues
                title = f"DP {what}\nwith the non-private reference"
        elif non_private:
            reference = reference_of(result)
            values = {"non_private": reference.pve if kind == "pve" else reference.eigenvalues}
        else:
            method = result.settings["scree_method"]
            values = scree_series(result, kind)
            title += f"\n(scree {budget_title(result, 'scree')})"
            if uncertainty is not None:
                table = uncertainty.pve if kind == "pve" else uncertainty.scree
                intervals = {method: (table["lower"].to_numpy(), table["upper"].to_numpy())}
                title += unstable_note(uncertainty)
        k = len(next(iter(values.values())))
        caption = None
        if not non_private:
            methods = getattr(result, "scree_methods", ())
            parts = ("scree", *(f"scree ({method})" for method in methods[1:]))
            caption = status_caption(result, parts)
            if len(methods) > 1:  # a pipeline's methods, compared on one budget
                shared = f"The {len(methods)} methods share the scree's budget equally."
                lost = [
                    f"the {method} scree is {result.status[part].state}, not drawn"
                    for method, part in zip(methods[1:], parts[1:], strict=True)
                    if not result.status[part].usable
                ]
                unusable_note = ("T" + "; ".join(lost)[1:] + ".") if lost else None
                caption = " ".join(filter(None, [caption, shared, unusable_note]))
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
