"""The checks of DPPCA's parameters that need the data's shape: how many components to keep
(an integer, or a fraction of the private scree's variance) and the centre ``transform``
subtracts (public, or the SSCM's private one)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from dppca._validation import check_option, check_positive_int, check_vector

#: The note when a fraction of the variance cannot be read from an unusable scree.
FRACTION_UNUSABLE = (
    "n_components={fraction}: the private scree is not usable, so no fraction of the variance "
    "can be read from it; every component is kept."
)


def check_center(center: Any, n_features: int) -> tuple[bool, np.ndarray | None]:
    """Whether the centre is the SSCM's private one, and the public centre, if given."""
    if center is None:
        return False, None
    if isinstance(center, str):
        check_option(center, "center", ["private"])
        return True, None
    values = check_vector(center, "center")
    if values.size != n_features:
        raise ValueError(
            f'center must be None, "private" or {n_features} numbers (one per variable); '
            f"got {values.size}."
        )
    return False, values


def check_n_components(value: Any, scree: Any, n_features: int) -> tuple[int, float | None]:
    """The number of components (``n_features`` for None or a fraction, which the scree then
    narrows) and the fraction, if one was given."""
    rule = (
        f"n_components must be an integer in [1, n_features={n_features}], a fraction in "
        "(0, 1) or None"
    )
    if value is None:
        return n_features, None
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral | bool):
        fraction = float(value)
        if not 0.0 < fraction < 1.0:
            raise ValueError(f"{rule}; got n_components={value!r}.")
        if scree is None:
            raise ValueError(
                f"n_components={value!r} keeps the components that explain that fraction of "
                "the private scree; scree=None releases none (give a scree or an integer)."
            )
        return n_features, fraction
    try:
        count = check_positive_int(value, "n_components")
    except TypeError:
        raise TypeError(f"{rule}; got {value!r} (type {type(value).__name__}).") from None
    except ValueError:
        count = 0
    if not 1 <= count <= n_features:
        raise ValueError(f"{rule}; got n_components={value!r}.")
    return count, None
