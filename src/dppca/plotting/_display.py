"""The base of the display objects, in the manner of scikit-learn's ``ConfusionMatrixDisplay``.

A display holds the arrays it draws (``__init__``), draws them with :meth:`plot` (``ax=None``
makes a new figure; the Axes and Figure are kept as ``ax_`` and ``figure_``) and is built from a
result with ``from_result``, which also plots. Every result type has ``.plot(kind)``, which
returns the display; a display given a result it cannot draw raises a ``TypeError`` naming the
types it takes. Drawing spends no privacy budget: displays show released values and their
post-processing; non-private references are drawn only when asked and are titled as such.

Figures of several displays are in :mod:`dppca.plotting.pages`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca.numerics.linalg import orient_columns
from dppca.plotting._results import is_result
from dppca.plotting._style import axes_or_new, finish, note


def version_titles(non_private: bool) -> tuple[str, str]:
    """A panel title's prefix and suffix: the private release's or the reference's."""
    return ("Non-private", " (reference)") if non_private else ("DP", "")


#: The ledger components of each part of a pipeline's budget named in a caption.
CAPTIONED = {"scree": ("scree",), "score": ("score.frame", "score.histogram")}


def budget_title(result: Any, part: str) -> str:
    """What the releases of ``part`` spent together, from the ledger (under tight composition
    a part spends more than its share of the total)."""
    spent = result.privacy.select(*CAPTIONED[part]).total
    return f"ε={spent.epsilon:.3g}, δ={spent.delta:.2g}"


def reference_of(result: Any) -> Any:
    """The result's non-private reference, or a clear error when it was not requested."""
    if getattr(result, "non_private", None) is None:
        raise ValueError(
            "No non-private reference was computed; compute the result with non_private=True "
            "(the reference is NOT differentially private)."
        )
    return result.non_private


def unstable_note(uncertainty: Any, axes: tuple[int, int] | None = None) -> str:
    """``"\\nunstable under the noise: PC3, PC4"`` for the flagged components (all, or
    ``axes``); empty when none is flagged or no uncertainty is given."""
    if uncertainty is None:
        return ""
    flagged = [j for j in uncertainty.unstable() if axes is None or j in axes]
    if not flagged:
        return ""
    runs: list[list[int]] = []
    for j in flagged:
        if runs and j == runs[-1][-1] + 1:
            runs[-1].append(j)
        else:
            runs.append([j])
    text = ", ".join(f"PC{r[0]}" if len(r) == 1 else f"PC{r[0]}-{r[-1]}" for r in runs)
    return f"\nunstable under the noise: {text}"


class Display:
    """What every display shares: ``ax_`` and ``figure_`` after :meth:`plot`."""

    ax_: Any
    figure_: Any

    def _draw(self, ax: Any) -> Any:
        raise NotImplementedError

    def plot(self, ax: Any = None) -> Any:
        """Draw on ``ax`` (a new figure when None) and return the display.

        Parameters
        ----------
        ax : Axes, optional
            The matplotlib Axes to draw on; kept as ``ax_``, its figure as ``figure_``.

        Returns
        -------
        Display
        """
        self.ax_ = self._draw(ax)
        self.figure_ = self.ax_.figure
        return self


@dataclass(eq=False)
class UnusableDisplay(Display):
    """The panel of a release marked unusable (:mod:`dppca.results.status`): its title and,
    in place of the values (released as NaN), what happened.

    Examples
    --------
    >>> from dppca.plotting import UnusableDisplay
    >>> display = UnusableDisplay("DP score histogram", "frame", "misplaced: it misses the data")
    >>> "not usable" in display.plot().ax_.texts[0].get_text()
    True
    """

    title: str
    release: str
    reason: str

    def _draw(self, ax: Any) -> Any:
        ax = axes_or_new(ax)
        ax.set_xticks([])
        ax.set_yticks([])
        finish(ax, self.title)
        note(ax, textwrap.fill(f"The {self.release} is not usable: {self.reason}", 40))
        return ax


def unusable(result: Any, names: tuple[str, ...], title: str, ax: Any) -> Any:
    """An :class:`UnusableDisplay` drawn on ``ax`` when one of the result's releases ``names``
    is marked unusable, or None."""
    for name in names:
        status = getattr(result, "status", {}).get(name)
        if status is not None and not status.usable:
            return UnusableDisplay(title, name, str(status)).plot(ax)
    return None


def status_caption(result: Any, names: tuple[str, ...]) -> str | None:
    """A caption naming the result's releases ``names`` that are usable but not ok
    (noise-dominated, too wide, guessed), or None."""
    flagged = []
    for name in names:
        status = getattr(result, "status", {}).get(name)
        if status is not None and status.usable and status.state != "ok":
            flagged.append(f"the {name} is {status.state}")
    if not flagged:
        return None
    return "Caution: " + "; ".join(flagged) + " (see result.status)."


def plotted_axes(result: Any) -> tuple[int, int]:
    """The components a pipeline or score result plots; PC1 and PC2 for anything else."""
    if is_result(result, "DPPCAResult", "ScoreResult"):
        return (int(result.axes[0]), int(result.axes[1]))
    return (1, 2)


def reference_directions(result: Any, align_sign: bool = True) -> np.ndarray:
    """Ordinary PCA's directions of a result's reference: sign-aligned to the private ones, or
    (``align_sign=False``) with their own sign convention (largest entry positive)."""
    reference = reference_of(result)
    directions = np.asarray(reference.directions)
    return directions if align_sign else orient_columns(directions)
