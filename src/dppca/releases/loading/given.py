"""What a caller gives instead of what a release would estimate, checked before any charge:
orthonormal directions (the loading budget then spent elsewhere) and a public centre for the
spatial sign covariance matrix."""

from __future__ import annotations

from typing import Any

import numpy as np

from dppca._validation import check_data, check_delta, check_epsilon, check_vector
from dppca.privacy.budget import Budget

#: Tolerance of the orthonormality check of user-given directions, ``max |V'V - I|``.
ORTHONORMAL_TOLERANCE = 1e-6


def check_directions(directions: Any, p: int) -> np.ndarray:
    """User-given directions: a finite real ``p x p`` matrix with orthonormal columns."""
    matrix, _ = check_data(directions, "directions", min_rows=1)
    if matrix.shape != (p, p):
        raise ValueError(
            f"directions must be a {p} x {p} matrix (one column per direction); got shape "
            f"{matrix.shape}."
        )
    error = float(np.max(np.abs(matrix.T @ matrix - np.eye(p))))
    if error > ORTHONORMAL_TOLERANCE:
        raise ValueError(
            f"directions must have orthonormal columns (max |V'V - I| <= "
            f"{ORTHONORMAL_TOLERANCE:g}); got {error:.3g}."
        )
    return matrix


def check_center(center: Any, name: str) -> tuple[float, ...]:
    """A public centre: finite real numbers, one per variable (their number is checked with the
    data's), kept as a tuple."""
    return tuple(float(value) for value in check_vector(center, name))


def check_direction_source(
    directions: Any, loading_epsilon: Any, loading_delta: Any, p: int
) -> tuple[np.ndarray | None, Budget | None]:
    """Given directions (validated), or the loading budget to estimate them; not both."""
    if directions is not None:
        if loading_epsilon is not None or loading_delta is not None:
            raise ValueError(
                "loading_epsilon and loading_delta apply only when directions=None (the "
                "directions are then estimated privately); got both directions and a loading "
                "budget."
            )
        return check_directions(directions, p), None
    if loading_epsilon is None or loading_delta is None:
        raise ValueError(
            "directions=None needs loading_epsilon and loading_delta: the budget for estimating "
            "private directions (or pass orthonormal directions)."
        )
    return None, Budget(
        check_epsilon(loading_epsilon, "loading_epsilon"),
        check_delta(loading_delta, "loading_delta"),
    )
