"""The status of each release, judged after it from released values and public settings only.

A release is ``"ok"``, or one of:

* ``"noise-dominated"``: usable, but its noise is comparable to its value (the notes of
  :mod:`dppca.releases.notes` say which part);
* ``"too wide"``: a frame wider than ``WIDE_FRAME`` private scales (most points fall in a few
  cells); usable;
* ``"guessed"``: private scales of which some were flagged and given a stand-in value;
* ``"collapsed"``: a clip level or frame that shrank to (almost) nothing, because most pairs of
  rows are tied; not usable;
* ``"at the grid's edge"``: a private quantile at an end of its public grid (``1e-300`` or
  ``1e300``), so its value says nothing about the data; not usable;
* ``"misplaced"``: a frame that misses the data: more than half of the private histogram's
  mass lies in its outermost ring of cells, where the scores outside the frame are clamped;
  not usable;
* ``"lost in the noise"``: a scree whose every variance is within two noise sd of 0, so that
  its values and PVE say nothing (a clip level the budget could not locate), or private scales
  flagged unreliable without consent to a guess; not usable.

Values that are not usable are released as NaN, with the reason in the status. Each check is
post-processing of released values, so a status reveals nothing more about the data than the
releases themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: States whose values are not usable (released as NaN).
#: A frame wider than this many private scales is "too wide" (most points fall in a few cells).
WIDE_FRAME = 25.0

UNUSABLE = ("collapsed", "at the grid's edge", "misplaced", "lost in the noise")
#: All states, best first.
STATES = ("ok", "noise-dominated", "too wide", "guessed", *UNUSABLE)
#: A private quantile within this factor of its grid's ends (1e-300, 1e300) is at the edge.
EDGE = 10.0**299
#: A frame whose half-width is below this share of the private pair scale has collapsed.
COLLAPSED_SHARE = 0.05
#: A frame whose outermost ring of cells holds more than this share of the mass misses the data.
MISPLACED_SHARE = 0.5


@dataclass(frozen=True)
class ReleaseStatus:
    """How usable a release is.

    Attributes
    ----------
    state : str
        One of :data:`STATES`.
    reason : str
        What was seen, in words ("" when ok).

    Examples
    --------
    >>> ReleaseStatus("collapsed", "the clip level is 0").usable
    False
    >>> str(ReleaseStatus("ok"))
    'ok'
    """

    state: str = "ok"
    reason: str = ""

    @property
    def usable(self) -> bool:
        """Whether the release's values can be shown as a result."""
        return self.state not in UNUSABLE

    def __str__(self) -> str:
        return self.state if not self.reason else f"{self.state}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "reason": self.reason, "usable": self.usable}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReleaseStatus:
        return cls(data["state"], data.get("reason", ""))


def at_edge(value: float) -> bool:
    """Whether a positive private quantile lies at an end of the logarithmic grid."""
    return not (1.0 / EDGE < value < EDGE)


def frame_status(
    half_width: float, scale: float, histogram: pd.DataFrame | None, public: bool = False
) -> ReleaseStatus:
    """The frame's status from its released half-width and pair scale and, when there is one,
    the private histogram on it (probabilities by cell, x fastest)."""
    if public:
        return ReleaseStatus("ok", "public limits")
    if not math.isfinite(half_width) or at_edge(scale):
        return ReleaseStatus(
            "at the grid's edge",
            f"the private pair scale ({scale:.3g}) is at an end of its grid, so the frame says "
            "nothing about the data (more than half of the pairs of points may be tied)",
        )
    if half_width < COLLAPSED_SHARE * scale:
        return ReleaseStatus(
            "collapsed",
            f"the half-width ({half_width:.3g}) is {half_width / scale:.2g} times the private "
            "pair scale: the distance quantile found almost no spread",
        )
    if histogram is not None:
        ring = outer_ring_share(histogram)
        if ring > MISPLACED_SHARE:
            return ReleaseStatus(
                "misplaced",
                f"{ring:.0%} of the private histogram's mass lies in the frame's outermost cells, "
                "where the scores outside it are clamped: the frame misses the data",
            )
    if half_width > WIDE_FRAME * scale:
        return ReleaseStatus(
            "too wide",
            f"the half-width is {half_width / scale:.3g} times the private pair scale (about 2 "
            "for normal data): most points fall in a few cells",
        )
    return ReleaseStatus()


