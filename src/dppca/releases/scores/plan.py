"""A score release's settings and plan (the frame's and the histograms' mechanisms, fixed from
public values), the release of a plan, and the non-private scores on request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd

from dppca._groups import check_group_levels
from dppca._settings import Constraint, Settings, optional, real, some_of
from dppca._validation import axes_pair, axes_within
from dppca.numerics.linalg import axis_labels
from dppca.numerics.monotone import largest_remainder
from dppca.numerics.rows import Rows, projected
from dppca.privacy.budget import (
    Budget,
    PrivacyLedger,
    check_parts,
    check_repeated,
    split_epsilon,
)
from dppca.privacy.histograms import HISTOGRAM_METHODS, HistogramMechanism
from dppca.privacy.mechanisms import Noise
from dppca.privacy.requirements import Requirement
from dppca.privacy.settings import NoiseSettings
from dppca.releases.frame import DEFAULT_INFLATE, FramePlan, plan_frame, private_frame
from dppca.releases.histogram import (
    cell_index,
    check_bins,
    default_bins,
    grid_cells,
    histogram_counts,
    noise_parameters,
    private_probabilities,
    with_probabilities,
)
from dppca.results.frame import Frame
from dppca.results.scores import NonPrivateScores

#: The largest frame inflation (``(1 + inflate)`` times the frame radius must stay finite).
MAX_INFLATE = 1e3


#: Share of the score epsilon spent on the frame; the rest (and all of delta) goes to each
#: histogram method.
FRAME_SHARE = 0.35


@dataclass(frozen=True)
class ScorePlan:
    """Validated settings of a score release and its budget split (no data, no noise)."""

    axes: tuple[int, int]
    bins: tuple[int, int]
    methods: tuple[str, ...]
    calibration: str
    inflate: float
    epsilon: float
    delta: float
    frame_epsilon: float
    #: Each histogram method's own (epsilon, delta).
    histogram_epsilon: float
    histogram_delta: float
    #: The private frame's plan, or a public frame (no budget).
    frame: FramePlan | Frame
    histograms: tuple[HistogramMechanism, ...]
    #: The histograms' public noise parameters, in counts.
    noise: dict[str, float]
    sampler: str = "continuous"

    def mechanisms(self) -> list[Any]:
        """Every mechanism the release draws from, each releasing once: the private frame's
        (none for a public one), then each method's histogram."""
        frame = self.frame.mechanisms() if isinstance(self.frame, FramePlan) else []
        return [*frame, *self.histograms]

    @property
    def cost(self) -> Budget:
        """Frame plus every method's histogram, by basic composition."""
        count = len(self.methods)
        histogram = Budget(self.histogram_epsilon, self.histogram_delta)
        frame = [Budget(self.frame_epsilon, 0.0)] if self.frame_epsilon else []
        return Budget.compose(frame + [histogram] * count)

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """What the budget must locate: the private frame's quantiles (none for a public one)."""
        return () if isinstance(self.frame, Frame) else self.frame.requirements

    @property
    def axis_labels(self) -> tuple[str, str]:
        """The names of the two plotted components, e.g. ``("PC1", "PC2")``."""
        return axis_labels(self.axes)

    def settings(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "frame_epsilon": self.frame_epsilon,
            "histogram_epsilon": self.histogram_epsilon,
            "histogram_delta": self.histogram_delta,
            "methods": self.methods,
            "calibration": self.calibration,
            "sampler": self.sampler,
            **self.noise,
            "inflate": self.inflate,
            "frame": "public" if isinstance(self.frame, Frame) else "private",
        }


def check_axes(axes: Any, p: int, limit: str = "p") -> tuple[int, int]:
    """Two distinct 1-based principal-component numbers, at most ``p`` (named ``limit`` in the
    error: ``p`` for the variables, ``k`` for the components of a scree)."""
    return axes_within(axes_pair(axes, "axes"), p, limit)


