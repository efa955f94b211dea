"""One private release job, as the command line and the app make it: ``dp_pca`` on the data,
its noise intervals, and the random streams of its figures and of the non-private reference,
all from one seed.

The seed is spawned into four independent streams (the noise, the figures' synthetic points,
the reference's and the intervals' redraws), so that a published figure never replays the
noise's random words and a redraw never reuses a figure's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dppca.pipeline import dp_pca
from dppca.report import write_non_private_report, write_release
from dppca.results.pca import DPPCAResult
from dppca.results.uncertainty import Uncertainty

#: The noise intervals' redraws per release.
DRAWS = 200


@dataclass(frozen=True)
class ReleaseJob:
    """A private release with its noise intervals and the random streams of its drawings.

    Attributes
    ----------
    result : DPPCAResult
    uncertainty : Uncertainty
        From :data:`DRAWS` redraws of the release's noise (no budget).
    figure_rng, reference_rng : numpy.random.Generator
        The synthetic points of the private figures, and of the non-private reference's.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 4)) * [3, 2, 1, 0.5]
    >>> job = run_job(X, 4.0, 1e-6, seed=1, score={"bins": 6})
    >>> job.uncertainty.draws, job.result.k
    (200, 4)
    """

    result: DPPCAResult
    uncertainty: Uncertainty
    figure_rng: np.random.Generator
    reference_rng: np.random.Generator

    def write(
        self,
        folder: Path,
        *,
        title: str,
        source: str,
        on_step: Callable[[str], None] | None = None,
    ) -> Path:
        """The release, its figures and its report into ``folder``
        (:func:`~dppca.report.write_release`)."""
        return write_release(
            self.result,
            folder,
            uncertainty=self.uncertainty,
            random_state=self.figure_rng,
            title=title,
            source=source,
            on_step=on_step,
        )

    def write_reference(self, folder: Path, *, title: str, source: str) -> Path:
        """The non-private reference's report into ``folder``, apart from the release
        (:func:`~dppca.report.write_non_private_report`)."""
        return write_non_private_report(
            self.result, folder, title=title, source=source, random_state=self.reference_rng
        )


def run_job(
    data: Any,
    epsilon: float,
    delta: float,
    *,
    seed: Any = None,
    on_step: Callable[[str], None] | None = None,
    **options: Any,
) -> ReleaseJob:
    """``dp_pca(data, epsilon, delta, **options)`` on the noise stream of ``seed`` (an integer,
    a SeedSequence or None for fresh entropy), then its noise intervals; ``on_step`` hears the
    intervals' stage as it starts."""
    noise, figures, reference, redraws = np.random.SeedSequence(seed).spawn(4)
    result = dp_pca(data, epsilon, delta, random_state=noise, **options)
    if on_step is not None:
        on_step("simulating the noise intervals")
    uncertainty = result.uncertainty(draws=DRAWS, random_state=redraws)
    return ReleaseJob(
        result, uncertainty, np.random.default_rng(figures), np.random.default_rng(reference)
    )
