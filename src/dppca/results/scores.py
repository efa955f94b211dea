"""The result of a private score histogram (:func:`~dppca.dp_score`) and its reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import label_texts
from dppca._html import card
from dppca._validation import (
    check_option,
)
from dppca.numerics.linalg import axis_labels
from dppca.privacy.budget import (
    PrivacyLedger,
)
from dppca.results.frame import Frame
from dppca.results.loading import LoadingResult
from dppca.results.status import (
    ReleaseStatus,
)


@dataclass(frozen=True)
class ScoreResult:
    """A private score histogram and how it was made.

    Attributes
    ----------
    frame : Frame
        The private square frame.
    histograms : dict of str to DataFrame
        Per method, the cells (``xmin, xmax, ymin, ymax``, x fastest) and private ``prob``.
        With groups, the mixture of the group histograms weighted by their noisy total counts
        (post-processing).
    groups : dict or None
        Per group label, ``{method: DataFrame}``, each normalised within the group.
    group_sizes : dict or None
        Private estimates of the group sizes: ``n`` split in proportion to each group's noisy
        total count (the first method's), post-processing. No exact group count is released.
    axes : tuple of int
        The 1-based PC numbers on the x and y axes.
    bins : tuple of int
    directions : ndarray of shape (p, p)
        The directions the scores were projected on (private or user-given).
    feature_names : list of str
    n_samples : int
    settings : dict
    privacy : PrivacyLedger
        Every release: the directions (if estimated), the frame, and one entry per method.
    loading : LoadingResult or None
        The private directions' release, when ``dp_score`` estimated them.
    non_private : NonPrivateScores or None
    status : dict of str to ReleaseStatus
        The frame's and the (first method's) histogram's status
        (:mod:`dppca.results.status`); an unusable frame leaves the frame and every histogram
        NaN.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 3)) * [3, 2, 1]
    >>> result = dppca.dp_score(X, 2.0, 1e-6, directions=np.eye(3), random_state=1)
    >>> result.methods, result.axis_labels
    (('thresholded',), ('PC1', 'PC2'))
    """

    frame: Frame
    histograms: dict[str, pd.DataFrame] = field(repr=False)
    groups: dict[Any, dict[str, pd.DataFrame]] | None = field(repr=False)
    group_sizes: dict[Any, int] | None = field(repr=False)
    axes: tuple[int, int]
    bins: tuple[int, int]
    directions: np.ndarray = field(repr=False)
    feature_names: list[str] = field(repr=False)
    n_samples: int = 0
    settings: dict[str, Any] = field(default_factory=dict, repr=False)
    privacy: PrivacyLedger = field(default_factory=PrivacyLedger, repr=False)
    loading: LoadingResult | None = field(default=None, repr=False)
    non_private: NonPrivateScores | None = field(default=None, repr=False)
    status: dict[str, ReleaseStatus] = field(default_factory=dict, repr=False)

    def plot(self, kind: str = "score", **options: Any) -> Any:
        """Draw the release and return its display (:mod:`dppca.plotting`).

        ``kind`` in ``("score", "sample", "loading")``; ``options`` as for
        :meth:`dppca.DPPCAResult.plot`.
        Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, ("score", "sample", "loading"), **options)

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): frame, histograms and the ledger."""
        facts = [
            ("data", f"{self.n_samples} observations, scores on {' x '.join(self.axis_labels)}"),
            ("histograms", f"{', '.join(self.methods)} on {self.bins[0]} x {self.bins[1]} cells"),
            (
                "frame",
                f"centre {np.round(self.frame.center, 4).tolist()}, half-width "
                f"{self.frame.half_width:.4g}",
            ),
        ]
        if self.groups is not None:
            facts.append(("groups", ", ".join(label_texts(list(self.groups)).values())))
        tables = [("Privacy budget spent", self.privacy.budget_table())]
        return card("Private score histogram", facts, tables)

    def __repr__(self) -> str:
        total = self.privacy.total
        groups = "" if self.groups is None else f", {len(self.groups)} groups"
        return (
            f"ScoreResult(n_samples={self.n_samples}, axes={self.axis_labels}, bins={self.bins}, "
            f"methods={list(self.methods)}{groups}, frame centre={np.round(self.frame.center, 4)}"
            f", half-width={self.frame.half_width:.4g}; privacy spent: "
            f"epsilon={total.epsilon:.4g}, delta={total.delta:.4g})"
        )

    @property
    def methods(self) -> tuple[str, ...]:
        """The histogram methods released, in order."""
        return tuple(self.histograms)

    @property
    def axis_labels(self) -> tuple[str, str]:
        """The names of the two plotted components, e.g. ``("PC1", "PC2")``."""
        return axis_labels(self.axes)

    def histogram_tables(
        self, histogram: str | None = None
    ) -> tuple[str, pd.DataFrame, dict[Any, pd.DataFrame] | None]:
        """One method's pooled histogram and per-group histograms (None without groups)."""
        method = (
            self.methods[0]
            if histogram is None
            else check_option(histogram, "histogram", self.methods)
        )
        groups = None
        if self.groups is not None:
            groups = {level: tables[method] for level, tables in self.groups.items()}
        return method, self.histograms[method], groups

    def cells(
        self, method: str | None = None, group: Any = None, *, center: bool = False
    ) -> pd.DataFrame:
        """A private histogram as a DataFrame, optionally display-centred.

        Parameters
        ----------
        method : str, optional
            One of :attr:`methods`; default the first.
        group : label, optional
            A group's histogram instead of the pooled one.
        center : bool, default False
            Shift the cells by the private frame centre: display only, no budget.
        """
        method = self.methods[0] if method is None else check_option(method, "method", self.methods)
        if group is None:
            table = self.histograms[method]
        else:
            if self.groups is None or group not in self.groups:
                known = [] if self.groups is None else list(self.groups)
                raise ValueError(f"group must be one of {known}; got {group!r}.")
            table = self.groups[group][method]
        return shift_cells(table, self.frame.center) if center else table.copy()


@dataclass(frozen=True)
class NonPrivateScores:
    """Non-private references, computed only on request. **Not** differentially private.

    Attributes
    ----------
    scores : DataFrame of shape (n, 2)
        The projected coordinates of every row (with a ``group`` column for groups).
    histogram : DataFrame
        The empirical histogram (``prob = count / n``) on the private frame's grid.
    groups : dict or None
        Per group, the empirical histogram normalised within the group.
    """

    scores: pd.DataFrame
    histogram: pd.DataFrame
    groups: dict[Any, pd.DataFrame] | None = None


def shift_cells(table: pd.DataFrame, center: np.ndarray) -> pd.DataFrame:
    """Cells translated by ``-center`` (display centring)."""
    shifted = table.copy()
    shifted[["xmin", "xmax"]] -= center[0]
    shifted[["ymin", "ymax"]] -= center[1]
    return shifted