@dataclass(frozen=True)
class ScoreSettings(Settings):
    """How the score plot (a private 2-D histogram of two components' scores on a private
    frame) is released (:func:`~dppca.dp_score`), checked once.

    Parameters
    ----------
    method : {"thresholded", "add", "sparse"} or a sequence of them, default "thresholded"
        Gaussian noise on every cell with counts below 3 noise sd set to 0
        (``"thresholded"``), the same without the threshold (``"add"``, the R package's), or
        Laplace noise on occupied cells above a threshold (``"sparse"``, Korolova et al. 2009).
    bins : int or (int, int), optional
        Cells along x and y; default ``sqrt(n / (3 sigma))`` per axis within ``[4, 40]``, with
        ``sigma`` the additive histogram's noise sd
        (:func:`~dppca.releases.histogram.default_bins`).
    axes : (int, int), default (1, 2)
        Two different PC numbers.
    frame : ((xmin, xmax), (ymin, ymax)), optional
        Public limits of the plot, known without the data: the whole budget then goes to the
        histograms.
    group_levels : sequence, optional
        The public set of group labels, declared: every level is released, empty or not, so
        whether a label occurs in the data stays private (the categories of a pandas
        Categorical count as declared). Without it the labels found in the data are taken as
        the public set, which reveals that each of them occurs.
    inflate : float, default 0.2
        The private frame's margin: its half-width is ``(1 + inflate) R``.

    Examples
    --------
    >>> from dppca import ScoreSettings
    >>> ScoreSettings(bins=8, axes=(1, 3)).to_dict()["bins"]
    (8, 8)
    >>> ScoreSettings(axes=(2, 2))
    Traceback (most recent call last):
    ...
    ValueError: axes must be two different PC numbers; got (2, 2).
    """

    method: str | Sequence[str] = "thresholded"
    bins: int | tuple[int, int] | None = None
    axes: tuple[int, int] | Sequence[int] = (1, 2)
    frame: tuple[tuple[float, float], tuple[float, float]] | None = None
    group_levels: Sequence[Any] | None = None
    inflate: float = DEFAULT_INFLATE
    #: The public frame of ``frame`` (None for a private frame).
    public_frame: Frame | None = field(default=None, init=False, repr=False, compare=False)

    constraints: ClassVar[Mapping[str, Constraint]] = {
        "bins": optional(check_bins),
        "method": some_of(*HISTOGRAM_METHODS),
        "axes": axes_pair,
        "inflate": real(0.0, MAX_INFLATE, low_inclusive=True),
        "group_levels": optional(lambda levels, name: tuple(check_group_levels(levels) or ())),
    }

    def _check_together(self, names: Mapping[str, str]) -> None:
        if self.frame is not None:
            public = Frame.public(self.frame)
            limits = tuple((float(low), float(high)) for low, high in self.frame)
            object.__setattr__(self, "frame", limits)
            object.__setattr__(self, "public_frame", public)

    @property
    def methods(self) -> tuple[str, ...]:
        """The histogram methods, as a tuple."""
        return (self.method,) if isinstance(self.method, str) else tuple(self.method)

    @property
    def pcs(self) -> tuple[int, int]:
        """The two checked PC numbers."""
        return cast(tuple[int, int], self.axes)

    def check_axes(self, count: int, limit: str = "p") -> None:
        """Refuse axes beyond ``count`` components (named ``limit`` in the error: ``p`` for the
        variables, ``k`` for the components of a scree)."""
        axes_within(self.pcs, count, limit, self.name_of("axes"))

    def plan(
        self,
        n: int,
        budget: Budget,
        noise: NoiseSettings,
        *,
        spread: str = "private",
        shared: bool = False,
    ) -> ScorePlan:
        """The release's plan for ``n`` rows and a validated ``budget``, without checking the
        settings again: frame 0.35 epsilon (no delta), each histogram 0.65 epsilon and all of
        delta (all of epsilon with a public ``frame``), or with ``shared`` an equal share of
        them per histogram method (:meth:`~dppca.Budget.shared`). ``bins=None`` applies
        :func:`default_bins` to ``n`` and the additive histogram's noise at a method's budget.
        What the frame's budget must locate is in :attr:`ScorePlan.requirements`; with
        ``spread="given"`` the frame's spread comes from another release at release time
        (:func:`~dppca.releases.frame.private_frame`)."""
        epsilon, delta = budget.epsilon, budget.delta
        calibration, sampler = noise.calibration, str(noise.sampler)
        methods, axes = self.methods, self.pcs
        public = self.public_frame
        if public is None:
            frame_epsilon, histogram_epsilon = check_parts(
                split_epsilon(epsilon, [FRAME_SHARE, 1.0 - FRAME_SHARE]), f"epsilon={epsilon:g}"
            )
        else:
            frame_epsilon, histogram_epsilon = 0.0, epsilon
        each = Budget(histogram_epsilon, delta)
        if shared:
            each = each.shared(len(methods))
            check_parts(
                [each.epsilon, each.delta],
                f"epsilon={epsilon:g}, delta={delta:g} among {len(methods)} histograms",
            )
        histogram_epsilon, histogram_delta = each.epsilon, each.delta
        histograms = tuple(
            HistogramMechanism(name, histogram_epsilon, histogram_delta, sampler, calibration)
            for name in methods
        )
        additive = HistogramMechanism(
            "add", histogram_epsilon, histogram_delta, sampler, calibration
        )
        check_repeated(each, len(methods), "histogram methods")
        noise_values = noise_parameters(histograms)  # refuses scales that are not normal floats
        bins = cast(tuple[int, int] | None, self.bins)
        if bins is None:
            bins = default_bins(n, additive.parameters["add_sigma"])
        planned: FramePlan | Frame
        if public is None:
            planned = plan_frame(
                n,
                frame_epsilon,
                sampler,
                what=f"epsilon={epsilon:g}",
                inflate=self.inflate,
                labels=axis_labels(axes),
                prefix="score: frame",
                component="score.frame",
                spread=spread,
            )
        else:
            planned = public
        return ScorePlan(
            axes,
            bins,
            methods,
            calibration,
            self.inflate,
            epsilon,
            delta,
            frame_epsilon,
            histogram_epsilon,
            histogram_delta,
            planned,
            histograms,
            noise_values,
            sampler,
        )


