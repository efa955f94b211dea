"""One private run of the app: ``dp_pca`` on the chosen columns, its noise intervals, and the
files a user can download (the release, the figures, the report), written into the session's
own folder. The non-private reference is computed only on request and written apart."""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dppca.app.data import Table, split_shares
from dppca.app.panels import PanelImages, read_axes

#: Runs one at a time: matplotlib's figure manager and the warnings filters are process-wide.
RUN_LOCK = threading.Lock()


#: A refusal's public alternatives, as the app can (or cannot) follow them.
APP_ADVICE = {
    "; or give public scales, scale=[...] (units known without the data)": (
        "; or choose no scaling"
    ),
    "; or give a public clip level (C_clip in the clipped scree's control)": (
        " (a public clip level is set from Python or the command line, not in the app)"
    ),
    "; or give public limits, frame=((xmin, xmax), (ymin, ymax))": (
        " (public frame limits are set from Python or the command line, not in the app)"
    ),
    "; declare the public set with group_levels=[...] (or a pandas Categorical's categories).": (
        " (the public set of levels is declared from Python or the command line, not in the app)."
    ),
}


def in_app_terms(refusal: str) -> str:
    """A refusal before the charge (:class:`~dppca.UnlocatableError`) in what the app offers:
    one line, its public alternatives as the app can follow them, without the study opt-in.

    Examples
    --------
    >>> message = in_app_terms(
    ...     "x cannot locate: scree (clip level) needs epsilon >= 4.76 at this n; or give a "
    ...     "public clip level (C_clip in the clipped scree's control). Nothing was spent. Pass "
    ...     "on_weak='release' to release anyway.")
    >>> "the command line, not in the app" in message, "on_weak" in message
    (True, False)
    """
    message = app_advice(refusal).split(" Pass on_weak=")[0]
    return message.replace(" Nothing was spent.", "") + (
        " Run is refused until the budget or the rows suffice."
    )


def app_advice(message: str) -> str:
    """A note or refusal on one line, its advice as the app can follow it."""
    message = " ".join(message.split())
    for advice, instead in APP_ADVICE.items():
        message = message.replace(advice, instead)
    return message


@dataclass(frozen=True)
class Settings:
    """What the user chose (validated again by ``dp_pca``, which names any bad value)."""

    variables: list[str]
    group: str | None
    scale: str
    epsilon: float
    delta: float
    handles: tuple[float, float]
    k: int
    bins: int
    #: One method, or several compared (a tuple).
    scree: str | tuple[str, ...]
    #: The chosen methods' settings, by name (each name is one method's).
    scree_control: dict[str, Any] = field(default_factory=dict)
    score: str | tuple[str, ...] = "thresholded"
    #: The score plot's two components, as ``"1,2"``.
    score_axes: str = "1,2"
    statistic: str = "kendall"
    seed_text: str = ""
    non_private: bool = False

    @property
    def seed(self) -> int | None:
        """The seed typed in (checked by :func:`problem`), or None for fresh randomness."""
        return int(self.seed_text) if SEED.fullmatch(self.seed_text) else None

    def split(self) -> dict[str, float]:
        """The budget shares; a private scale takes a tenth first (as on the command line)."""
        shares = split_shares(self.handles)
        if self.scale == "private":
            return {"scale": 0.1, **{name: 0.9 * share for name, share in shares.items()}}
        return shares

    def options(self) -> dict[str, Any]:
        """``dp_pca``'s keyword arguments (besides the data and the total budget), its settings
        checked here with the page's names in errors."""
        from dppca.releases.loading import LoadingSettings
        from dppca.releases.scores import ScoreSettings
        from dppca.releases.scree import ScreeSettings

        return {
            "split": self.split(),
            "loading": LoadingSettings.named({"statistic": "statistic"}, statistic=self.statistic),
            "scree": ScreeSettings.named(
                {"method": "scree", "control": "scree control"},
                method=self.scree,
                k=self.k,
                control=self._control() or None,
            ),
            "score": ScoreSettings.named(
                {"method": "score", "axes": "the score plot's components"},
                method=self.score,
                bins=None if self.bins == 0 else (self.bins, self.bins),
                axes=read_axes(self.score_axes) or (1, 2),
            ),
            "scale": "private" if self.scale == "private" else None,
        }

    def _control(self) -> dict[str, Any]:
        """The scree's control: the settings as entered for one method, by method for
        several."""
        from dppca.releases.scree import CONTROL_DEFAULTS

        if isinstance(self.scree, str):
            return self.scree_control
        stray = sorted(
            name
            for name in self.scree_control
            if not any(name in CONTROL_DEFAULTS[method] for method in self.scree)
        )
        if stray:
            raise ValueError(
                f"scree control {stray} belongs to none of the checked scree methods "
                f"{list(self.scree)}."
            )
        return {
            method: {
                name: value
                for name, value in self.scree_control.items()
                if name in CONTROL_DEFAULTS[method]
            }
            for method in self.scree
        }


