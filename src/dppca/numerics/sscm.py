"""The spatial sign covariance matrix about a centre, with soft radial weights, and the clipped
steps that move the centre: the statistic and its floating-point error bounds, no privacy.

For rows ``x_i`` and a centre ``c``, ``u_i = x_i - c``, ``r_i = ||u_i||`` and ``a_i = u_i / r_i``
(0 when ``r_i = 0``). With a clip ``tau`` and ``kappa`` (3), the soft weight is
``w_i = min(1, (kappa tau / r_i)^2)``, in ``[0, 1]``:

* the centre step's sum ``sum_i psi(u_i)``, ``psi(u) = a min(r, tau) w(r)``, has
  ``||psi(u)|| <= tau``;
* the matrix ``S = (1/n) sum_i v_i a_i a_i'`` (Visuri, Koivunen and Oja 2000) with the radial
  weight ``v_i = min(1, (r_i / rho_in)^2) min(1, (rho_out / r_i)^2)`` of two radii
  (:class:`Radii`; a radial function in the manner of Raymaekers and Rousseeuw 2019): rows
  beyond ``rho_out`` fade out, and rows within ``rho_in`` of the centre, whose directions a small
  error of the centre turns most, count as much as their squared distance (as in a clipped
  second moment); its terms have Frobenius norm at most 1, and two of them differ by at most
  ``sqrt(2)`` in Frobenius norm (``v^2 + v'^2 - 2 v v' (a'b)^2 <= 2``), whatever the radii.

Every row is taken apart without overflow: ``u_i`` is computed as ``x_i / 2 - c / 2`` (finite
for finite rows), scaled by its largest entry before its norm; a norm beyond the largest float is
inf, whose weight is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The soft weight's multiple of the clip: rows farther than ``kappa tau`` are down-weighted.
KAPPA = 3.0

#: The unit roundoff of float64.
UNIT_ROUNDOFF = 2.0**-53


def gamma(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``, the relative error bound of ``k`` floating-point
    operations (Higham 2002, Lemma 3.1)."""
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


