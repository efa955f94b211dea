"""The result of :func:`dppca.dp_pca`: its private releases, their post-processing, tables,
plots and JSON form, and the non-private reference when asked for (named as such)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca._validation import (
    axes_pair,
    axes_within,
    check_bool,
    check_option,
)
from dppca.numerics.biplot import BiplotCoordinates, biplot_coordinates, variable_correlations
from dppca.numerics.linalg import axis_labels, pc_labels
from dppca.numerics.monotone import proportions
from dppca.privacy.budget import PrivacyLedger
from dppca.privacy.split import PCASplit
from dppca.results.compared import ComparedMethods
from dppca.results.frame import Frame
from dppca.results.reference import NonPrivatePCA
from dppca.results.sampling import sample_scores
from dppca.results.serialization import result_fields, result_to_dict
from dppca.results.status import ReleaseStatus
from dppca.results.uncertainty import Uncertainty, release_uncertainty

#: What :meth:`DPPCAResult.plot` draws.
PLOT_KINDS = (
    "all",
    "pages",
    "scree",
    "score",
    "sample",
    "loading",
    "heatmap",
    "variable",
    "biplot",
)


@dataclass(frozen=True)
class PCASummary:
    """Importance and budget tables of a :class:`DPPCAResult`."""

    importance: pd.DataFrame
    budget: pd.DataFrame
    header: str
    budget_note: str = ""
    status: pd.DataFrame | None = None

    def __str__(self) -> str:
        status = ""
        if self.status is not None and len(self.status):
            lines = [
                f"  {name}: {row.state}" + (f" ({row.reason})" if row.reason else "")
                for name, row in self.status.iterrows()
            ]
            status = "\n\nStatus of the releases:\n" + "\n".join(lines)
        return (
            f"{self.header}\n\nImportance of components (private):\n"
            f"{self.importance.to_string(float_format=lambda v: f'{v:.4g}')}\n"
            "Proportions are normalised over the k estimated components.\n\n"
            f"Privacy budget spent:\n{self.budget.to_string(float_format=lambda v: f'{v:.4g}')}"
            + (f"\n{self.budget_note}" if self.budget_note else "")
            + status
        )

    __repr__ = __str__


@dataclass(frozen=True)
class DPPCAResult:
    """The private release of :func:`dp_pca`.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Private principal directions (columns, descending).
    kendall_eigenvalues : ndarray of shape (p,) or None
        Eigenvalues of the noisy Kendall matrix (None when the directions were given).
    scree : ndarray of shape (k,)
        Private variances along the first ``k`` directions.
    pve : ndarray of shape (k,)
        ``scree / sum(scree)``.
    frame : Frame
        The private square frame of the score plot.
    histogram : DataFrame
        The private score histogram (cells and ``prob``); with groups, the mixture of the group
        histograms weighted by their noisy total counts.
    groups : dict or None
        Per group label, its private histogram (normalised within the group).
    group_sizes : dict or None
        Private estimates of the group sizes (from the noisy histogram counts).
    feature_names : list of str
    n_samples, k : int
    axes, bins : tuple of int
    budgets : PCASplit
        How the total is shared between the parts (scale, loading, scree, score). Under tight
        composition each part's releases spend its epsilon times
        ``settings["composition"]["factor"]``, and ``privacy`` records what they spent.
    settings : dict
    privacy : PrivacyLedger
        Every release; its total never exceeds the requested (epsilon, delta).
    non_private : NonPrivatePCA or None
    noise : dict
        The public noise scale of every released quantity: ``kendall_sigma`` (sd of each
        diagonal entry of the released Kendall matrix, in the data's squared units;
        off-diagonal entries ``kendall_sigma / sqrt 2``), ``scree_sd`` (per component, of the
        scree values before the antitonic fit), ``histogram`` (the count noise of the score
        histogram), and the released ``histogram_mass`` (noisy total count kept).
    notes : tuple of str
        Warnings about noise-dominated outputs, from released values only (see
        :mod:`dppca.releases.notes`); each was also issued as a ``NoiseDominatedWarning``.
    status : dict of str to ReleaseStatus
        Per release (``"scales"``, ``"directions"``, ``"scree"``, ``"frame"``,
        ``"histogram"``), how usable it is (:mod:`dppca.results.status`): ``"ok"``,
        ``"noise-dominated"``, ``"too wide"``, ``"guessed"``, or, not usable and released as
        NaN, ``"collapsed"``, ``"at the grid's edge"`` or ``"misplaced"``; judged from
        released values only.
    scales : ndarray of shape (p,) or None
        The scales the variables were divided by (``scale=``: private releases or public
        values), None when the data were not scaled. Directions, loadings, scores, frame and
        histograms refer to the scaled variables.
    compared : ComparedMethods
        The scree and histogram methods requested after the first ones, released beside them
        for comparison (empty with one method each).

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, random_state=1)
    >>> result.loadings.shape, result.axis_labels
    ((4, 4), ('PC1', 'PC2'))
    >>> print(result.summary().budget.round(3))  # tight composition: the parts' own guarantees
                     epsilon  delta
    Loading            2.158    0.0
    Scree              2.158    0.0
    Score frame        0.755    0.0
    Score histogram    1.402    0.0
    Total              4.000    0.0
    >>> again = dppca.DPPCAResult.from_json(result.to_json())
    >>> bool(np.array_equal(again.directions, result.directions))
    True
    """

    directions: np.ndarray
    kendall_eigenvalues: np.ndarray | None
    scree: np.ndarray
    pve: np.ndarray
    frame: Frame
    histogram: pd.DataFrame = field(repr=False)
    groups: dict[Any, pd.DataFrame] | None = field(repr=False)
    group_sizes: dict[Any, int] | None
    feature_names: list[str]
    n_samples: int
    k: int
    axes: tuple[int, int]
    bins: tuple[int, int]
    budgets: PCASplit
    settings: dict[str, Any] = field(repr=False)
    privacy: PrivacyLedger = field(repr=False)
    non_private: NonPrivatePCA | None = field(default=None, repr=False)
    noise: dict[str, Any] = field(default_factory=dict, repr=False)
    notes: tuple[str, ...] = ()
    scales: np.ndarray | None = None
    status: dict[str, ReleaseStatus] = field(default_factory=dict)
    compared: ComparedMethods = field(default_factory=ComparedMethods, repr=False)

    def status_table(self) -> pd.DataFrame:
        """One row per release: its state, whether it is usable, and why.

        Examples
        --------
        >>> import numpy as np, dppca
        >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
        >>> dppca.dp_pca(X, 4.0, 1e-6, random_state=1).status_table()["state"].tolist()
        ['ok', 'ok', 'ok', 'ok']
        """
        return pd.DataFrame(
            [[status.state, status.usable, status.reason] for status in self.status.values()],
            index=list(self.status),
            columns=["state", "usable", "reason"],
        )

    @property
    def axis_labels(self) -> tuple[str, str]:
        """The names of the two plotted components, e.g. ``("PC1", "PC2")``."""
        return axis_labels(self.axes)

    @property
    def scree_methods(self) -> tuple[str, ...]:
        """The scree methods released, the first the one in :attr:`scree`."""
        return (self.settings["scree_method"], *self.compared.scree)

    @property
    def histogram_methods(self) -> tuple[str, ...]:
        """The score-histogram methods released, the first the one in :attr:`histogram`."""
        return (self.settings["score_method"], *self.compared.histograms)

    def scree_series(self, kind: str = "scree") -> dict[str, np.ndarray]:
        """Every scree method's private variances (``kind="scree"``) or proportions of
        variance (``kind="pve"``), by method, the first method's first."""
        check_option(kind, "kind", ("scree", "pve"))
        values = {self.settings["scree_method"]: self.scree, **self.compared.scree}
        if kind == "scree":
            return values
        return {method: proportions(series) for method, series in values.items()}

    def histogram_tables(
        self, histogram: str | None = None
    ) -> tuple[str, pd.DataFrame, dict[Any, pd.DataFrame] | None]:
        """A histogram method's score histogram and per-group histograms (default the first
        method's; for :func:`dppca.sample_scores`)."""
        methods = self.histogram_methods
        method = methods[0] if histogram is None else check_option(histogram, "histogram", methods)
        if method == methods[0]:
            return method, self.histogram, self.groups
        groups = None if self.compared.groups is None else self.compared.groups[method]
        return method, self.compared.histograms[method], groups

    def variable_coordinates(
        self, *, non_private: bool = False, axes: tuple[int, int] | None = None
    ) -> pd.DataFrame:
        """Variable-plot coordinates on the score axes, or on ``axes`` (two 1-based component
        numbers, at most ``k`` for the private ones), private unless ``non_private=True``.

        Private: correlations rebuilt from the private directions and the ``k`` private scree
        values. Reference: ordinary PCA with the sample standard deviations (not private).
        """
        shown = self.axes
        if axes is not None:
            limit = len(self.feature_names) if non_private else self.k
            shown = axes_within(axes_pair(axes, "axes"), limit, "p" if non_private else "k")
        if non_private:
            reference = self._reference()
            values = variable_correlations(
                reference.directions, reference.eigenvalues, shown, sd=reference.variable_sd
            )
        else:
            values = variable_correlations(self.directions, self.scree, shown)
        return pd.DataFrame(values, index=self.feature_names, columns=list(axis_labels(shown)))

    def biplot(
        self,
        *,
        alpha: float = 0.0,
        n_points: int | None = None,
        center: bool = True,
        random_state: Any = None,
    ) -> tuple[BiplotCoordinates, BiplotCoordinates | None]:
        """Private biplot coordinates, and the reference's when it was computed.

        The private points are synthetic draws from the private histogram (uniform sampling);
        the reference uses the observed ordinary-PCA scores and reuses the private arrow scale
        and display frame, as in the R package. ``center=True`` shifts points and frame by the
        private frame centre (display only).
        """
        points = sample_scores(self, n=n_points, random_state=random_state, center=center)
        limits = self.frame.limits(center=center)
        private = biplot_coordinates(
            points[list(self.axis_labels)].to_numpy(),
            self.directions,
            self.scree,
            self.axes,
            self.n_samples,
            alpha=alpha,
            frame_limits=limits,
        )
        if self.non_private is None:
            return private, None
        reference = self.non_private
        observed = reference.scores[list(self.axis_labels)].to_numpy()
        if center:
            observed = observed - self.frame.center
        non_private = biplot_coordinates(
            observed,
            reference.directions,
            reference.eigenvalues,
            self.axes,
            self.n_samples,
            alpha=alpha,
            arrow_scale=private.arrow_scale,
        )
        return private, replace(non_private, xlim=private.xlim, ylim=private.ylim)

    def uncertainty(
        self, draws: int = 200, *, level: float = 0.95, random_state: Any = None
    ) -> Uncertainty:
        """Intervals for each loading, scree value and PVE, and the stability of each direction,
        from the privacy noise alone (redrawn around the released values: no budget).

        The scree's and PVE's intervals hold the noiseless values (the same computation without
        noise) at once with probability at least ``level``; the loadings' cover at about
        ``level`` for identified components, and are ``[-1, 1]`` for the others (see
        :mod:`dppca.results.uncertainty`). They do not include the sampling error of the data.

        Examples
        --------
        >>> import numpy as np, dppca
        >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
        >>> result = dppca.dp_pca(X, 4.0, 1e-6, random_state=0)
        >>> bands = result.uncertainty(draws=100, random_state=1)
        >>> bool((bands.scree["lower"] <= bands.scree["value"]).all())
        True
        """
        return release_uncertainty(
            directions=self.directions,
            kendall_eigenvalues=self.kendall_eigenvalues,
            kendall_sigma=self.noise["kendall_sigma"],
            scree_raw=np.asarray(self.settings["scree_details"]["raw"], dtype=np.float64),
            scree_sd=np.asarray(self.noise["scree_sd"], dtype=np.float64),
            mono=self.settings["mono"],
            feature_names=self.feature_names,
            draws=draws,
            level=level,
            random_state=random_state,
            usable_scree=self.status.get("scree", ReleaseStatus()).usable,
        )

    def plot(self, kind: str = "all", **options: Any) -> Any:
        """Draw the five-panel page (``"all"``), the private and the reference pages
        (``"pages"``, a :class:`~dppca.plotting.PagesDisplay`) or one panel (``"scree"``,
        ``"score"``, ``"sample"``: synthetic points, ``"loading"``, ``"heatmap"``,
        ``"variable"``, ``"biplot"``) and return its
        display (:mod:`dppca.plotting`; ``.ax_`` and ``.figure_`` hold the drawing).

        ``options`` are the display's (see its ``from_result``): ``non_private=True`` draws the
        reference; ``variables`` (a number or names) and ``labels``; ``center``,
        ``random_state``, ``uncertainty`` (from :meth:`uncertainty`), ``ax``; on the page also
        ``scree="pve" | "scree"``, ``display_k``, ``score="histogram" | "sample"``,
        ``loading="point" | "vector" | "heatmap"`` with ``heatmap_components`` (or
        ``components``: the heatmap's PCs), ``variable="vector" | "point"`` with ``circle``
        (the unit circle) and the biplot's ``alpha``. Drawing spends no budget.
        """
        from dppca.plotting.pages import display_result  # plotting is imported when used

        return display_result(self, kind, PLOT_KINDS, **options)

    def _reference(self) -> NonPrivatePCA:
        if self.non_private is None:
            raise ValueError(
                "No non-private reference was computed; run dp_pca(..., non_private=True)."
            )
        return self.non_private

    @property
    def loadings(self) -> pd.DataFrame:
        """The private directions: index = variable names, columns ``PC1..PCp``."""
        columns = pc_labels(self.directions.shape[1])
        return pd.DataFrame(self.directions, index=self.feature_names, columns=columns)

    def summary(self) -> PCASummary:
        """Importance table (scree, PVE, cumulative PVE) and the budget spent by component."""
        columns = pc_labels(self.k)
        importance = pd.DataFrame(
            [self.scree, self.pve, np.cumsum(self.pve)],
            index=["Variance (scree)", "Proportion of variance", "Cumulative proportion"],
            columns=columns,
        )
        rows = {
            "Scale": "scale",
            "Loading": "loading",
            "Scree": "scree",
            "Score frame": "score.frame",
            "Score histogram": "score.histogram",
        }
        if not self.budgets.scale.epsilon:
            del rows["Scale"]
        spent = [self.privacy.select(component).total for component in rows.values()]
        budget = pd.DataFrame(
            [[part.epsilon, part.delta] for part in spent],
            index=list(rows),
            columns=["epsilon", "delta"],
        )
        total = self.privacy.total
        budget.loc["Total"] = [total.epsilon, total.delta]
        header = (
            f"Differentially private PCA: {self.n_samples} observations x "
            f"{len(self.feature_names)} variables{self._preparation()}; scree of {self.k} "
            f"components ({', '.join(self.scree_methods)}); score histogram "
            f"{', '.join(self.histogram_methods)} on PC{self.axes[0]} x PC{self.axes[1]}"
        )
        rule = (self.settings.get("composition") or {}).get("rule", "basic")
        note = ""
        if rule == "tight":
            factor = self.settings["composition"]["factor"]
            note = (
                "Tight composition: each part's row is that part's own guarantee, and the rows "
                "do not add up; the Total row is their composition by privacy losses. Each part "
                f"got {factor:.3g} times its share of epsilon, so less noise than cutting the "
                "total into shares that add up."
            )
        return PCASummary(importance, budget, header, note, self.status_table())

    def _preparation(self) -> str:
        """How the variables were scaled and where the directions came from, for the tables."""
        scale = (self.settings.get("scale") or {}).get("kind")
        text = {None: "", "private": ", privately scaled", "public": ", scaled by given scales"}
        given = self.kendall_eigenvalues is None
        return text[scale] + (", given directions" if given else "")

    @property
    def method(self) -> str:
        """How the directions were made: ``"g-DPPCA"`` (the Kendall matrix), ``"SSCM"`` (spatial
        signs about a private centre) or ``"given directions"``."""
        loading = self.settings.get("loading") or {}
        if loading.get("directions") == "given":
            return "given directions"
        return "SSCM" if loading.get("statistic") == "sscm" else "g-DPPCA"

    def __repr__(self) -> str:
        total = self.privacy.total
        shown = ", ".join(f"{v:.4g}" for v in self.scree[:6])
        more = f" (first 6 of {self.k})" if self.k > 6 else ""
        reference = "included" if self.non_private is not None else "not computed"
        return "\n".join(
            [
                f"Differentially private PCA ({self.method})",
                f"Data: {self.n_samples} observations x {len(self.feature_names)} "
                f"variables{self._preparation()}",
                f"Components: {self.directions.shape[1]} directions; {self.k} scree estimates",
                f"Score axes: PC{self.axes[0]}, PC{self.axes[1]}; bins {self.bins}",
                f"Methods: scree {', '.join(self.scree_methods)}, score "
                f"{', '.join(self.histogram_methods)}",
                f"Privacy spent: epsilon = {total.epsilon:.4g}, delta = {total.delta:.4g}",
                f"Private scree: {shown}{more}",
                f"Status: {self._status_line()}",
                f"Non-private reference: {reference}",
                "Use .summary() for the importance and budget tables.",
            ]
        )

    def _status_line(self) -> str:
        """The releases that are not ok, in a few words ("all releases ok" otherwise)."""
        shown = [
            f"{name} {status.state}" for name, status in self.status.items() if status.state != "ok"
        ]
        return "; ".join(shown) if shown else "all releases ok"

    def _repr_html_(self) -> str:
        """The summary as HTML (Jupyter): facts, importance, budget, status and notes."""
        summary = self.summary()
        total = self.privacy.total
        facts = [
            (
                "data",
                f"{self.n_samples} observations x {len(self.feature_names)} variables"
                f"{self._preparation()}",
            ),
            (
                "methods",
                f"scree {', '.join(self.scree_methods)}, score "
                f"{', '.join(self.histogram_methods)} on PC{self.axes[0]} x PC{self.axes[1]}",
            ),
            ("privacy spent", f"epsilon = {total.epsilon:.4g}, delta = {total.delta:.4g}"),
            ("status", self._status_line()),
            (
                "non-private reference",
                "included" if self.non_private is not None else "not computed",
            ),
        ]
        tables = [
            ("Importance of components (private)", summary.importance),
            ("Privacy budget spent", summary.budget),
            ("Status of the releases", self.status_table()),
        ]
        return card(f"Differentially private PCA ({self.method})", facts, tables, self.notes)

    def to_dict(self, include_non_private: bool = False) -> dict[str, Any]:
        """A JSON-ready dict of the private release (and the reference only on request)."""
        return result_to_dict(self, check_bool(include_non_private, "include_non_private"))

    def to_json(self, include_non_private: bool = False, **kwargs: Any) -> str:
        """JSON text of :meth:`to_dict` (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(include_non_private=include_non_private), **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DPPCAResult:
        """Rebuild a result from :meth:`to_dict` output."""
        return cls(**result_fields(data))

    @classmethod
    def from_json(cls, text: str) -> DPPCAResult:
        """Rebuild a result from :meth:`to_json` output."""
        return cls.from_dict(json.loads(text))
