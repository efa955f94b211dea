"""Frobenius sensitivity of the Kendall matrix under replacement of one row.

Replacing row ``i`` changes ``P = sum_{j != i} g_ij g_ij^T`` into ``Q``. Both are positive
semi-definite with ``||P||_F <= tr P <= (n - 1) ||g||_inf^2``, and for PSD matrices
``||P - Q||_F^2 <= ||P||_F^2 + ||Q||_F^2``, so with ``N = n(n-1)/2`` pairs

    ``Delta_F <= sqrt(2) (n - 1) ||g||_inf^2 / N = 2 sqrt(2) ||g||_inf^2 / n``   ("tight").

The bound is attained: all other rows at one point, row ``i`` moved from direction ``e1`` to
``e2``. For the ``k``-regular incomplete design, row ``i`` is in ``k`` of ``N = nk/2`` pairs and
the same argument gives the same bound. Kim and Jung (2025) and the R package use
``4 ||g||_inf^2 / n`` ("paper"), valid but ``sqrt(2)`` times larger.

The matrix the mechanism releases is the *computed* one, within ``E`` of the exact matrix for any
finite input (:func:`dppca.numerics.pair_sums.kendall_error_bound`), so the sensitivity used is
``Delta_F + 2 E ||g||_inf^2``: the triangle inequality through both exact matrices.
"""

from __future__ import annotations

import math

from dppca._validation import check_option, check_positive_int, check_real

SENSITIVITIES = ("tight", "paper")


def kendall_sensitivity(
    bound: float, n: int, kind: str = "tight", *, float_error: float = 0.0
) -> float:
    """Frobenius sensitivity of the computed Kendall matrix with ``||g||_inf = bound``.

    ``(2 sqrt(2) / n + 2 float_error) bound^2`` for ``"tight"``; ``4 bound^2 / n`` for
    ``"paper"`` (the R package's value), or the tight value if that is ever larger.

    Parameters
    ----------
    bound : float
        ``||g||_inf``.
    n : int
        Number of rows (public).
    kind : {"tight", "paper"}
    float_error : float, default 0
        A bound on the Frobenius error of the computed unit-space matrix (``E``).

    Examples
    --------
    >>> round(kendall_sensitivity(1.0, 100), 12)
    0.028284271247
    >>> kendall_sensitivity(1.0, 100, "paper")
    0.04
    """
    bound = check_real(bound, "bound", low=0.0)
    n = check_positive_int(n, "n", minimum=2)
    kind = check_option(kind, "sensitivity", SENSITIVITIES)
    float_error = check_real(float_error, "float_error", low=0.0, low_inclusive=True)
    return unit_kendall_sensitivity(n, kind, float_error) * bound**2


def unit_kendall_sensitivity(n: int, kind: str, float_error: float) -> float:
    """:func:`kendall_sensitivity` at ``bound = 1`` for validated arguments (no checks)."""
    unit = 2.0 * math.sqrt(2.0) / n + 2.0 * float_error
    if kind == "paper":
        unit = max(4.0 / n, unit)
    return unit


#: L2 and L1 sensitivity of a histogram's count vector under replacement of one row: one count
#: goes down by 1 and another up by 1.
HISTOGRAM_L2_SENSITIVITY = math.sqrt(2.0)
HISTOGRAM_L1_SENSITIVITY = 2.0


def float_factor(m: int) -> float:
    """``1 + 16 u m``: the factor that covers the rounding of a scaled mean of ``m`` rows.

    The released means are of values ``(v - low) / w`` in ``[0, 1]`` (or ``[-1/2, 1/2]``), each
    computed within ``3u`` (a subtraction and a division); :func:`column_means` adds ``2u``.
    Such a mean moves by at most ``1 / m`` when one row changes, so two computed means differ
    by at most ``1/m + 10u <= (1/m)(1 + 16 u m)``.
    """
    return 1.0 + 16.0 * 2.0**-53 * m


def means_sensitivity(m: int, k: int) -> float:
    """The L2 sensitivity of ``k`` means of ``m`` values each in a unit interval:
    ``sqrt(k) / m`` times :func:`float_factor` (one pair moves each mean by at most ``1/m``).

    Examples
    --------
    >>> round(means_sensitivity(100, 4) * 100, 12)
    2.0
    """
    return math.sqrt(k) * float_factor(m) / m


def row_clip_sensitivity(m: int, k: int) -> float:
    """The L2 sensitivity of the mean of :func:`row_shares`: ``sqrt(2) / m`` (``1 / m`` for one
    component) times the rounding factors ``1 + (k + 2) u`` (each row's L1 norm) and
    :func:`float_factor` (the means).

    Two non-negative rows ``a``, ``b`` with L1 norms at most 1 satisfy
    ``||a - b||_2^2 <= ||a||_2^2 + ||b||_2^2 <= 2``, and ``|a - b| <= max(a, b) <= 1`` for
    one component.
    """
    rows = math.sqrt(2.0) if k > 1 else 1.0
    return rows * (1.0 + (k + 2) * 2.0**-53) * float_factor(m) / m