@dataclass(frozen=True)
class ScoreRelease:
    frame: Frame
    histograms: dict[str, pd.DataFrame]
    groups: dict[Any, dict[str, pd.DataFrame]] | None
    group_sizes: dict[Any, int] | None
    non_private: NonPrivateScores | None
    #: Per method, the noisy total count kept (summed over groups): post-processing.
    mass: dict[str, float]


def score_release(
    data: Rows,
    directions: np.ndarray,
    plan: ScorePlan,
    codes: np.ndarray | None,
    levels: list[Any] | None,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    *,
    non_private: bool = False,
    spread: float | None = None,
    compared: bool = False,
) -> ScoreRelease:
    """The frame and histograms of the scores on ``directions`` (entries go to ``ledger``);
    ``spread`` is the frame's given spread when its plan takes one. With ``compared`` the
    methods after the first are only compared with it: an empty additive histogram among them
    is returned as zeros (:func:`~dppca.releases.histogram.private_probabilities`)."""
    noise = Noise(plan.sampler, rng)
    n = data.shape[0]
    axes = plan.axes
    scores = projected(data, directions[:, [axes[0] - 1, axes[1] - 1]])
    if isinstance(plan.frame, Frame):
        frame = plan.frame
    else:
        frame = private_frame(scores, plan.frame, noise, spread)
        ledger.extend(frame.privacy)
    cells = grid_cells(frame, plan.bins)

    histograms: dict[str, pd.DataFrame] = {}
    mass: dict[str, float] = {}
    by_group: dict[Any, dict[str, pd.DataFrame]] | None = None
    group_sizes = None
    if codes is None or levels is None:
        (counts,) = histogram_counts(scores, frame, plan.bins, None, 1)
        for position, mechanism in enumerate(plan.histograms):
            name = mechanism.method
            prob, mass[name] = private_probabilities(
                counts, mechanism, noise, compared=compared and position > 0
            )
            histograms[name] = with_probabilities(cells, prob)
            mechanism.record(ledger, f"score: histogram ({name})", "score.histogram")
    else:
        group_counts = histogram_counts(scores, frame, plan.bins, codes, len(levels))
        by_group = {level: {} for level in levels}
        for position, mechanism in enumerate(plan.histograms):
            name = mechanism.method
            probabilities, totals = [], np.zeros(len(levels))
            for g, level in enumerate(levels):
                prob, totals[g] = private_probabilities(
                    group_counts[g],
                    mechanism,
                    noise,
                    where=f" of group {level!r}",
                    compared=compared and position > 0,
                )
                by_group[level][name] = with_probabilities(cells, prob)
                probabilities.append(prob)
            # Group weights and sizes come from the noisy totals: no exact count is used.
            mass[name] = float(totals.sum())
            weights = totals / totals.sum() if totals.sum() > 0 else np.zeros(len(levels))
            mixture = weights @ np.array(probabilities)
            total = mixture.sum()
            histograms[name] = with_probabilities(cells, mixture / total if total > 0 else mixture)
            if group_sizes is None:
                group_sizes = estimated_group_sizes(levels, totals, n)
            mechanism.record(
                ledger,
                f"score: histogram ({name}), {len(levels)} groups in parallel",
                "score.histogram",
            )
    reference = None
    if non_private:
        points = scores.to_numpy()  # gathered for the non-private reference only
        index = cell_index(points, frame, plan.bins)
        reference = empirical_scores(points, plan.axis_labels, index, cells, codes, levels)
    return ScoreRelease(frame, histograms, by_group, group_sizes, reference, mass)


def estimated_group_sizes(levels: list[Any], totals: np.ndarray, n: int) -> dict[Any, int]:
    """Private estimates of the group sizes: the public ``n`` split in proportion to the groups'
    noisy total counts by the largest-remainder rule (equally when every total is 0)."""
    shares = totals if totals.sum() > 0 else np.ones(len(levels))
    sizes = largest_remainder(shares, n)
    return {level: int(size) for level, size in zip(levels, sizes, strict=True)}


def empirical_scores(
    scores: np.ndarray,
    axis_labels: tuple[str, str],
    index: np.ndarray,
    cells: pd.DataFrame,
    codes: np.ndarray | None,
    levels: list[Any] | None,
) -> NonPrivateScores:
    """The non-private scores and their empirical histograms (pooled and per group)."""
    size = len(cells)
    table = pd.DataFrame(scores, columns=list(axis_labels))
    pooled = np.bincount(index, minlength=size) / len(index)
    groups = None
    if codes is not None and levels is not None:
        table["group"] = pd.Categorical.from_codes(codes, categories=pd.Index(levels))
        groups = {}
        for g, level in enumerate(levels):
            counts = np.bincount(index[codes == g], minlength=size)
            groups[level] = with_probabilities(cells, counts / counts.sum())
    return NonPrivateScores(
        scores=table, histogram=with_probabilities(cells, pooled), groups=groups
    )
