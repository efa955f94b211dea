"""Generalized spatial signs ``g(t) = h(||t||) t / ||t||`` (Kim and Jung 2025, Section 3).

Each transform knows its public bound ``h_max = ||g||_inf`` (which sets the sensitivity of the
Kendall matrix). The kernel works in *unit space*: it computes the Kendall matrix of
``g / h_max``, whose signs have norm at most 1, so its sensitivity and noise never depend on how
large or small ``h_max`` is; the release is rescaled by ``h_max^2`` afterwards (post-processing).

Norms reach the transforms as ``mantissa * 2**exponent`` (the half-difference norm
``s = ||x_i - x_j|| / sqrt(2)`` in the caller's units), so that no norm of finite data overflows
or underflows on the way.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from dppca._validation import check_real

TRANSFORMS = ("spherical", "winsorized")

#: The smallest and largest allowed bound ``h_max`` (winsorization radius or declared bound): its
#: square, the scale of the release, stays a normal float with room for noise and eigenvalues.
MIN_BOUND = 1e-150
MAX_BOUND = 1e150

#: Norms on which a callable ``h`` is tried before any budget is charged (public values only).
PROBE_NORMS = np.array([0.0, 5e-324, 1e-300, 1e-8, 0.5, 1.0, 2.0, 1e8, 1e300, math.inf])


def _check_bound(value: Any, name: str) -> float:
    bound = check_real(value, name, low=0.0)
    if not MIN_BOUND <= bound <= MAX_BOUND:
        raise ValueError(
            f"{name} must be between {MIN_BOUND:g} and {MAX_BOUND:g} (so that {name}**2, the "
            f"scale of the release and its noise, is a normal float); got {value!r}. Rescale the "
            "data by a public constant."
        )
    return bound


def _ratio(mantissas: np.ndarray, exponents: Any, bound: float) -> np.ndarray:
    """``s / bound`` for ``s = mantissas * 2**exponents``, without overflow (inf when huge)."""
    bound_mantissa, bound_exponent = math.frexp(bound)
    with np.errstate(over="ignore", under="ignore"):
        return cast(
            "np.ndarray",
            np.ldexp(mantissas / bound_mantissa, np.asarray(exponents) - bound_exponent),
        )


class SignTransform:
    """Base class: ``h``, its public bound ``h_max = ||g||_inf`` and its unit-space weights."""

    name: str = ""
    bound: float = 1.0
    #: Whether the all-pairs kernel may use the graph-Laplacian form (``h`` depends on the pair
    #: norm only through a Lipschitz function, so a norm computed to a tiny relative error gives a
    #: weight with a tiny relative error). A callable ``h`` may jump anywhere: every pair is then
    #: computed from its own explicit difference.
    laplacian: bool = True
    #: Whether ``h`` may run on several threads at once (a callable ``h`` is user code).
    thread_safe: bool = True

    def unit_h2(self, mantissas: np.ndarray, exponents: Any) -> np.ndarray:
        """``(h(s) / h_max)^2`` at ``s = mantissas * 2**exponents``, each in ``[0, 1]``."""
        raise NotImplementedError

    def unit_weights(self, rho2: np.ndarray, exponent: int) -> np.ndarray:
        """Laplacian weights ``(h(s) / h_max)^2 / rho2`` for squared working-unit distances.

        ``s = sqrt(rho2) / sqrt(2) * 2**exponent`` in the caller's units. Entries equal to
        ``+inf`` mark pairs left out of the Laplacian form: their weight is 0. Overwrites
        ``rho2``.
        """
        raise NotImplementedError

    def check(self) -> None:
        """Checks of ``h`` on public values, run before any budget is charged."""

    def settings(self) -> dict[str, Any]:
        return {"transform": self.name, "bound": self.bound}


class SphericalSign(SignTransform):
    """``h = 1``: the spatial sign ``t / ||t||``; ``||g||_inf = 1``."""

    name = "spherical"
    bound = 1.0

    def unit_h2(self, mantissas: np.ndarray, exponents: Any) -> np.ndarray:
        return np.ones_like(mantissas)

    def unit_weights(self, rho2: np.ndarray, exponent: int) -> np.ndarray:
        return cast("np.ndarray", np.reciprocal(rho2, out=rho2))


class WinsorizedSign(SignTransform):
    """``h(s) = min(r, s)``: the difference itself, shrunk to length ``r``; ``||g||_inf = r``."""

    name = "winsorized"

    def __init__(self, radius: float) -> None:
        # A radius in [MIN_BOUND, MAX_BOUND]: checked by make_sign_transform at the public
        # boundary, or clamped into that range when it is estimated privately.
        self.radius = float(radius)
        self.bound = self.radius

    def unit_h2(self, mantissas: np.ndarray, exponents: Any) -> np.ndarray:
        return cast("np.ndarray", np.minimum(_ratio(mantissas, exponents, self.radius), 1.0) ** 2)

    def unit_weights(self, rho2: np.ndarray, exponent: int) -> np.ndarray:
        # min(1, s/r)^2 / rho2 = min(1 / rho2, (2**exponent / r)^2 / 2): the cap is computed from
        # the mantissa and exponent of r, so it overflows to +inf (no cap) or underflows to a
        # negligible weight instead of failing.
        mantissa, bound_exponent = math.frexp(self.radius)
        with np.errstate(over="ignore", under="ignore"):
            cap = float(np.ldexp(0.5 / mantissa**2, 2 * (exponent - bound_exponent)))
        weights = np.reciprocal(rho2, out=rho2)
        return cast("np.ndarray", np.minimum(weights, cap, out=weights))

    def settings(self) -> dict[str, Any]:
        return {"transform": self.name, "bound": self.bound, "radius": self.radius}


class CustomSign(SignTransform):
    """A user ``h`` with a declared public bound: the kernel uses ``min(|h(s)|, h_max)``.

    The bound holds whatever ``h`` returns, so the privacy guarantee rests on ``h_max`` alone.
    ``h`` is tried on public norms (0 to +inf) before any budget is charged, and must return an
    array of its input's shape without NaN there (an infinite value is capped like any other).
    On the data, anything ``h`` cannot give (an exception, NaN, a wrong shape) counts as
    ``h_max``, norm by norm: an error at that point would itself reveal something about the
    data. ``h`` runs on one thread.
    """

    name = "custom"
    laplacian = False
    thread_safe = False

    def __init__(self, h: Callable[[np.ndarray], Any], bound: float) -> None:
        self.h = h
        self.bound = _check_bound(bound, "radius")

    def _values(self, norms: np.ndarray) -> np.ndarray | None:
        try:
            with warnings.catch_warnings():  # a warning of h on the data would show the data
                warnings.simplefilter("ignore")
                values = np.asarray(self.h(norms.copy()), dtype=np.float64)
        except Exception:  # any failure of h counts as h_max (see the class docstring)
            return None
        return values if values.shape == norms.shape else None

    def check(self) -> None:
        with np.errstate(all="ignore"):
            values = self._values(PROBE_NORMS)
        if values is None:
            raise ValueError(
                "transform h must accept an array of norms (0 to inf) and return an array of the "
                f"same shape; on the public test norms {PROBE_NORMS.tolist()} it did not."
            )
        if np.isnan(values).any():
            raise ValueError(
                "transform h returned NaN on the public test norms "
                f"{PROBE_NORMS.tolist()}: {values.tolist()}."
            )

    def unit_h2(self, mantissas: np.ndarray, exponents: Any) -> np.ndarray:
        """``min(|h(s)|, h_max)^2 / h_max^2``, each value from its own norm: where ``h`` cannot
        give the whole array, it is asked norm by norm, so that no pair's weight depends on
        another pair's norm."""
        with np.errstate(all="ignore"):
            norms = np.ldexp(mantissas, exponents)
            values = self._values(norms)
            if values is None:
                singles = [self._values(norms[i : i + 1]) for i in range(norms.size)]
                values = np.array([np.nan if v is None else v[0] for v in singles])
            capped = np.where(np.isnan(values), self.bound, np.minimum(np.abs(values), self.bound))
            return np.minimum(capped / self.bound, 1.0) ** 2

    def unit_weights(self, rho2: np.ndarray, exponent: int) -> np.ndarray:
        raise NotImplementedError("a callable h is computed pair by pair, not in Laplacian form")

    def settings(self) -> dict[str, Any]:
        name = getattr(self.h, "__name__", type(self.h).__name__)
        return {"transform": f"custom:{name}", "bound": self.bound}


