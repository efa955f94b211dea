"""Frobenius sensitivity of the Kendall matrix under replacement of one row (SPEC 2.3).

Replacing row ``i`` changes ``P = sum_{j != i} g_ij g_ij^T`` into ``Q``. Both are positive
semi-definite with ``||P||_F <= tr P <= (n - 1) ||g||_inf^2``, and for PSD matrices
``||P - Q||_F^2 <= ||P||_F^2 + ||Q||_F^2``, so with ``N = n(n-1)/2`` pairs

    ``Delta_F <= sqrt(2) (n - 1) ||g||_inf^2 / N = 2 sqrt(2) ||g||_inf^2 / n``   ("tight").

The bound is attained: all other rows at one point, row ``i`` moved from direction ``e1`` to
``e2``. For the ``k``-regular incomplete design, row ``i`` is in ``k`` of ``N = nk/2`` pairs and
the same argument gives the same bound. Kim and Jung (2025) and the R package use
``4 ||g||_inf^2 / n`` ("paper"), valid but ``sqrt(2)`` times larger.

The tight bound is multiplied by ``1 + FLOAT_ALLOWANCE`` to cover the floating-point error of the
computed matrix (the kernel keeps each pair's relative error near 1e-13).
"""

from __future__ import annotations

import math

from dppca._validation import check_option, check_positive_int, check_real

SENSITIVITIES = ("tight", "paper")

#: Relative allowance for floating-point error added to the tight bound.
FLOAT_ALLOWANCE = 1e-9


def kendall_sensitivity(bound: float, n: int, kind: str = "tight") -> float:
    """Frobenius sensitivity of the Kendall matrix with ``||g||_inf = bound`` and ``n`` rows.

    ``2 sqrt(2) bound^2 / n (1 + FLOAT_ALLOWANCE)`` for ``"tight"``, ``4 bound^2 / n`` for
    ``"paper"``.
    """
    bound = check_real(bound, "bound", low=0.0)
    n = check_positive_int(n, "n", minimum=2)
    kind = check_option(kind, "sensitivity", SENSITIVITIES)
    if kind == "paper":
        return 4.0 * bound**2 / n
    return 2.0 * math.sqrt(2.0) * bound**2 / n * (1.0 + FLOAT_ALLOWANCE)
