"""Generalized spatial signs ``g(t) = h(||t||) t / ||t||`` (Kim and Jung 2025, Section 3).

Each transform knows its bound ``||g||_inf = sup h`` (which sets the sensitivity of the Kendall
matrix) and the weight it gives a pair in the graph-Laplacian form of the Kendall matrix: for a
difference ``d`` of two rows, ``g(z) g(z)^T = c d d^T`` with ``z = d / sqrt(2)`` and
``c = h(||z||)^2 / ||d||^2``.

The kernel works on internally rescaled data: a pair whose difference has norm ``rho`` in the
working units has ``||z|| = scale * rho / sqrt(2)`` in the caller's units, and its Laplacian
weight in working units is ``h(||z||)^2 / rho^2``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dppca._validation import check_real

TRANSFORMS = ("spherical", "winsorized")


def _check_bound(value: Any, name: str) -> float:
    bound = check_real(value, name, low=0.0)
    if not math.isfinite(bound * bound):
        raise ValueError(f"{name} must have a finite square (at most about 1e154); got {value!r}.")
    return bound


class SignTransform:
    """Base class: ``h`` and its public bound ``h_max = ||g||_inf``."""

    name: str = ""
    bound: float = 1.0

    def squared_h(self, norms: np.ndarray) -> np.ndarray:
        """``min(|h(s)|, h_max)^2`` at the half-difference norms ``s = ||z||`` (caller's units)."""
        raise NotImplementedError

    def laplacian_weights(self, rho2: np.ndarray, scale: float) -> np.ndarray:
        """``h(scale * rho / sqrt 2)^2 / rho^2`` for squared working-unit distances ``rho2 > 0``.

        Entries equal to ``+inf`` mark pairs left out of the Laplacian form: their weight is 0
        and ``h`` is not evaluated there. May overwrite ``rho2``.
        """
        included = np.isfinite(rho2)
        weights = np.zeros_like(rho2)
        values = rho2[included]
        weights[included] = self.squared_h(np.sqrt(values) * (scale / math.sqrt(2.0))) / values
        return weights

    def settings(self) -> dict[str, Any]:
        return {"transform": self.name, "bound": self.bound}


class SphericalSign(SignTransform):
    """``h = 1``: the spatial sign ``t / ||t||``; ``||g||_inf = 1``."""

    name = "spherical"
    bound = 1.0

    def squared_h(self, norms: np.ndarray) -> np.ndarray:
        return np.ones_like(norms)

    def laplacian_weights(self, rho2: np.ndarray, scale: float) -> np.ndarray:
        return np.reciprocal(rho2, out=rho2)


class WinsorizedSign(SignTransform):
    """``h(s) = min(r, s)``: the difference itself, shrunk to length ``r``; ``||g||_inf = r``."""

    name = "winsorized"

    def __init__(self, radius: float) -> None:
        self.radius = _check_bound(radius, "radius")
        self.bound = self.radius

    def squared_h(self, norms: np.ndarray) -> np.ndarray:
        return np.minimum(norms, self.radius) ** 2

    def laplacian_weights(self, rho2: np.ndarray, scale: float) -> np.ndarray:
        # min(r^2, scale^2 rho^2 / 2) / rho^2 = min(r^2 / rho^2, scale^2 / 2); an overflowing
        # scale^2 is +inf, which leaves the correct first term.
        with np.errstate(over="ignore"):
            cap = scale * scale / 2.0
        weights = np.divide(self.radius**2, rho2, out=rho2)
        return np.minimum(weights, cap, out=weights)

    def settings(self) -> dict[str, Any]:
        return {"transform": self.name, "bound": self.bound, "radius": self.radius}


class CustomSign(SignTransform):
    """A user ``h`` with a declared public bound: the kernel uses ``min(|h(s)|, h_max)``.

    The bound holds whatever ``h`` returns, so the privacy guarantee rests on ``h_max`` alone.
    Non-finite values of ``h`` raise ``ValueError``.
    """

    name = "custom"

    def __init__(self, h: Callable[[np.ndarray], Any], bound: float) -> None:
        self.h = h
        self.bound = _check_bound(bound, "radius")

    def squared_h(self, norms: np.ndarray) -> np.ndarray:
        values = np.asarray(self.h(norms), dtype=np.float64)
        if values.shape != norms.shape:
            raise ValueError(
                f"transform h must return an array of the shape of its input {norms.shape}; "
                f"got shape {values.shape}."
            )
        if not np.isfinite(values).all():
            raise ValueError("transform h returned non-finite values.")
        return np.minimum(np.abs(values), self.bound) ** 2

    def settings(self) -> dict[str, Any]:
        name = getattr(self.h, "__name__", type(self.h).__name__)
        return {"transform": f"custom:{name}", "bound": self.bound}


def make_sign_transform(transform: Any, radius: Any) -> SignTransform:
    """Build the sign transform named by ``transform`` and ``radius``.

    ``"spherical"`` takes no radius; ``"winsorized"`` needs a positive finite ``radius`` (an
    ``"auto"`` radius is resolved privately by :func:`dppca.dp_loading` before this call); a
    callable ``h`` needs its declared bound ``h_max`` as ``radius``.
    """
    if callable(transform):
        if radius is None or isinstance(radius, str):
            raise ValueError(
                "A callable transform needs its public bound h_max as radius (a positive number); "
                f"got radius={radius!r}."
            )
        return CustomSign(transform, radius)
    if not isinstance(transform, str):
        raise TypeError(
            f"transform must be one of {list(TRANSFORMS)} or a callable h; got {transform!r}."
        )
    if transform == "spherical":
        if radius is not None:
            raise ValueError(
                f'radius applies to transform="winsorized" or a callable; got radius={radius!r} '
                'with transform="spherical".'
            )
        return SphericalSign()
    if transform == "winsorized":
        if radius is None or isinstance(radius, str):
            raise ValueError(
                'transform="winsorized" needs a positive numeric radius (or radius="auto" in '
                f"dp_loading); got radius={radius!r}."
            )
        return WinsorizedSign(radius)
    raise ValueError(
        f"transform must be one of {list(TRANSFORMS)} or a callable h; got {transform!r}."
    )
