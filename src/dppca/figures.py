"""One-call private plots from data, as the R package's ``dp_loading_plot``, ``dp_scree_plot``,
``dp_score_plot`` and ``dp_score_plot_group``.

Each function makes the private release (spending its budget, recorded in the result's
ledger), then draws it with the displays of :mod:`dppca.plotting` (which spend nothing). With
``non_private=True`` the panels of the non-private reference are drawn too, titled as such; the
reference is computed only then. Synthetic points are drawn on a random stream of their own,
independent of the noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dppca.plotting.grids import loading_grid, score_grid
from dppca.plotting.scree import ScreeDisplay
from dppca.releases.loading import dp_loading
from dppca.releases.scores import dp_score
from dppca.releases.scree import dp_scree


@dataclass(eq=False)
class ReleaseFigure:
    """A private release and the figure drawn from it.

    Attributes
    ----------
    result : LoadingResult, ScreeResult or ScoreResult
        The release, with its ledger (``result.privacy``).
    figure_ : matplotlib Figure
    displays_ : dict
        The displays of the figure's panels.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(1000, 3)) * [3, 2, 1]
    >>> drawn = dp_scree_plot(X, 3, 2.0, 1e-6, directions=np.eye(3), random_state=0)
    >>> drawn.result.privacy.total, len(drawn.ax_)
    (Budget(epsilon=2, delta=1e-06), 1)
    """

    result: Any = field(repr=False)
    figure_: Any = field(repr=False)
    displays_: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def ax_(self) -> np.ndarray:
        """The Axes of the panels, in the order of :attr:`displays_`."""
        return np.array([display.ax_ for display in self.displays_.values()], dtype=object)

    def savefig(self, *args: Any, **kwargs: Any) -> None:
        """``figure_.savefig`` (matplotlib's arguments)."""
        self.figure_.savefig(*args, **kwargs)


def _refuse_given_axes(release: dict[str, Any], name: str, source: str, kind: str) -> None:
    """The one-call plots draw a figure of their own: an ``ax`` (or ``figure``) is refused
    before anything is released, naming the two calls that draw into the caller's Axes."""
    given = sorted(set(release) & {"ax", "figure"})
    if given:
        raise TypeError(
            f"{name} draws a figure of its own (one panel per display) and takes no "
            f"{' or '.join(given)}; to draw into your Axes, release with dppca.{source}(...) "
            f"and draw with result.plot({kind!r}, ax=ax)."
        )


def _streams(random_state: Any) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent generators for the noise and for the synthetic points."""
    noise, points = np.random.default_rng(random_state).spawn(2)
    return noise, points


def dp_loading_plot(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    display: Any = "vector",
    axes: tuple[int, int] = (1, 2),
    heatmap_components: int | None = None,
    variables: Any = 10,
    labels: bool = True,
    align_sign: bool = True,
    non_private: bool = False,
    random_state: Any = None,
    **release: Any,
) -> ReleaseFigure:
    """Release private directions (:func:`~dppca.dp_loading`) and draw their loading plots.

    Parameters
    ----------
    X, epsilon, delta :
        As for :func:`~dppca.dp_loading`; ``release`` takes its other keywords
        (``transform``, ``radius``, ``pairs``, ``mechanism``, ``accountant``, ``sampler``, ...).
    display : {"vector", "point", "heatmap"} or a sequence of them, default "vector"
        One column of panels per display (in that order).
    axes : (int, int), default (1, 2)
        The components of the vector and point panels.
    heatmap_components : int, optional
        Components of the heatmap (default up to 5).
    variables : None, "all", int or list of str, default 10
        All variables, the ``variables`` with the longest vectors, or those named.
    labels : bool, default True
    align_sign : bool, default True
        Flip the reference's directions to match the private ones.
    non_private : bool, default False
        Also draw ordinary PCA's loadings (NOT private) above the private ones, on the same
        scale.
    random_state : None, int, SeedSequence or Generator

    Returns
    -------
    ReleaseFigure

    Examples
    --------
    >>> from dppca import dp_loading_plot
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(1000, 3)) * [3, 2, 1]
    >>> drawn = dp_loading_plot(X, 2.0, 1e-6, display=("vector", "heatmap"), random_state=0)
    >>> [ax.get_title() for ax in drawn.ax_]
    ['DP loading plot', 'DP loading heatmap']
    """
    _refuse_given_axes(release, "dp_loading_plot", "dp_loading", "loading")
    noise, _ = _streams(random_state)
    result = dp_loading(X, epsilon, delta, random_state=noise, non_private=non_private, **release)
    figure, displays = loading_grid(
        result,
        display=display,
        non_private=non_private,
        variables=variables,
        labels=labels,
        align_sign=align_sign,
        axes=axes,
        heatmap_components=heatmap_components,
    )
    return ReleaseFigure(result, figure, displays)


def dp_scree_plot(
    X: Any,
    k: int,
    epsilon: float,
    delta: float,
    *,
    method: Any = "clipped",
    kind: str = "pve",
    display_k: int | None = None,
    non_private: bool = False,
    random_state: Any = None,
    **release: Any,
) -> ReleaseFigure:
    """Release a private scree (:func:`~dppca.dp_scree`) by one or several methods and draw
    them on one panel with a legend.

    Parameters
    ----------
    X, k, epsilon, delta, method :
        As for :func:`~dppca.dp_scree`; ``release`` takes its other keywords (``directions``
        or ``loading_epsilon`` and ``loading_delta``, ``control``, ``mono``, ``accountant``,
        ``sampler``).
    kind : {"pve", "scree"}, default "pve"
        Proportions of variance, or the variances.
    display_k : int, optional
        Show the first components only.
    non_private : bool, default False
        Add ordinary PCA's values (NOT private) to the panel.
    random_state : None, int, SeedSequence or Generator

    Returns
    -------
    ReleaseFigure

    Examples
    --------
    >>> from dppca import dp_scree_plot
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> drawn = dp_scree_plot(X, 3, 2.0, 1e-6, method=("clipped", "huber"),
    ...                       directions=np.eye(3), non_private=True, random_state=0)
    >>> [text.get_text() for text in drawn.ax_[0].get_legend().get_texts()]
    ['Clipped (DP)', 'Huber (DP)', 'Non-private']
    """
    _refuse_given_axes(release, "dp_scree_plot", "dp_scree", "scree")
    noise, _ = _streams(random_state)
    result = dp_scree(
        X,
        k,
        epsilon,
        delta,
        method=method,
        random_state=noise,
        non_private=non_private,
        **release,
    )
    display = ScreeDisplay.from_result(
        result, non_private=non_private, kind=kind, display_k=display_k
    )
    return ReleaseFigure(result, display.figure_, {"scree": display})


def dp_score_plot(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    bins: Any = None,
    method: Any = "thresholded",
    panels: Any = ("histogram",),
    sampling: Any = "uniform",
    n_points: int | None = None,
    bandwidth_scale: float | None = None,
    center: bool = True,
    non_private: bool = False,
    random_state: Any = None,
    **release: Any,
) -> ReleaseFigure:
    """Release a private score histogram (:func:`~dppca.dp_score`) by one or several methods
    and draw the R package's score figure.

    A row of histograms (with ``non_private=True`` preceded by the reference scatter and the
    reference histogram on the private frame, NOT private) and, with ``"sample"`` in
    ``panels``, one row per ``sampling`` method of synthetic points drawn from each private
    histogram (post-processing).

    Parameters
    ----------
    X, epsilon, delta, bins, method :
        As for :func:`~dppca.dp_score`; ``release`` takes its other keywords (``directions``
        or ``loading_epsilon`` and ``loading_delta``, ``axes``, ``groups``, ``group_levels``,
        ``calibration``, ``accountant``, ``sampler``).
    panels : {"histogram", "sample"} or both, default ("histogram",)
    sampling : {"uniform", "center"} or both, default "uniform"
    n_points : int, optional
        Synthetic points per panel (default n).
    bandwidth_scale : float, optional
    center : bool, default True
        Centre the display on the private frame's centre (no budget).
    non_private : bool, default False
    random_state : None, int, SeedSequence or Generator

    Returns
    -------
    ReleaseFigure

    Examples
    --------
    >>> from dppca import dp_score_plot
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> drawn = dp_score_plot(X, 4.0, 1e-6, bins=8, directions=np.eye(3),
    ...                       panels=("histogram", "sample"), random_state=0)
    >>> [ax.get_title().splitlines()[0] for ax in drawn.ax_]
    ['DP score histogram', 'DP synthetic scores']
    """
    _refuse_given_axes(release, "dp_score_plot", "dp_score", "score")
    noise, points = _streams(random_state)
    result = dp_score(
        X,
        epsilon,
        delta,
        bins=bins,
        method=method,
        random_state=noise,
        non_private=non_private,
        **release,
    )
    figure, displays = score_grid(
        result,
        panels=panels,
        sampling=sampling,
        non_private=non_private,
        n_points=n_points,
        bandwidth_scale=bandwidth_scale,
        center=center,
        random_state=points,
    )
    return ReleaseFigure(result, figure, displays)


def dp_score_plot_group(
    X: Any, group: Any, epsilon: float, delta: float, **options: Any
) -> ReleaseFigure:
    """:func:`dp_score_plot` by group: ``group`` is a column name of the DataFrame ``X`` or one
    public label per row; one histogram per group on the shared frame (parallel composition),
    overlaid in a colour-blind-safe palette.

    Examples
    --------
    >>> from dppca import dp_score_plot_group
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.normal(size=(2000, 3)), columns=["a", "b", "c"])
    >>> X["site"] = rng.choice(["north", "south"], size=2000)
    >>> drawn = dp_score_plot_group(X, "site", 4.0, 1e-6, bins=8, directions=np.eye(3),
    ...                             random_state=0)
    >>> [text.get_text() for text in drawn.ax_[0].get_legend().get_texts()]
    ['north', 'south']
    """
    return dp_score_plot(X, epsilon, delta, groups=group, **options)
