"""``dp_pca``: private directions, scree and score histogram in one call (SPEC 4.2).

The total (epsilon, delta) is split between the loading (directions), the scree and the score
(frame and histogram) releases, by default a third each for epsilon and for delta. One set of
private directions feeds the scree and the score histogram. The result holds only private
releases and their post-processing, plus, when asked, a non-private ordinary-PCA reference that is
named as such and never feeds a private release.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from dppca._groups import encode_groups, take_group_column
from dppca._validation import (
    check_bool,
    check_data,
    check_delta,
    check_epsilon,
    check_option,
    check_positive_int,
    check_random_state,
)
from dppca.numerics.biplot import BiplotCoordinates, biplot_coordinates, variable_correlations
from dppca.numerics.linalg import align_columns, descending_eigh, project, sample_covariance
from dppca.privacy.accountant import Accountant, charge
from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger, warn_weak_budget
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.mechanisms import resolve_sampler
from dppca.releases.frame import Frame
from dppca.releases.histogram import HISTOGRAM_METHODS, cell_index, grid_cells
from dppca.releases.loading import loading_release, plan_loading
from dppca.releases.notes import (
    direction_notes,
    emit,
    frame_notes,
    histogram_notes,
    public_notes,
    variance_notes,
)
from dppca.releases.sampling import sample_scores
from dppca.releases.scores import empirical_scores, plan_score, score_release
from dppca.releases.scree import (
    SCREE_METHODS,
    check_scree_control,
    check_scree_plan,
    proportions,
    scree_release,
)
from dppca.results.uncertainty import Uncertainty, release_uncertainty

COMPONENTS = ("loading", "scree", "score")
FORMAT = "dppca.DPPCAResult"
FORMAT_VERSION = 3


def check_split(split: Any, total: Budget) -> dict[str, Budget]:
    """The budget of each component: shares (or absolute Budgets) for loading, scree, score."""
    if split is None:
        split = {name: 1 / 3 for name in COMPONENTS}
    if not isinstance(split, dict):
        raise TypeError(
            "split must be a dict with keys 'loading', 'scree', 'score' (shares summing to 1, "
            f"or Budget values); got {split!r}."
        )
    if set(split) != set(COMPONENTS):
        raise ValueError(
            f"split must have exactly the keys {list(COMPONENTS)}; got {sorted(split)}."
        )
    parts = total.split(**{name: split[name] for name in COMPONENTS})
    for name, part in parts.items():
        if part.epsilon <= 0 or part.delta <= 0:
            raise ValueError(
                f"split gives the {name} component {part!r}; every component needs epsilon > 0 "
                "and delta > 0."
            )
    return parts


@dataclass(frozen=True)
class NonPrivatePCA:
    """Ordinary PCA of the same data, computed only on request. **Not** differentially private.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Eigenvectors of the sample covariance, descending, each sign-aligned to the private
        direction of the same rank.
    eigenvalues : ndarray of shape (k,)
        The top ``k`` eigenvalues (clipped at 0).
    pve : ndarray of shape (k,)
        Normalised over the ``k`` components, as the private PVE.
    scores : DataFrame of shape (n, 2)
        Every row's coordinates on the two plotted ordinary-PCA axes (uncentred, like the
        private ones), with ``group`` when groups were given.
    histogram : DataFrame
        Empirical histogram of those scores on the private frame's grid.
    groups : dict or None
        Per group, the empirical histogram normalised within the group.
    variable_sd : ndarray of shape (p,)
        Sample standard deviations of the variables.
    """

    directions: np.ndarray
    eigenvalues: np.ndarray
    pve: np.ndarray
    scores: pd.DataFrame
    histogram: pd.DataFrame
    groups: dict[Any, pd.DataFrame] | None
    variable_sd: np.ndarray


@dataclass(frozen=True)
class PCASummary:
    """Importance and budget tables of a :class:`DPPCAResult`."""

    importance: pd.DataFrame
    budget: pd.DataFrame
    header: str

    def __str__(self) -> str:
        return (
            f"{self.header}\n\nImportance of components (private):\n"
            f"{self.importance.to_string(float_format=lambda v: f'{v:.4g}')}\n"
            "Proportions are normalised over the k estimated components.\n\n"
            f"Privacy budget spent:\n{self.budget.to_string(float_format=lambda v: f'{v:.4g}')}"
        )

    __repr__ = __str__


@dataclass(frozen=True)
class DPPCAResult:
    """The private release of :func:`dp_pca`.

    Attributes
    ----------
    directions : ndarray of shape (p, p)
        Private principal directions (columns, descending).
    kendall_eigenvalues : ndarray of shape (p,)
        Eigenvalues of the noisy Kendall matrix.
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
    budgets : dict of str to Budget
        The allocation to loading, scree and score.
    settings : dict
    privacy : PrivacyLedger
        Every release; its total never exceeds the requested (epsilon, delta).
    nonprivate : NonPrivatePCA or None
    noise : dict
        The public noise scale of every released quantity: ``kendall_sigma`` (sd of each
        diagonal entry of the released Kendall matrix, in the data's squared units;
        off-diagonal entries ``kendall_sigma / sqrt 2``), ``scree_sd`` (per component, of the
        scree values before the antitonic fit), ``histogram`` (the count noise of the score
        histogram), and the released ``histogram_mass`` (noisy total count kept).
    notes : tuple of str
        Warnings about noise-dominated outputs, from released values only (see
        :mod:`dppca.releases.notes`); each was also issued as a ``NoiseDominatedWarning``.
    """

    directions: np.ndarray
    kendall_eigenvalues: np.ndarray
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
    budgets: dict[str, Budget]
    settings: dict[str, Any] = field(repr=False)
    privacy: PrivacyLedger = field(repr=False)
    nonprivate: NonPrivatePCA | None = field(default=None, repr=False)
    noise: dict[str, Any] = field(default_factory=dict, repr=False)
    notes: tuple[str, ...] = ()

    @property
    def axis_labels(self) -> tuple[str, str]:
        return (f"PC{self.axes[0]}", f"PC{self.axes[1]}")

    def histogram_tables(
        self, histogram: str | None = None
    ) -> tuple[str, pd.DataFrame, dict[Any, pd.DataFrame] | None]:
        """The score histogram and per-group histograms (for :func:`dppca.sample_scores`)."""
        method = self.settings["score_method"]
        if histogram is not None:
            check_option(histogram, "histogram", [method])
        return method, self.histogram, self.groups

    def variable_coordinates(self, *, nonprivate: bool = False) -> pd.DataFrame:
        """Variable-plot coordinates on the score axes (private unless ``nonprivate=True``).

        Private: correlations rebuilt from the private directions and the ``k`` private scree
        values. Reference: ordinary PCA with the sample standard deviations (not private).
        """
        if nonprivate:
            reference = self._reference()
            values = variable_correlations(
                reference.directions, reference.eigenvalues, self.axes, sd=reference.variable_sd
            )
        else:
            values = variable_correlations(self.directions, self.scree, self.axes)
        return pd.DataFrame(values, index=self.feature_names, columns=list(self.axis_labels))

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
        if self.nonprivate is None:
            return private, None
        reference = self.nonprivate
        observed = reference.scores[list(self.axis_labels)].to_numpy()
        if center:
            observed = observed - self.frame.center
        nonprivate = biplot_coordinates(
            observed,
            reference.directions,
            reference.eigenvalues,
            self.axes,
            self.n_samples,
            alpha=alpha,
            arrow_scale=private.arrow_scale,
        )
        return private, replace(nonprivate, xlim=private.xlim, ylim=private.ylim)

    def uncertainty(
        self, draws: int = 200, *, level: float = 0.95, random_state: Any = None
    ) -> Uncertainty:
        """Intervals for each loading, scree value and PVE, and the stability of each direction,
        from the privacy noise alone (redrawn around the released values: no budget).

        The intervals cover the noiseless value (the same computation without noise) at about
        ``level`` for well-separated components, less for components the stability flags (see
        :mod:`dppca.results.uncertainty`); they do not include the sampling error of the data.

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
        )

    def plot(self, kind: str = "all", **kwargs: Any):
        """Draw a panel (``"scree"``, ``"score"``, ``"loading"``, ``"heatmap"``, ``"variable"``,
        ``"biplot"``; returns its Axes) or the five-panel page (``"all"``; returns the Figure).

        See :func:`dppca.plotting.plot_result` for the options (``nonprivate=True`` draws the
        reference). Drawing spends no budget.
        """
        from dppca.plotting.page import plot_result  # plotting is optional and imported lazily

        return plot_result(self, kind, **kwargs)

    def _reference(self) -> NonPrivatePCA:
        if self.nonprivate is None:
            raise ValueError(
                "No non-private reference was computed; run dp_pca(..., non_private=True)."
            )
        return self.nonprivate

    @property
    def loadings(self) -> pd.DataFrame:
        """The private directions: index = variable names, columns ``PC1..PCp``."""
        columns = [f"PC{j + 1}" for j in range(self.directions.shape[1])]
        return pd.DataFrame(self.directions, index=self.feature_names, columns=columns)

    def summary(self) -> PCASummary:
        """Importance table (scree, PVE, cumulative PVE) and the budget spent by component."""
        columns = [f"PC{j + 1}" for j in range(self.k)]
        importance = pd.DataFrame(
            [self.scree, self.pve, np.cumsum(self.pve)],
            index=["Variance (scree)", "Proportion of variance", "Cumulative proportion"],
            columns=columns,
        )
        rows = {
            "Loading": "loading",
            "Scree": "scree",
            "Score frame": "score: frame",
            "Score histogram": "score: histogram",
        }
        budget = pd.DataFrame(
            [
                [
                    sum(e.epsilon for e in self.privacy if e.name.startswith(prefix)),
                    sum(e.delta for e in self.privacy if e.name.startswith(prefix)),
                ]
                for prefix in rows.values()
            ],
            index=list(rows),
            columns=["epsilon", "delta"],
        )
        total = self.privacy.total
        budget.loc["Total"] = [total.epsilon, total.delta]
        header = (
            f"Differentially private PCA: {self.n_samples} observations x "
            f"{len(self.feature_names)} variables; scree of {self.k} components "
            f"({self.settings['scree_method']}); score histogram {self.settings['score_method']} "
            f"on PC{self.axes[0]} x PC{self.axes[1]}"
        )
        return PCASummary(importance, budget, header)

    def __repr__(self) -> str:
        total = self.privacy.total
        shown = ", ".join(f"{v:.4g}" for v in self.scree[:6])
        more = f" (first 6 of {self.k})" if self.k > 6 else ""
        reference = "included" if self.nonprivate is not None else "not computed"
        return "\n".join(
            [
                "Differentially private PCA (g-DPPCA)",
                f"Data: {self.n_samples} observations x {len(self.feature_names)} variables",
                f"Components: {self.directions.shape[1]} directions; {self.k} scree estimates",
                f"Score axes: PC{self.axes[0]}, PC{self.axes[1]}; bins {self.bins}",
                f"Methods: scree {self.settings['scree_method']}, score "
                f"{self.settings['score_method']}",
                f"Privacy spent: epsilon = {total.epsilon:.4g}, delta = {total.delta:.4g}",
                f"Private scree: {shown}{more}",
                f"Non-private reference: {reference}",
                "Use .summary() for the importance and budget tables.",
            ]
        )

    def to_dict(self, include_nonprivate: bool = False) -> dict[str, Any]:
        """A JSON-ready dict of the private release (and the reference only on request)."""
        include_nonprivate = check_bool(include_nonprivate, "include_nonprivate")
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "n_samples": self.n_samples,
            "feature_names": list(self.feature_names),
            "k": self.k,
            "axes": list(self.axes),
            "bins": list(self.bins),
            "directions": self.directions.tolist(),
            "kendall_eigenvalues": self.kendall_eigenvalues.tolist(),
            "scree": self.scree.tolist(),
            "pve": self.pve.tolist(),
            "frame": {
                "center": self.frame.center.tolist(),
                "radius": self.frame.radius,
                "quantile_radius": self.frame.quantile_radius,
                "inflate": self.frame.inflate,
                "radius_level": self.frame.radius_level,
                "scale": self.frame.scale,
            },
            "histogram": _table_to_dict(self.histogram),
            "groups": None
            if self.groups is None
            else [
                {
                    "label": _json_label(label),
                    "estimated_size": self.group_sizes[label],
                    "histogram": _table_to_dict(table),
                }
                for label, table in self.groups.items()
            ],
            "budgets": {name: [b.epsilon, b.delta] for name, b in self.budgets.items()},
            "settings": _jsonable(self.settings),
            "privacy": [
                {"name": e.name, "mechanism": e.mechanism, "epsilon": e.epsilon, "delta": e.delta}
                for e in self.privacy
            ],
            "noise": _jsonable(self.noise),
            "notes": list(self.notes),
        }
        if include_nonprivate:
            if self.nonprivate is None:
                raise ValueError(
                    "include_nonprivate=True, but no non-private reference was computed; run "
                    "dp_pca(..., non_private=True)."
                )
            reference = self.nonprivate
            data["nonprivate"] = {
                "warning": "NOT differentially private: ordinary PCA of the raw data.",
                "directions": reference.directions.tolist(),
                "eigenvalues": reference.eigenvalues.tolist(),
                "pve": reference.pve.tolist(),
                "scores": {
                    column: _json_values(reference.scores[column])
                    for column in reference.scores.columns
                },
                "histogram": _table_to_dict(reference.histogram),
                "groups": None
                if reference.groups is None
                else [
                    {"label": _json_label(label), "histogram": _table_to_dict(table)}
                    for label, table in reference.groups.items()
                ],
                "variable_sd": reference.variable_sd.tolist(),
            }
        return data

    def to_json(self, include_nonprivate: bool = False, **kwargs: Any) -> str:
        """JSON text of :meth:`to_dict` (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(include_nonprivate=include_nonprivate), **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DPPCAResult:
        """Rebuild a result from :meth:`to_dict` output."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"data is not a {FORMAT} export.")
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"Unsupported {FORMAT} version {data.get('version')!r}.")
        ledger = PrivacyLedger([LedgerEntry(**entry) for entry in data["privacy"]])
        frame_ledger = PrivacyLedger([e for e in ledger if e.name.startswith("score: frame")])
        frame = Frame(
            center=np.array(data["frame"]["center"]),
            radius=data["frame"]["radius"],
            quantile_radius=data["frame"]["quantile_radius"],
            inflate=data["frame"]["inflate"],
            radius_level=data["frame"]["radius_level"],
            scale=data["frame"]["scale"],
            privacy=frame_ledger,
        )
        groups = group_sizes = None
        if data["groups"] is not None:
            groups = {item["label"]: _table_from_dict(item["histogram"]) for item in data["groups"]}
            group_sizes = {item["label"]: item["estimated_size"] for item in data["groups"]}
        nonprivate = None
        if "nonprivate" in data:
            ref = data["nonprivate"]
            scores = pd.DataFrame(ref["scores"])
            if "group" in scores:
                scores["group"] = pd.Categorical(scores["group"], categories=list(groups or []))
            nonprivate = NonPrivatePCA(
                directions=np.array(ref["directions"]),
                eigenvalues=np.array(ref["eigenvalues"]),
                pve=np.array(ref["pve"]),
                scores=scores,
                histogram=_table_from_dict(ref["histogram"]),
                groups=None
                if ref["groups"] is None
                else {item["label"]: _table_from_dict(item["histogram"]) for item in ref["groups"]},
                variable_sd=np.array(ref["variable_sd"]),
            )
        return cls(
            directions=np.array(data["directions"]),
            kendall_eigenvalues=np.array(data["kendall_eigenvalues"]),
            scree=np.array(data["scree"]),
            pve=np.array(data["pve"]),
            frame=frame,
            histogram=_table_from_dict(data["histogram"]),
            groups=groups,
            group_sizes=group_sizes,
            feature_names=list(data["feature_names"]),
            n_samples=data["n_samples"],
            k=data["k"],
            axes=tuple(data["axes"]),
            bins=tuple(data["bins"]),
            budgets={name: Budget(*value) for name, value in data["budgets"].items()},
            settings=data["settings"],
            privacy=ledger,
            nonprivate=nonprivate,
            noise=data["noise"],
            notes=tuple(data["notes"]),
        )

    @classmethod
    def from_json(cls, text: str) -> DPPCAResult:
        """Rebuild a result from :meth:`to_json` output."""
        return cls.from_dict(json.loads(text))


