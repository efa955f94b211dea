"""The result of private scales of the variables (:func:`~dppca.dp_scale`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dppca._html import card
from dppca.privacy.budget import (
    PrivacyLedger,
)
from dppca.results.status import ReleaseStatus, scale_status


@dataclass(frozen=True)
class ScaleResult:
    """Private scales of the variables.

    Attributes
    ----------
    scales : ndarray of shape (p,)
        One positive scale per variable: a normal variable's estimates its standard deviation
        (NaN for an unreliable variable unless a guess was consented to, see :attr:`status`).
    feature_names : list of str
    n_samples : int
    settings : dict
        The clip levels ``clips``, the released clipped ``means`` and their ``noise_sd`` (in the
        data's units), the released ``untied_shares`` and their ``share_sd``, the ``level``
        used, the ``unreliable`` variables and whether they were ``guessed`` (given the other
        scales' geometric mean).
    privacy : PrivacyLedger
    notes : tuple of str
        Warnings from released values (see :func:`scale_notes`).

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(20000, 3)) * [1.0, 100.0, 0.01]
    >>> result = dppca.dp_scale(X, 1.0, 1e-6, random_state=1)
    >>> (result.scales / [1.0, 100.0, 0.01]).round(1).tolist()
    [1.0, 1.0, 1.0]
    >>> result.to_series().index.tolist()
    ['X1', 'X2', 'X3']
    """

    scales: np.ndarray
    feature_names: list[str]
    n_samples: int
    settings: dict[str, Any] = field(repr=False)
    privacy: PrivacyLedger = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> ReleaseStatus:
        """The scales' status (:func:`~dppca.results.status.scale_status`)."""
        return scale_status(
            self.settings["unreliable"], len(self.feature_names), self.settings["guessed"]
        )

    def to_series(self) -> pd.Series:
        """The scales by variable name."""
        return pd.Series(self.scales, index=self.feature_names, name="scale")

    def _repr_html_(self) -> str:
        """The release as HTML (Jupyter): the scales, the ledger and the notes."""
        facts = [("data", f"{self.n_samples} observations x {len(self.feature_names)} variables")]
        tables = [
            ("Private scales", self.to_series().to_frame()),
            ("Privacy budget spent", self.privacy.budget_table()),
        ]
        return card("Private scales of the variables", facts, tables, self.notes)
