"""Coordinates of the variable (correlation) plot and of the biplot, as the R package ``dppca``
draws them. Pure functions of released quantities: no budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dppca._validation import check_real


def _axis_columns(axes: tuple[int, int]) -> list[int]:
    return [axes[0] - 1, axes[1] - 1]


def variable_correlations(
    directions: np.ndarray,
    eigenvalues: np.ndarray,
    axes: tuple[int, int] = (1, 2),
    *,
    sd: np.ndarray | None = None,
) -> np.ndarray:
    """Correlations of the variables with two principal components.

    Private (``sd=None``): ``A_jl = V_jl sqrt(lambda_l) / sqrt(sum_{m <= k} V_jm^2 lambda_m)``
    with the ``k`` private scree values ``lambda``: each variable's variance is rebuilt from the
    ``k`` estimated components only, so its vector has length 1 in ``k``-space (as in R).
    Rows whose denominator is not positive and finite are NaN. Reference (``sd`` given):
    ``A_jl = V_jl sqrt(lambda_l) / sd_j``.

    Parameters
    ----------
    directions : ndarray of shape (p, p) or (p, k)
    eigenvalues : ndarray of shape (k,)
        Variances along the first ``k`` directions (negative values count as 0).
    axes : (int, int)
        1-based component numbers, at most ``k``.
    sd : ndarray of shape (p,), optional
        Variable standard deviations (non-private reference only).

    Returns
    -------
    ndarray of shape (p, 2)
    """
    lam = np.maximum(np.asarray(eigenvalues, dtype=np.float64), 0.0)
    k = len(lam)
    V = np.asarray(directions, dtype=np.float64)[:, :k]
    columns = _axis_columns(axes)
    numerators = V[:, columns] * np.sqrt(lam[columns])
    if sd is None:
        denominators = np.sqrt(np.sum(V**2 * lam, axis=1))
    else:
        denominators = np.asarray(sd, dtype=np.float64)
    valid = np.isfinite(denominators) & (denominators > 0)
    result = np.full(numerators.shape, np.nan)
    result[valid] = numerators[valid] / denominators[valid, None]
    return result


@dataclass(frozen=True)
class BiplotCoordinates:
    """Biplot coordinates (as in the R package ``dppca``).

    Attributes
    ----------
    points : ndarray of shape (m, 2)
        Observations (synthetic, from a private histogram) divided by ``scale``.
    arrows : ndarray of shape (p, 2)
        Arrow tips ``V[:, axes] * scale * arrow_scale``, drawn from the origin.
    scale : ndarray of shape (2,)
        ``d^alpha`` with ``d = sqrt((n - 1) lambda)``; (1, 1) for ``alpha = 0``.
    arrow_scale : float
        ``score_radius / arrow_radius`` (0 when either is 0): the 90th-percentile radius of the
        points about their mean over the longest loading vector (all variables).
    score_center : ndarray of shape (2,)
    score_radius, arrow_radius : float
    xlim, ylim : tuple of float or None
        A square display frame: the transformed private frame extended to the origin and the
        arrow tips (when a frame was given).
    note : str
        What was suppressed, if anything.
    """

    points: np.ndarray
    arrows: np.ndarray
    scale: np.ndarray
    arrow_scale: float
    score_center: np.ndarray
    score_radius: float
    arrow_radius: float
    xlim: tuple[float, float] | None
    ylim: tuple[float, float] | None
    note: str


def _square(
    xlim: tuple[float, float], ylim: tuple[float, float]
) -> tuple[tuple[float, float], ...]:
    span = max(xlim[1] - xlim[0], ylim[1] - ylim[0]) or 1.0
    centres = ((xlim[0] + xlim[1]) / 2, (ylim[0] + ylim[1]) / 2)
    return tuple((centre - span / 2, centre + span / 2) for centre in centres)


def biplot_coordinates(
    points: Any,
    directions: np.ndarray,
    eigenvalues: np.ndarray,
    axes: tuple[int, int],
    n_samples: int,
    *,
    alpha: float = 0.0,
    arrow_scale: float | None = None,
    frame_limits: tuple[tuple[float, float], tuple[float, float]] | None = None,
) -> BiplotCoordinates:
    """Biplot coordinates from points, directions and variances (post-processing only).

    Parameters
    ----------
    points : array-like of shape (m, 2)
        Score points to draw: synthetic points from a private histogram for a private biplot.
    directions : ndarray of shape (p, p)
    eigenvalues : ndarray of shape (k,)
        Variances along the directions (private scree values for a private biplot).
    axes : (int, int)
        1-based component numbers.
    n_samples : int
        The (public) number of rows, for ``d = sqrt((n - 1) lambda)``.
    alpha : float in [0, 1], default 0
        Points are divided and arrows multiplied by ``d^alpha`` (0: no scaling).
    arrow_scale : float, optional
        Reuse another panel's multiplier (the reference biplot reuses the private one).
    frame_limits : ((xmin, xmax), (ymin, ymax)), optional
        The private frame, transformed like the points and squared into the display frame.
    """
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_inclusive=True, high_inclusive=True)
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    columns = _axis_columns(axes)
    lam = np.maximum(np.asarray(eigenvalues, dtype=np.float64)[columns], 0.0)
    d = np.sqrt((n_samples - 1) * lam)
    scale = np.ones(2) if alpha == 0 else d**alpha
    active = scale > 0
    notes = []
    if not active.all():
        notes.append("zero-eigenvalue axis suppressed")
    inverse = np.where(active, 1.0 / np.where(active, scale, 1.0), 0.0)
    shown = points * inverse
    loadings = np.asarray(directions, dtype=np.float64)[:, columns] * np.where(active, scale, 0.0)
    if not (np.isfinite(shown).all() and np.isfinite(loadings).all()):
        raise ValueError("Non-finite alpha-transformed biplot coordinates.")
    if len(shown):
        center = shown.mean(axis=0)
        radius = float(np.quantile(np.linalg.norm(shown - center, axis=1), 0.9))
    else:
        center, radius = np.zeros(2), 0.0
        notes.append("no synthetic observations")
    longest = float(np.max(np.linalg.norm(loadings, axis=1)))
    if arrow_scale is None:
        arrow_scale = radius / longest if radius > 0 and longest > 0 else 0.0
    if arrow_scale == 0:
        notes.append("zero reference radius; arrows omitted")
    arrows = loadings * arrow_scale
    xlim = ylim = None
    if frame_limits is not None:
        limits = np.asarray(frame_limits, dtype=np.float64) * inverse[:, None]
        xs = np.concatenate([limits[0], [0.0], arrows[:, 0]])
        ys = np.concatenate([limits[1], [0.0], arrows[:, 1]])
        xlim, ylim = _square((xs.min(), xs.max()), (ys.min(), ys.max()))
    return BiplotCoordinates(
        points=shown,
        arrows=arrows,
        scale=scale,
        arrow_scale=float(arrow_scale),
        score_center=center,
        score_radius=radius,
        arrow_radius=longest,
        xlim=xlim,
        ylim=ylim,
        note="; ".join(notes),
    )
