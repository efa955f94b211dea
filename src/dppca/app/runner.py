"""One private run of the app: ``dp_pca`` on the chosen columns, its noise intervals, and the
files a user can download (the release, the figures, the report), written into the session's
own folder. The non-private reference is computed only on request and written apart."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dppca.app.data import Table, split_shares

#: Runs one at a time: matplotlib's figure manager and the warnings filters are process-wide.
_RUN_LOCK = threading.Lock()
#: The panels shown in the page, in order, with their titles.
PANELS = {
    "scree": "Proportion of variance (scree)",
    "score": "Scores (private histogram)",
    "loading": "Loadings",
    "variable": "Variable plot",
    "biplot": "Biplot",
}


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
    scree: str
    scree_control: dict[str, Any] = field(default_factory=dict)
    score: str = "thresholded"
    seed: int | None = None
    non_private: bool = False

    def split(self) -> dict[str, float]:
        """The budget shares; a private scale takes a tenth first (as on the command line)."""
        shares = split_shares(self.handles)
        if self.scale == "private":
            return {"scale": 0.1, **{name: 0.9 * share for name, share in shares.items()}}
        return shares

    def options(self) -> dict[str, Any]:
        """``dp_pca``'s keyword arguments (besides the data and the total budget)."""
        return {
            "split": self.split(),
            "k": self.k,
            "bins": None if self.bins == 0 else (self.bins, self.bins),
            "scree": self.scree,
            "scree_control": self.scree_control or None,
            "score": self.score,
            "scale": "private" if self.scale == "private" else None,
        }


@dataclass(frozen=True)
class RunOutput:
    """The outcome of a run: the folder of downloads, the release and its noise intervals (for
    redrawing the page, which spends no budget), the tables shown, the warnings (from released
    values only) and the reference folder when asked for; or an error message."""

    folder: Path | None = None
    release: Any = None
    uncertainty: Any = None
    budget: pd.DataFrame | None = None
    importance: pd.DataFrame | None = None
    warnings: list[str] = field(default_factory=list)
    reference: Path | None = None
    error: str | None = None


def run(
    table: Table,
    settings: Settings,
    folder: Path,
    on_step: Callable[[str], None] = lambda stage: None,
) -> RunOutput:
    """Release, intervals, figures and report into ``folder / "private"`` (and the reference
    into ``folder / "reference"``); a bad setting comes back as ``RunOutput(error=...)``;
    ``on_step`` hears the name of each stage as it starts."""
    from dppca.pipeline import dp_pca
    from dppca.report import write_non_private_report, write_release

    columns = list(settings.variables)
    if len(columns) < 2:
        return RunOutput(error="Choose at least two variables.")
    if settings.group in columns:
        return RunOutput(error=f"The group column {settings.group!r} cannot also be a variable.")
    data = table.frame[columns + ([settings.group] if settings.group else [])]
    noise_seed, figure_seed, reference_seed, redraw_seed = np.random.SeedSequence(
        settings.seed
    ).spawn(4)
    on_step("waiting for another session's run" if _RUN_LOCK.locked() else "starting")
    with _RUN_LOCK:
        on_step("estimating the private release")
        with warnings.catch_warnings(record=True) as caught:  # the release's own notes
            warnings.simplefilter("always")
            try:
                result = dp_pca(
                    data,
                    settings.epsilon,
                    settings.delta,
                    groups=settings.group,
                    random_state=noise_seed,
                    non_private=settings.non_private,
                    progress=False,
                    **settings.options(),
                )
            except (ValueError, TypeError) as error:
                return RunOutput(error=" ".join(str(error).split()))
            on_step("simulating the noise intervals")
            uncertainty = result.uncertainty(draws=200, random_state=redraw_seed)
        private = folder / "private"
        private.mkdir(parents=True, exist_ok=True)
        write_release(
            result,
            private,
            uncertainty=uncertainty,
            random_state=np.random.default_rng(figure_seed),
            title="Private PCA report",
            source=table.source,
            on_step=on_step,
        )
        reference = None
        if settings.non_private:
            on_step("drawing the non-private reference")
            reference = folder / "reference"
            write_non_private_report(
                result,
                reference,
                title="Private PCA report",
                source=table.source,
                random_state=np.random.default_rng(reference_seed),
            )
    summary = result.summary()
    messages = list(dict.fromkeys(" ".join(str(w.message).split()) for w in caught))
    return RunOutput(
        folder=private,
        release=result,
        uncertainty=uncertainty,
        budget=summary.budget,
        importance=summary.importance,
        warnings=messages,
        reference=reference,
    )