def make_sign_transform(transform: Any, radius: Any, name: str = "transform") -> SignTransform:
    """Build (and check) the sign transform named by ``transform`` and ``radius`` (errors call
    it ``name``, the caller's parameter).

    ``"spherical"`` takes no radius; ``"winsorized"`` needs a positive ``radius`` (an ``"auto"``
    radius is resolved privately by :func:`dppca.dp_loading` before this call); a callable ``h``
    needs its declared bound ``h_max`` as ``radius``.
    """
    if callable(transform):
        if radius is None or isinstance(radius, str):
            raise ValueError(
                f"A callable {name} needs its public bound h_max as radius (a positive number); "
                f"got radius={radius!r}."
            )
        sign: SignTransform = CustomSign(transform, radius)
        sign.check()
        return sign
    if not isinstance(transform, str):
        raise TypeError(
            f"{name} must be one of {list(TRANSFORMS)} or a callable h; got {transform!r}."
        )
    if transform == "spherical":
        if radius is not None:
            raise ValueError(
                f'radius applies to {name}="winsorized" or a callable; got radius={radius!r} '
                f'with {name}="spherical".'
            )
        return SphericalSign()
    if transform == "winsorized":
        if radius is None or isinstance(radius, str):
            raise ValueError(
                f'{name}="winsorized" needs a positive numeric radius (or radius="auto"); '
                f"got radius={radius!r}."
            )
        return WinsorizedSign(_check_bound(radius, "radius"))
    raise ValueError(
        f"{name} must be one of {list(TRANSFORMS)} or a callable h; got {transform!r}."
    )
