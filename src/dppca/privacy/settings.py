"""How every release of a call draws and accounts its noise: the mechanism family, the Gaussian
calibration, the composition rule and the sampler, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from dppca._settings import Constraint, Settings, one_of, optional
from dppca.privacy.calibration import CALIBRATIONS
from dppca.privacy.composition import COMPOSITIONS, resolve_composition
from dppca.privacy.mechanisms import SAMPLERS, resolve_sampler

#: The mechanism families: this package's Gaussian calibration, or the R package's.
MECHANISMS = ("gaussian", "paper")


@dataclass(frozen=True)
class NoiseSettings(Settings):
    """How the releases of a call draw and account their noise.

    Parameters
    ----------
    mechanism : {"gaussian", "paper"}, default "gaussian"
        ``"paper"``: the R package's calibration (Kim and Jung 2025): the classical Gaussian
        calibration, the paper's sensitivity of the Kendall matrix and of the clipped scree, and
        basic composition (the total split linearly), with continuous noise unless ``sampler``
        says otherwise.
    calibration : {"analytic", "classical"}, default "analytic"
        The Gaussian multiplier: Balle and Wang (2018), or ``sqrt(2 ln(1.25 / delta)) /
        epsilon`` (Dwork and Roth 2014; a guarantee only for epsilon < 1).
    composition : {"tight", "basic"} or None, default None
        None means ``"tight"``, or ``"basic"`` with the classical calibration. ``"tight"``:
        the releases are planned together so that the composition of their privacy losses
        (Dong, Roth and Su 2022; Bun and Steinke 2016 for the discrete sampler) meets the total,
        each part's epsilon multiplied by the largest common factor that does; ``"basic"``: the
        parts add up to the total.
    sampler : {"discrete", "continuous"} or None, default None
        ``"discrete"`` (what None means, unless the calibration is classical): exact integer
        noise on a cryptographically secure stream (Canonne, Kamath and Steinke 2020),
        real-valued statistics rounded to a public grid, Gaussian parts accounted by
        zero-concentrated DP (about 7 % more noise at the same budget). ``"continuous"``:
        numpy's floating-point noise, which can leak through its low bits (Mironov 2012); for
        studies, not for publication.

    The values are kept resolved: ``mechanism="paper"`` sets the classical calibration, and
    None becomes the sampler and composition it means.

    Examples
    --------
    >>> from dppca import NoiseSettings
    >>> NoiseSettings().sampler, NoiseSettings().composition
    ('discrete', 'tight')
    >>> paper = NoiseSettings(mechanism="paper")
    >>> paper.calibration, paper.composition, paper.sampler
    ('classical', 'basic', 'continuous')
    >>> NoiseSettings(sampler="exact")
    Traceback (most recent call last):
    ...
    ValueError: sampler must be one of ['continuous', 'discrete']; got 'exact'.
    """

    mechanism: str = "gaussian"
    calibration: str = "analytic"
    composition: str | None = None
    sampler: str | None = None

    constraints: ClassVar[Mapping[str, Constraint]] = {
        "mechanism": one_of(*MECHANISMS),
        "calibration": one_of(*CALIBRATIONS),
        "composition": optional(one_of(*COMPOSITIONS)),
        "sampler": optional(one_of(*SAMPLERS)),
    }

    def _check_together(self, names: Mapping[str, str]) -> None:
        calibration = "classical" if self.mechanism == "paper" else self.calibration
        object.__setattr__(self, "calibration", calibration)
        object.__setattr__(self, "sampler", resolve_sampler(self.sampler, calibration))
        object.__setattr__(self, "composition", resolve_composition(self.composition, calibration))

    @property
    def paper(self) -> bool:
        """Whether the R package's calibration is asked for."""
        return self.mechanism == "paper"

    @classmethod
    def of(cls, value: Any, parameter: str = "noise") -> NoiseSettings:
        """``value`` as noise settings: None (the defaults), the object, a mapping of its
        fields, or a mechanism name (``"paper"``)."""
        return cls() if value is None else cls.coerce(value, parameter, "mechanism", {})
