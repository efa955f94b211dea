"""Warnings about noise-dominated outputs, judged from released values and public settings only.

Each check is post-processing of a release (its value and its public noise scale), so a note
reveals nothing more about the data than the release itself:

* a plotted direction whose released Kendall eigen-gap is within the noise: the typical
  perturbation of an eigenvector is ``||E v|| / gap`` (first-order perturbation theory), about
  ``s sqrt(p - 1) / gap`` for off-diagonal noise sd ``s = sigma / sqrt 2``; the note fires when
  that exceeds 1/2;
* a plotted component whose released variance is within two noise sd of 0;
* a scree whose released variances increase by more than four noise sd, so that the
  non-increasing fit pools them;
* a score histogram whose noisy kept mass is less than half, or more than one and a half
  times, the ``n`` rows (cells lost below the threshold, or empty cells kept by noise);
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from dppca._stack import user_stacklevel
from dppca.exceptions import NoiseDominatedWarning, PrivacyWarning

#: A histogram whose kept mass is off the rows' by more than this share is flagged.
MASS_TOLERANCE = 0.5
#: How the note of :func:`order_notes` begins (the scree panel looks for it).
POOLED_SCREE = "The non-increasing scree fit pooled"


def direction_notes(eigenvalues: np.ndarray, sigma: float, axes: Sequence[int]) -> list[str]:
    """Plotted directions (1-based ``axes``) whose Kendall eigen-gap is within the noise."""
    p = len(eigenvalues)
    reach = sigma / math.sqrt(2.0) * math.sqrt(p - 1)
    notes = []
    for axis in axes:
        j = axis - 1
        gaps = [eigenvalues[j - 1] - eigenvalues[j]] if j > 0 else []
        gaps += [eigenvalues[j] - eigenvalues[j + 1]] if j + 1 < p else []
        gap = min(gaps)
        if gap <= 0 or reach / gap > 0.5:
            notes.append(
                f"PC{axis}'s direction is not determined by the data: its released eigen-gap "
                f"({gap:.3g}) is within the noise (typical perturbation {reach:.3g}); PC{axis} "
                "may be a mixture of neighbouring components. Use more epsilon for the loading."
            )
    return notes


def variance_notes(values: np.ndarray, sd: np.ndarray, axes: Sequence[int]) -> list[str]:
    """Plotted components whose released variance is within two noise sd of 0."""
    return [
        f"PC{axis}'s released variance ({values[axis - 1]:.3g}) is within two noise sd "
        f"({2 * sd[axis - 1]:.3g}) of zero; its scree value and PVE are mostly noise."
        for axis in axes
        if axis <= len(values) and values[axis - 1] < 2 * sd[axis - 1]
    ]


def order_notes(raw: np.ndarray, sd: np.ndarray, mono: bool) -> list[str]:
    """With the antitonic fit, a released variance that exceeds an earlier component's by more
    than four noise sd of their difference (few false alarms among the ``k (k - 1) / 2``
    pairs): the fit then pools them, and the scree no longer
    shows the variances along the directions (robust directions are ordered by their Kendall
    eigenvalues, which heavy-tailed or mostly-tied variables can rank low)."""
    if not mono:
        return []
    for later in range(1, len(raw)):
        for earlier in range(later):
            spread = 4.0 * math.hypot(sd[earlier], sd[later])
            if raw[later] - raw[earlier] > spread:
                return [
                    f"{POOLED_SCREE} variances that increase: the private variance along "
                    f"PC{later + 1} ({raw[later]:.3g}) exceeds PC{earlier + 1}'s "
                    f"({raw[earlier]:.3g}) by more than four noise sd. The directions' order "
                    "(by the robust Kendall eigenvalues) and the variances disagree, often "
                    'because of heavy-tailed or mostly-zero variables. scree="huber" '
                    "estimates robust variances, which follow the robust directions; "
                    "mono=False shows these variances."
                ]
    return []


def histogram_notes(mass: float, n: int) -> list[str]:
    """A histogram whose noisy kept mass is off ``n`` by more than ``MASS_TOLERANCE n``."""
    if abs(mass - n) <= MASS_TOLERANCE * n:
        return []
    return [
        f"The score histogram kept {mass / n:.0%} of the rows' mass after noise and threshold: "
        "it is dominated by noise (cells lost below the threshold, or empty cells kept). Use "
        "more epsilon for the score plot or fewer bins."
    ]


#: A first direction with a loading at least this large is "almost one variable".
ONE_VARIABLE = 0.95


def one_variable_notes(directions: np.ndarray, names: Sequence[str], scaled: bool) -> list[str]:
    """Unscaled data whose first private direction is almost one variable (a loading of at
    least ``ONE_VARIABLE``): usually the variable with the largest units, not a structure
    of the data.

    Examples
    --------
    >>> directions = np.array([[0.999, 0.04], [0.04, -0.999]])
    >>> one_variable_notes(directions, ["income", "age"], scaled=False)[0][:40]
    "PC1 is almost one variable, 'income' (lo"
    """
    if scaled:
        return []
    first = np.abs(directions[:, 0])
    j = int(np.argmax(first))
    if first[j] < ONE_VARIABLE:
        return []
    return [
        f"PC1 is almost one variable, {names[j]!r} (loading {first[j]:.3f}): with variables in "
        "different units the directions follow the largest numbers. Try scale='private', or "
        "public scales (scale=[...]); a StandardScaler fitted on the data is not private."
    ]


def emit(notes: Sequence[str]) -> None:
    """Issue each note as a :class:`~dppca.exceptions.NoiseDominatedWarning`, at the caller's
    line."""
    for note in notes:
        warnings.warn(note, NoiseDominatedWarning, stacklevel=user_stacklevel())


@contextmanager
def public_notes() -> Iterator[list[str]]:
    """Collect the notes that public-value checks warn about inside the block (a budget too
    small to locate a quantile, a weak budget), and issue every warning again on leaving."""
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield notes
    for warning in caught:
        if issubclass(warning.category, NoiseDominatedWarning | PrivacyWarning):
            notes.append(str(warning.message))
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