def _table_to_dict(table: pd.DataFrame) -> dict[str, list[float]]:
    return {column: table[column].astype(float).tolist() for column in table.columns}


def _table_from_dict(data: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame({column: np.array(values, dtype=float) for column, values in data.items()})


def _json_label(label: Any) -> Any:
    """A group label as a JSON value: strings, integers, floats and booleans stay as they are."""
    if isinstance(label, np.generic):
        label = label.item()
    return label if isinstance(label, str | int | float | bool) else str(label)


def _json_values(series: pd.Series) -> list[Any]:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [_json_label(value) for value in series]
    return series.astype(float).tolist()


def _jsonable(value: Any) -> Any:
    """Settings as plain JSON types (arrays to lists, tuples to lists)."""
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def dp_pca(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    split: dict[str, Any] | None = None,
    k: int | None = None,
    scree: str = "clipped",
    score: str = "thresholded",
    bins: Any = None,
    axes: Any = (1, 2),
    groups: Any = None,
    group_levels: Any = None,
    scree_control: dict[str, Any] | None = None,
    mono: bool = True,
    transform: Any = "spherical",
    radius: Any = None,
    pairs: Any = "all",
    sensitivity: Any = "tight",
    calibration: str = "analytic",
    non_private: bool = False,
    random_state: Any = None,
    accountant: Accountant | None = None,
    sampler: str | None = None,
) -> DPPCAResult:
    """Differentially private PCA: directions, scree and score histogram in one release.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        At least two variables. No centring or scaling is applied.
    epsilon, delta : float
        The total budget.
    split : dict, optional
        Keys ``"loading"``, ``"scree"``, ``"score"``: shares (positive, summing to 1 within 1e-8,
        applied to epsilon and delta alike) or absolute :class:`Budget` values (together at most
        the total). Default a third each.
    k : int, optional
        Components in the scree, ``2 <= k <= p``; default ``p``.
    scree : {"clipped", "pmwm", "huber"}, default "clipped"
        The default needs no tuning; the others need ``scree_control`` (see :func:`dp_scree`).
    score : {"thresholded", "add", "sparse"}, default "thresholded"
        The score histogram: Gaussian noise on every cell with counts below 3 noise sd set to
        0 (``"thresholded"``), the same without the threshold (``"add"``, seed 002), or Laplace
        noise on occupied cells above a threshold (``"sparse"``).
    bins : int or (int, int), optional
        Cells along x and y; default ``sqrt(n / (3 sigma))`` per axis within ``[4, 40]``, with
        ``sigma`` the additive histogram's noise sd
        (:func:`~dppca.releases.histogram.default_bins`).
    axes : (int, int), default (1, 2)
        Two different PC numbers between 1 and ``k``.
    groups : str or array-like, optional
        Public labels (a column name of a DataFrame ``X`` or one label per row): one histogram
        per group on the shared frame (parallel composition).
    group_levels : sequence, optional
        The public set of group labels, declared: every level is released, empty or not, so
        whether a label occurs in the data stays private (the categories of a pandas
        Categorical count as declared). Without it the labels found in the data are taken as
        the public set, which reveals that each of them occurs.
    scree_control : dict, optional
        Parameters of the scree method.
    mono : bool, default True
        Non-increasing, non-negative scree by antitonic least squares.
    transform, radius : optional
        The generalized spatial sign of the directions (see :func:`dp_loading`).
    pairs : "all" or int, default "all"
        All pairs in the Kendall matrix, or the ``pairs``-regular incomplete U-statistic (linear
        in n, same sensitivity; see :func:`dp_loading`).
    sensitivity : {"tight", "paper"}, default "tight"
        The Kendall matrix's Frobenius sensitivity (see :func:`dp_loading`).
    calibration : {"analytic", "classical"}, default "analytic"
        Gaussian calibration of the directions and of an additive histogram.
    non_private : bool, default False
        Also compute the ordinary-PCA reference (:class:`NonPrivatePCA`), not private.
    random_state : None, int, SeedSequence or Generator
    accountant : Accountant, optional
        Charged with the total before any noise is drawn.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the classical calibration is asked for): exact
        integer noise on a cryptographically secure stream, real-valued statistics rounded to a
        public grid, Gaussian parts accounted by zero-concentrated DP (about 7 % more noise at
        the same budget). ``"continuous"``: numpy's floating-point noise, which can leak
        through its low bits (Mironov 2012); for studies, not for publication.

    Returns
    -------
    DPPCAResult

    Raises
    ------
    ValueError, TypeError
        Invalid input, before any budget is charged or noise drawn.
    BudgetExceededError
        When ``accountant`` cannot cover the total (nothing is charged).
    EmptyHistogramError
        With ``score="add"``, when the noisy histogram is all zero after clipping (seed 002
        specifies an error; the budget is spent). Use a larger epsilon or fewer bins.

    Warns
    -----
    NoiseDominatedWarning
        When a release is dominated by its noise, judged from released values and public
        settings only (they are also in :attr:`DPPCAResult.notes`).

    Notes
    -----
    Outcomes that depend on the private data are reported, never hidden: a sparse histogram
    that no cell survives is all zero (its plot says so, and sampling from it warns with
    :class:`~dppca.releases.sampling.NoMassWarning`); capped quantile searches warn.
    """
    X, labels = take_group_column(X, groups)
    data, names = check_data(X)
    n, p = data.shape
    if p < 2:
        raise ValueError(f"X must have at least 2 variables for dp_pca; got {p}.")
    if len(set(names)) != len(names):
        raise ValueError("X must have unique variable names.")
    total = Budget(check_epsilon(epsilon), check_delta(delta))
    budgets = check_split(split, total)
    k = p if k is None else check_positive_int(k, "k")
    if not 2 <= k <= p:
        raise ValueError(f"k must be an integer in [2, p={p}]; got {k}.")
    scree = check_option(scree, "scree", SCREE_METHODS)
    score = check_option(score, "score", HISTOGRAM_METHODS)
    control = check_scree_control(scree, scree_control, k, "scree_control")
    calibration = check_option(calibration, "calibration", CALIBRATIONS)
    sampler = resolve_sampler(sampler, calibration)
    with public_notes() as planning_notes:  # warnings from public values, kept as notes
        check_scree_plan(
            scree, control, n, k, budgets["scree"].epsilon, budgets["scree"].delta, sampler
        )
        calibration = check_option(calibration, "calibration", CALIBRATIONS)
        plan = plan_score(
            budgets["score"].epsilon,
            budgets["score"].delta,
            bins,
            score,
            axes,
            k,
            calibration,
            sampler=sampler,
            n=n,
            axes_limit="k",
        )
        mono = check_bool(mono, "mono")
        non_private = check_bool(non_private, "non_private")
        codes, levels = (None, None)
        if labels is not None:
            codes, levels = encode_groups(labels, n, group_levels)
        elif group_levels is not None:
            raise ValueError("group_levels applies when groups are given; got groups=None.")
        loading_plan = plan_loading(
            data.shape,
            budgets["loading"].epsilon,
            budgets["loading"].delta,
            transform=transform,
            radius=radius,
            sensitivity=sensitivity,
            pairs=pairs,
            calibration=calibration,
            sampler=sampler,
        )
        rng = check_random_state(random_state)
        warn_weak_budget(total.epsilon, total.delta, n)
    charge(accountant, total, "dp_pca")

    ledger = PrivacyLedger()
    loading = loading_release(data, names, loading_plan, rng)
    ledger.extend(loading.privacy)
    directions = loading.directions
    scree_values, scree_details = scree_release(
        project(data, directions[:, :k]),
        scree,
        control,
        budgets["scree"].epsilon,
        budgets["scree"].delta,
        rng,
        ledger,
        mono=mono,
        sampler=sampler,
    )
    release = score_release(data, directions, plan, codes, levels, rng, ledger)
    reference = None
    if non_private:
        reference = _nonprivate_pca(data, directions, k, plan, release, codes, levels)
    groups_out = None
    if release.groups is not None:
        groups_out = {level: tables[score] for level, tables in release.groups.items()}
    noise = {
        "kendall_sigma": loading.sigma,
        "scree_sd": np.asarray(scree_details["noise_sd"], dtype=np.float64),
        "histogram": dict(plan.noise),  # the one requested method's parameters, in counts
        "histogram_mass": release.mass[score],
    }
    notes = planning_notes + (
        direction_notes(loading.eigenvalues, loading.sigma, plan.axes)
        + variance_notes(scree_values, noise["scree_sd"], plan.axes)
        + histogram_notes(release.mass[score], n)
        + frame_notes(release.frame.radius, release.frame.scale)
    )
    emit(notes[len(planning_notes) :])
    return DPPCAResult(
        directions=directions,
        kendall_eigenvalues=loading.eigenvalues,
        scree=scree_values,
        pve=proportions(scree_values),
        frame=release.frame,
        histogram=release.histograms[score],
        groups=groups_out,
        group_sizes=release.group_sizes,
        feature_names=names,
        n_samples=n,
        k=k,
        axes=plan.axes,
        bins=plan.bins,
        budgets=budgets,
        settings={
            "epsilon": total.epsilon,
            "delta": total.delta,
            "loading": loading.settings,
            "scree_method": scree,
            "scree_control": control,
            "scree_details": scree_details,
            "mono": mono,
            "score_method": score,
            "score": plan.settings(),
            "sampler": sampler,
        },
        privacy=ledger,
        nonprivate=reference,
        noise=noise,
        notes=tuple(notes),
    )


def _nonprivate_pca(data, directions, k, plan, release, codes, levels) -> NonPrivatePCA:
    """Ordinary PCA, sign-aligned to the private directions and binned on the private frame."""
    eigenvalues, vectors = descending_eigh(sample_covariance(data))
    vectors = align_columns(vectors, directions)
    top = np.maximum(eigenvalues[:k], 0.0)
    scores = project(data, vectors[:, [plan.axes[0] - 1, plan.axes[1] - 1]])
    cells = grid_cells(release.frame, plan.bins)
    index = cell_index(scores, release.frame, plan.bins)
    empirical = empirical_scores(scores, plan.axis_labels, index, cells, codes, levels)
    return NonPrivatePCA(
        directions=vectors,
        eigenvalues=top,
        pve=proportions(top),
        scores=empirical.scores,
        histogram=empirical.histogram,
        groups=empirical.groups,
        variable_sd=np.sqrt(np.diag(sample_covariance(data))),
    )