#: A seed: a whole number of at most 18 digits.
SEED = re.compile(r"[0-9]{1,18}")


def problem(table: Table, settings: Settings) -> str | None:
    """What keeps ``settings`` from running on ``table``, in a sentence (None: nothing). The
    budget preview and the run ask the same questions; ``dp_pca`` then checks every value."""
    if len(settings.variables) < 2:
        return "Choose at least two variables."
    for part, methods in (("scree", settings.scree), ("score histogram", settings.score)):
        if not methods:
            return f"Check at least one {part} method."
    if settings.group is not None and settings.group in settings.variables:
        return f"The group column {settings.group!r} cannot also be a variable."
    entered = {"epsilon": settings.epsilon, "delta": settings.delta, "k": settings.k}
    missing = [
        name
        for name, value in entered.items()
        if not isinstance(value, int | float) or not math.isfinite(value)
    ]
    missing += [
        f"the scree's {name}"
        for name, value in settings.scree_control.items()
        if not isinstance(value, int | float) or not math.isfinite(value)
    ]
    if missing:
        return f"Enter a number for {', '.join(missing)}."
    if settings.seed_text and not SEED.fullmatch(settings.seed_text):
        return "The seed must be a whole number of at most 18 digits, or empty."
    values = table.frame[settings.variables]
    unusable = [
        name for name in settings.variables if not np.isfinite(values[name].to_numpy(float)).all()
    ]
    if unusable:
        return (
            f"Variable(s) {', '.join(unusable[:5])} have missing or infinite values; leave them "
            "out or impute them first."
        )
    return None


@dataclass(frozen=True)
class RunOutput:
    """The outcome of a run: the folder of downloads, the release and its noise intervals, its
    panels (drawn again in other views, which spends no budget), the tables shown, the warnings
    (from released values only) and the reference page when asked for; or an error message,
    with what the run spent before it stopped (``spent``, a :class:`~dppca.Budget`, when it
    spent anything)."""

    folder: Path | None = None
    release: Any = None
    uncertainty: Any = None
    budget: pd.DataFrame | None = None
    importance: pd.DataFrame | None = None
    warnings: list[str] = field(default_factory=list)
    reference_png: bytes | None = None
    error: str | None = None
    spent: Any = None
    panels: PanelImages | None = None


def run(
    table: Table,
    settings: Settings,
    folder: Path,
    on_step: Callable[[str], None] = lambda stage: None,
) -> RunOutput:
    """Release, intervals, figures and report into ``folder / "private"``, a new folder in the
    session's existing one (so nothing is written once the session's folder is gone); the
    non-private reference, on request, only as an image in memory. A bad setting comes back as
    ``RunOutput(error=...)``; ``on_step`` hears the name of each stage as it starts."""
    from dppca.exceptions import UnreliableScaleError
    from dppca.job import run_job
    from dppca.report import page_images

    refused = problem(table, settings)
    if refused:
        return RunOutput(error=refused)
    columns = list(settings.variables)
    data = table.frame[columns + ([settings.group] if settings.group else [])]
    on_step("waiting for another session's run" if RUN_LOCK.locked() else "starting")
    with RUN_LOCK:
        on_step("estimating the private release")
        with warnings.catch_warnings(record=True) as caught:  # the release's own notes
            warnings.simplefilter("always")
            try:
                job = run_job(
                    data,
                    settings.epsilon,
                    settings.delta,
                    seed=settings.seed,
                    on_step=on_step,
                    groups=settings.group,
                    non_private=settings.non_private,
                    progress=False,
                    **settings.options(),
                )
            except UnreliableScaleError as error:  # the app has no consent to a guess
                stopped = " ".join(str(error).split()).split(" Pass public scales")[0]
                return RunOutput(
                    error=f"{stopped} Give more epsilon, or choose no scaling.",
                    spent=error.result.privacy.total,
                )
            except (ValueError, TypeError) as error:
                return RunOutput(error=" ".join(str(error).split()))
        result = job.result
        private = folder / "private"
        try:
            folder.mkdir()
            private.mkdir()
        except FileNotFoundError:  # the session ended while the release was computed
            return RunOutput(error="The session ended.")
        job.write(private, title="Private PCA report", source=table.source, on_step=on_step)
        reference_png = None
        if settings.non_private:
            on_step("drawing the non-private reference")
            _, page = page_images(
                result, non_private=True, formats=("png",), random_state=job.reference_rng
            )
            reference_png = page["png"]
    summary = result.summary()
    messages = list(dict.fromkeys(app_advice(str(w.message)) for w in caught))
    return RunOutput(
        folder=private,
        release=result,
        uncertainty=job.uncertainty,
        budget=summary.budget,
        importance=summary.importance,
        warnings=messages,
        reference_png=reference_png,
        panels=PanelImages.from_report(result, job.uncertainty, private),
    )


def png_bytes(figure: Any) -> bytes:
    """A figure as PNG bytes (the figure is closed)."""
    from dppca.plotting.export import render_figure

    return render_figure(figure, {"png": 90})["png"]