def offsets(X: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Directions ``a_i`` (unit rows, or 0) and norms ``r_i`` of ``x_i - center``, without
    overflow (a norm beyond the largest float is inf).

    Examples
    --------
    >>> a, r = offsets(np.array([[3.0, 4.0], [1.0, 1.0]]), np.array([0.0, 0.0]))
    >>> a.round(2).tolist(), r.round(3).tolist()
    ([[0.6, 0.8], [0.71, 0.71]], [5.0, 1.414])
    >>> offsets(np.array([[1.5e308, -1.5e308]]), np.array([-1.5e308, 1.5e308]))[1].tolist()
    [inf]
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        halves = X / 2.0 - center / 2.0
        largest = np.max(np.abs(halves), axis=1)
        safe = np.where(largest > 0.0, largest, 1.0)
        scaled = halves / safe[:, None]
        lengths = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
        directions = scaled / lengths[:, None]
        norms = 2.0 * largest * lengths
    directions[largest == 0.0] = 0.0
    norms[largest == 0.0] = 0.0
    return directions, norms


def soft_weights(norms: np.ndarray, tau: float, kappa: float = KAPPA) -> np.ndarray:
    """``min(1, (kappa tau / r)^2)``: 1 within ``kappa tau``, 0 for an infinite norm."""
    return _fading(norms, kappa * tau)


def _fading(norms: np.ndarray, radius: float) -> np.ndarray:
    """``min(1, (radius / r)^2)``, 0 for an infinite norm."""
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        ratio = np.where(norms > 0.0, radius / np.where(norms > 0.0, norms, 1.0), np.inf)
        weights: np.ndarray = np.minimum(1.0, ratio * ratio)
    return weights


#: Rows nearer the centre than this fraction of the clip enter the matrix with a weight that
#: grows as their squared distance (:meth:`Radii.of_clip`).
INNER = 0.5


@dataclass(frozen=True)
class Radii:
    """The matrix's radial weights' radii (positive): rows nearer the centre than ``inner``
    count as their squared distance over its square, rows farther than ``outer`` fade as
    ``(outer / r)^2``.

    Examples
    --------
    >>> Radii.of_clip(2.0)
    Radii(inner=1.0, outer=6.0)
    """

    inner: float
    outer: float

    @classmethod
    def of_clip(cls, tau: float) -> Radii:
        """``INNER tau`` and ``KAPPA tau``: the radii at a clip ``tau`` alone."""
        return cls(INNER * tau, KAPPA * tau)


def matrix_weights(norms: np.ndarray, radii: Radii) -> np.ndarray:
    """``min(1, (r / rho_in)^2) min(1, (rho_out / r)^2)``, in ``[0, 1]`` in floating point too
    (each factor is clamped at 1, and a product of two numbers at most 1 rounds to at most 1);
    0 at the centre and for an infinite norm.

    Examples
    --------
    >>> norms = np.array([0.0, 0.5, 1.0, 2.0, 6.0, 12.0, np.inf])
    >>> matrix_weights(norms, Radii.of_clip(2.0)).tolist()
    [0.0, 0.25, 1.0, 1.0, 1.0, 0.25, 0.0]
    """
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        inner = np.minimum(1.0, np.square(norms / radii.inner))
    weights: np.ndarray = inner * _fading(norms, radii.outer)
    return weights


def centre_step_sum(X: np.ndarray, center: np.ndarray, tau: float) -> np.ndarray:
    """``sum_i psi(x_i - center)`` with ``psi(u) = a min(r, tau) w(r)`` (each of norm at most
    ``tau``, up to :func:`centre_sum_error_bound`).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [100.0, 0.0]])
    >>> centre_step_sum(X, np.zeros(2), 2.0).tolist()  # 1 + 2 * (6 / 100)^2
    [1.0072, 0.0]
    """
    directions, norms = offsets(X, center)
    lengths = np.minimum(norms, tau) * soft_weights(norms, tau)
    total: np.ndarray = directions.T @ lengths
    return total


def centre_mean_sensitivity(n: int, d: int) -> float:
    """The L2 sensitivity of the computed mean ``fl(centre_step_sum / n)`` per unit of the clip
    ``tau``: the sum's (:func:`centre_sum_error_bound`) divided by ``n``, plus the division's
    rounding, which is relative to the two means themselves (each of norm at most
    ``tau (1 + gamma_{d + 8}) (1 + n gamma_n)``): ``2 u`` times that.

    Examples
    --------
    >>> 2.0 < centre_mean_sensitivity(1000, 5) * 1000 < 2.0 + 1e-9
    True
    """
    term = (1.0 + gamma(d + 8)) * (1.0 + n * gamma(n))
    return centre_sum_error_bound(n, d) / n + 2.0 * UNIT_ROUNDOFF * term


def centre_sum_error_bound(n: int, d: int) -> float:
    """A bound on the floating-point error of :func:`centre_step_sum`, relative to ``tau``: each
    computed ``psi`` has norm at most ``tau (1 + gamma_{d + 8})`` (the scaled norm, the division,
    the clip and the weight), and the sum of ``n`` vectors errs by at most ``gamma_n`` times the
    sum of their norms (Higham 2002, (3.4), coordinate by coordinate, then the triangle
    inequality), so the computed sum is within ``n tau gamma_n (1 + gamma_{d + 8})`` of the exact
    sum of the computed terms. Replacing a row then moves the computed sum by at most
    ``tau`` times ``2 (1 + gamma_{d + 8}) (1 + n gamma_n)``, which this returns.

    Examples
    --------
    >>> 2.0 < centre_sum_error_bound(1000, 5) < 2.0 + 1e-9
    True
    """
    term = 1.0 + gamma(d + 8)
    return 2.0 * term * (1.0 + n * gamma(n))


def sscm(X: np.ndarray, center: np.ndarray, radii: Radii) -> np.ndarray:
    """``S = (1/n) sum_i v_i a_i a_i'`` with the radial weights ``v_i`` of
    :func:`matrix_weights`, symmetric.

    Examples
    --------
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0], [0.0, -3.0]])
    >>> (sscm(X, np.zeros(2), Radii.of_clip(2.0)) * 3).round(6).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    >>> (sscm(X, np.zeros(2), Radii(2.0, 12.0)) * 3).round(6).tolist()  # within 2: r^2 / 4
    [[1.0, 0.0], [0.0, 1.25]]
    """
    directions, norms = offsets(X, center)
    weighted = directions * matrix_weights(norms, radii)[:, None]
    matrix: np.ndarray = weighted.T @ directions / X.shape[0]
    symmetric: np.ndarray = (matrix + matrix.T) / 2.0
    return symmetric


def sscm_sensitivity(n: int, d: int) -> float:
    """The Frobenius sensitivity of the computed :func:`sscm`, and of its ``vecd`` (the
    Gaussian mechanism's input), under the replacement of one row: ``sqrt(2) / n`` for the exact
    statistic, plus its floating-point error.

    Each computed term ``v a a'`` has Frobenius norm at most ``t = (1 + gamma_{d + 8})^2`` (the
    direction's norm, the product by the weight, which is at most 1 exactly), so two differ by
    at most ``sqrt(2) t``; every entry of the product sums ``n`` terms with an error of at most
    ``gamma_n`` times the sum of their magnitudes (Higham 2002, (3.5)), whose Frobenius norm is
    at most ``n t``: the two sums differ by at most ``(sqrt(2) + 2 n gamma_n) t``. The division
    by ``n``, the symmetrisation and ``vecd``'s multiplication by a rounded ``sqrt(2)`` round
    the values themselves (Frobenius norm at most ``t (1 + gamma_n)`` each): at most ``gamma_6``
    of each matrix. The bound is therefore ``(sqrt(2) / n + 2 gamma_n) t + 2 gamma_6 t (1 +
    gamma_n)``.

    Examples
    --------
    >>> round(sscm_sensitivity(2000, 50) * 2000 / math.sqrt(2), 6)
    1.0
    """
    term = (1.0 + gamma(d + 8)) ** 2
    return (math.sqrt(2.0) / n + 2.0 * gamma(n)) * term + 2.0 * gamma(6) * term * (1.0 + gamma(n))