def outer_ring_share(histogram: pd.DataFrame) -> float:
    """The share of a histogram's probability in its outermost ring of cells (0 for an
    empty one)."""
    prob = histogram["prob"].to_numpy(dtype=np.float64)
    total = float(prob.sum())
    if not total > 0:
        return 0.0
    xs, ys = (histogram[column].to_numpy() for column in ("xmin", "ymin"))
    xe, ye = (histogram[column].to_numpy() for column in ("xmax", "ymax"))
    ring = (xs == xs.min()) | (ys == ys.min()) | (xe == xe.max()) | (ye == ye.max())
    return float(prob[ring].sum() / total)


def scree_status(values: np.ndarray, sd: np.ndarray, details: dict[str, Any]) -> ReleaseStatus:
    """The scree's status from its released values, their noise sd and, for the clipped
    method, the released clip quantile."""
    clip = details.get("clip_quantile")
    if clip is not None and at_edge(float(clip)):
        low = float(clip) <= 1.0 / EDGE
        return ReleaseStatus(
            "collapsed" if low else "at the grid's edge",
            f"the private clip level's quantile ({float(clip):.3g}) is at the "
            + (
                "bottom of its grid (1e-300): more than half of the pairs of rows are tied "
                "(duplicated rows), or the squared scores are below the grid's range; give a "
                "public clip level (C_clip in the clipped scree's control), use the Huber "
                "scree, or rescale the data by a public constant"
                if low
                else "top of its grid (1e300): the squared scores exceed the grid's range; "
                "rescale the data by a public constant"
            ),
        )
    if not np.all(np.isfinite(values)):
        return ReleaseStatus("at the grid's edge", "a released value is not finite")
    if np.all(values < 2.0 * sd):
        return ReleaseStatus(
            "lost in the noise",
            "every released variance is within two noise sd of 0, so the variances and the "
            "PVE are noise; give the scree more epsilon, or a public clip level",
        )
    if np.any(values[:1] < 2.0 * sd[:1]):
        return ReleaseStatus("noise-dominated", "the first variance is within two noise sd of 0")
    return ReleaseStatus()


def scale_status(unreliable: list[str], p: int, guessed: bool) -> ReleaseStatus:
    """The private scales' status from the variables flagged as ``unreliable``, released as NaN
    or, if ``guessed`` (the user's consent), as the other scales' geometric mean."""
    if not unreliable:
        return ReleaseStatus()
    if not guessed:
        return ReleaseStatus(
            "lost in the noise",
            "the scales of " + ", ".join(unreliable) + " are unreliable and released as NaN",
        )
    if len(unreliable) == p:
        return ReleaseStatus(
            "noise-dominated", "no variable's scale is reliable; the data were not scaled"
        )
    return ReleaseStatus(
        "guessed",
        "the scales of "
        + ", ".join(unreliable)
        + " are unreliable and were set to the geometric mean of the others",
    )


def from_notes(notes: list[str]) -> ReleaseStatus:
    """``"noise-dominated"`` with the notes as the reason, or ok without notes."""
    return ReleaseStatus("noise-dominated", " ".join(notes)) if notes else ReleaseStatus()


def score_statuses(
    frame: Any, histogram: pd.DataFrame, notes: list[str]
) -> dict[str, ReleaseStatus]:
    """The frame's and the histogram's status: the frame's from its released values and the
    histogram on it (:func:`frame_status`), the histogram's from its notes, or the frame's
    when the frame is not usable."""
    status = {"frame": frame_status(frame.half_width, frame.scale, histogram, frame.is_public)}
    status["histogram"] = from_notes(notes)
    if not status["frame"].usable:
        status["histogram"] = ReleaseStatus(status["frame"].state, "it lies on an unusable frame")
    return status


def unusable_frame(frame: Any) -> Any:
    """The frame with its values replaced by NaN (its ledger kept: the budget was spent)."""
    from dataclasses import replace

    return replace(
        frame,
        center=np.full(2, np.nan),
        half_width=math.nan,
        distance_quantile=math.nan,
        scale=math.nan,
    )


def unusable_histogram(table: pd.DataFrame) -> pd.DataFrame:
    """A histogram table with its cells and probabilities replaced by NaN."""
    blank = table.copy()
    blank[["xmin", "xmax", "ymin", "ymax", "prob"]] = np.nan
    return blank
