"""The privacy noise of a release, made visible: intervals and stability from its known noise.

Every private release here adds noise of a known, public distribution to a statistic. Bounds
and redraws computed from that distribution around the *released* values are post-processing:
they cost no budget. The intervals aim at the noiseless value (the value the same computation
gives without noise, on the same data, with the same released clip level); they describe the
privacy noise only, **not** the sampling error of the data.

* Scree and PVE: before the antitonic fit each scree value is its noiseless value plus Gaussian
  noise of a recorded sd, so ``raw +- c sd`` with ``c`` the normal quantile at
  ``1 - (1 - level^(1/k)) / 2`` (Sidak) holds every noiseless value at once with probability
  ``level``. The fit (pool adjacent violators on ``max(values, 0)``) preserves order, so the
  fits of the two ends bound the fitted noiseless scree at once, and the PVE of component j is
  bounded by ``L_j / (L_j + sum_{i != j} U_i)`` and ``U_j / (U_j + sum_{i != j} L_i)``. The
  intervals cover at least at ``level`` (measured: 97 % to 100 % for 95 % intervals on iris,
  wine, breast cancer, diabetes and two equal spikes at epsilon 1 to 8), where percentile
  intervals of redraws covered 36 % to 96 %: the fit's bias near ties and zeros moved them
  off. For ``scree="huber"`` only the last gradient step's noise is known, so its intervals
  are narrower than the noise of the whole descent.
* Directions: the released Kendall matrix ``V diag(lambda) V'`` plus fresh symmetric Gaussian
  matrices of the release's noise (diagonal sd ``sigma``, off-diagonal ``sigma / sqrt 2``),
  eigenvectors sign-aligned to the released ones, give basic (reverse-percentile) intervals
  ``[2 t - q_hi, 2 t - q_lo]`` (Davison and Hinkley 1997, Section 5.2; the parametric redraw
  of a mechanism's noise follows Ferrando, Wang and Sheldon 2022). They cover well only for a
  component whose eigenvalue is separated from the others beyond the noise: where the noise is
  comparable with an eigen-gap, the released gap is inflated by the noise and the redraws spread
  too little (about 70 % coverage). So a component is **identified** only when its released
  eigenvalue lies more than ``2 t`` from every other, ``t`` the ``level`` quantile of the noise
  matrix's spectral norm (from the redraws): by Weyl's inequality its noiseless eigenvalue is
  then apart from the others, and by the Davis-Kahan theorem its noiseless direction lies
  within ``arcsin(t / (gap - t))`` of the released one. Components not identified get the
  whole range ``[-1, 1]``; identified ones keep the basic intervals (measured: 93 % to 96 %
  coverage for 95 % intervals on those tables, against 71 % for the components not
  identified).
  Stability of PC j: the mean ``sin Theta`` between the released direction and a redraw, and
  how often a redraw's PC j lies closer to the released PC j+1 than to PC j (a swap).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy.special import ndtri

from dppca._validation import check_positive_int, check_random_state, check_real
from dppca.numerics.linalg import pc_labels
from dppca.numerics.monotone import antitonic, proportions


@dataclass(frozen=True)
class Uncertainty:
    """Noise intervals and stability of a release (post-processing; no budget).

    Attributes
    ----------
    draws : int
    level : float
        The intervals' nominal coverage.
    loadings : DataFrame
        One row per variable and component: ``variable``, ``component``, ``value``, ``lower``,
        ``upper``.
    scree, pve : DataFrame
        Index ``PC1..PCk``; columns ``value``, ``sd`` (the redraws' sd), ``lower``, ``upper``.
    stability : DataFrame
        Index ``PC1..PCk``; ``sin_theta`` (mean sin of the angle between the released direction
        and a redraw), ``swap`` (share of redraws in which PC j lies closer to the released
        PC j+1; 0 for PC p) and ``identified`` (the released eigenvalue is separated from the
        others beyond the noise; a component that is not has loading intervals ``[-1, 1]``).
    """

    draws: int
    level: float
    loadings: pd.DataFrame
    scree: pd.DataFrame
    pve: pd.DataFrame
    stability: pd.DataFrame

    def unstable(self, sin_theta: float = 0.5, swap: float = 0.1) -> list[int]:
        """The 1-based components that are not identified, or whose redraws move by more than
        ``sin_theta`` on average or swap with the next component in more than ``swap`` of the
        draws."""
        flagged = (
            ~self.stability["identified"]
            | (self.stability["sin_theta"] > sin_theta)
            | (self.stability["swap"] > swap)
        )
        return [int(j) + 1 for j in np.flatnonzero(flagged.to_numpy())]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready lists (a non-finite number, from a scree of overflowing noise, is None)."""

        def lists(table: pd.DataFrame) -> dict[str, list[Any]]:
            clean = table.astype(object).where(table.map(_finite_or_text), None)
            return {str(key): values for key, values in clean.to_dict(orient="list").items()}

        return {
            "draws": self.draws,
            "level": self.level,
            "loadings": lists(self.loadings),
            "scree": lists(self.scree.reset_index(names="component")),
            "pve": lists(self.pve.reset_index(names="component")),
            "stability": lists(self.stability.reset_index(names="component")),
        }


def _finite_or_text(value: Any) -> bool:
    return isinstance(value, str) or bool(np.isfinite(value))


def basic_interval(value: np.ndarray, redraws: np.ndarray, level: float) -> np.ndarray:
    """``[2 t - q_hi, 2 t - q_lo]`` from redraws (first axis) of the statistic ``t``."""
    low, high = np.quantile(redraws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return np.stack([2 * value - high, 2 * value - low])


def direction_redraws(
    directions: np.ndarray,
    eigenvalues: np.ndarray,
    sigma: float,
    draws: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvectors (descending, sign-aligned to ``directions``) of the released Kendall matrix
    plus ``draws`` fresh noise matrices, shape ``(draws, p, p)``, and the noise matrices'
    spectral norms, shape ``(draws,)``."""
    kendall = (directions * eigenvalues) @ directions.T
    p = len(eigenvalues)
    out = np.empty((draws, p, p))
    norms = np.empty(draws)
    for b in range(draws):
        z = rng.standard_normal((p, p))
        noise = sigma * (z + z.T) / 2.0
        norms[b] = np.abs(np.linalg.eigvalsh(noise)).max()
        _, vectors = np.linalg.eigh(kendall + noise)
        vectors = vectors[:, ::-1]
        signs = np.where(np.einsum("ij,ij->j", vectors, directions) < 0, -1.0, 1.0)
        out[b] = vectors * signs
    return out, norms


def identified(eigenvalues: np.ndarray, bound: float) -> np.ndarray:
    """Whether each released eigenvalue lies more than ``2 bound`` from every other, ``bound``
    a bound on the noise matrix's spectral norm: then (Weyl) the noiseless eigenvalue is apart
    from the others and (Davis-Kahan) the noiseless direction within ``arcsin(bound / (gap -
    bound))`` of the released one.

    Examples
    --------
    >>> identified(np.array([5.0, 2.0, 1.9]), 0.5).tolist()
    [True, False, False]
    """
    values = np.asarray(eigenvalues, dtype=np.float64)
    if len(values) < 2:
        return np.ones(len(values), dtype=bool)
    gaps = np.abs(values[:, None] - values[None, :])
    np.fill_diagonal(gaps, np.inf)
    return cast("np.ndarray", gaps.min(axis=1) > 2.0 * bound)


def direction_stability(
    directions: np.ndarray, redraws: np.ndarray, k: int, separated: np.ndarray
) -> pd.DataFrame:
    """Mean ``sin Theta`` to the released direction, the swap share and whether the component
    is identified (``separated``), for PC1..PCk."""
    overlap = np.abs(np.einsum("bij,ik->bjk", redraws[:, :, :k], directions[:, : k + 1]))
    same = np.clip(overlap[:, np.arange(k), np.arange(k)], 0.0, 1.0)
    sin_theta = np.sqrt(1.0 - same**2).mean(axis=0)
    swap = np.zeros(k)
    if directions.shape[1] > 1:
        upto = min(k, directions.shape[1] - 1)
        following = overlap[:, np.arange(upto), np.arange(1, upto + 1)]
        swap[:upto] = (following > same[:, :upto]).mean(axis=0)
    index = pc_labels(k)
    return pd.DataFrame(
        {"sin_theta": sin_theta, "swap": swap, "identified": separated[:k]}, index=index
    )


def scree_redraws(
    raw: np.ndarray, sd: np.ndarray, mono: bool, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """The scree after fresh noise of sd ``sd`` on the pre-fit values ``raw`` (refitted)."""
    noisy = raw + rng.standard_normal((draws, len(raw))) * sd
    fit = antitonic if mono else (lambda values: np.maximum(values, 0.0))
    return np.array([fit(values) for values in noisy])


def scree_bounds(
    raw: np.ndarray, sd: np.ndarray, mono: bool, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds that hold every fitted noiseless scree value at once with probability at least
    ``level``: the fits of ``raw -+ c sd``, ``c`` Sidak's normal quantile for ``k`` values
    (the fit preserves order).

    Examples
    --------
    >>> lower, upper = scree_bounds(np.array([4.0, 1.0]), np.array([0.1, 0.1]), True, 0.95)
    >>> bool(lower[0] < 4.0 < upper[0]), round(float(upper[0] - 4.0), 3)
    (True, 0.224)
    """
    k = len(raw)
    c = float(-ndtri((1.0 - level ** (1.0 / k)) / 2.0))
    fit = antitonic if mono else (lambda values: np.maximum(values, 0.0))
    with np.errstate(over="ignore", invalid="ignore"):  # a scree of huge noise: infinite ends
        return fit(raw - c * sd), fit(raw + c * sd)


def pve_bounds(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on each proportion ``f_j / sum f`` over every non-negative ``f`` between
    ``lower`` and ``upper``: ``L_j / (L_j + sum_{i != j} U_i)`` and ``U_j / (U_j +
    sum_{i != j} L_i)`` (``[0, 1]`` where they are not defined).

    Examples
    --------
    >>> [b.round(3).tolist() for b in pve_bounds(np.array([3.0, 0.0]), np.array([4.0, 1.0]))]
    [[0.75, 0.0], [1.0, 0.25]]
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        low = lower / (lower + (upper.sum() - upper))
        high = upper / (upper + (lower.sum() - lower))
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def _table(
    value: np.ndarray, redraws: np.ndarray, bounds: tuple[np.ndarray, np.ndarray]
) -> pd.DataFrame:
    """The released values, the redraws' sd and the bounds."""
    index = pc_labels(len(value))
    with np.errstate(over="ignore", invalid="ignore"):  # a scree of huge noise: sd inf
        sd = redraws.std(axis=0)
    lower, upper = bounds
    return pd.DataFrame({"value": value, "sd": sd, "lower": lower, "upper": upper}, index=index)


def release_uncertainty(
    *,
    directions: np.ndarray,
    kendall_eigenvalues: np.ndarray | None,
    kendall_sigma: float | None,
    scree_raw: np.ndarray,
    scree_sd: np.ndarray,
    mono: bool,
    feature_names: list[str],
    draws: Any = 200,
    level: Any = 0.95,
    random_state: Any = None,
    usable_scree: bool = True,
) -> Uncertainty:
    """Intervals and stability of a release from its released values and noise scales (given
    directions, ``kendall_eigenvalues=None``, carry no noise: their intervals are points; a
    scree that is not ``usable_scree`` has NaN values and intervals)."""
    draws = check_positive_int(draws, "draws")
    if draws < 20:
        raise ValueError(f"draws must be at least 20 for the intervals' quantiles; got {draws}.")
    level = check_real(level, "level", low=0.0, high=1.0)
    rng = check_random_state(random_state)
    k = len(scree_raw)
    if kendall_eigenvalues is None or kendall_sigma is None:
        vectors = np.repeat(directions[None], draws, axis=0)
        separated = np.ones(directions.shape[1], dtype=bool)
    else:
        vectors, norms = direction_redraws(
            directions, kendall_eigenvalues, kendall_sigma, draws, rng
        )
        separated = identified(kendall_eigenvalues, float(np.quantile(norms, level)))
    lower, upper = np.clip(basic_interval(directions[:, :k], vectors[:, :, :k], level), -1, 1)
    lower[:, ~separated[:k]], upper[:, ~separated[:k]] = -1.0, 1.0
    components = pc_labels(k)
    loadings = pd.DataFrame(
        {
            "variable": np.repeat(feature_names, k),
            "component": np.tile(components, len(feature_names)),
            "value": directions[:, :k].ravel(),
            "lower": lower.ravel(),
            "upper": upper.ravel(),
        }
    )
    scree = scree_redraws(scree_raw, scree_sd, mono, draws, rng)
    released = antitonic(scree_raw) if mono else np.maximum(scree_raw, 0.0)
    pve = np.array([proportions(values) for values in scree])
    bounds = scree_bounds(scree_raw, scree_sd, mono, level)
    if not usable_scree:  # a scree marked unusable has no values, so no intervals
        released = np.full(k, np.nan)
        bounds = (released, released)
    return Uncertainty(
        draws=draws,
        level=level,
        loadings=loadings,
        scree=_table(released, scree, bounds),
        pve=_table(proportions(released), pve, pve_bounds(*bounds)),
        stability=direction_stability(directions, vectors, k, separated),
    )
