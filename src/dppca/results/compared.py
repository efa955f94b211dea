"""Scree and score-histogram methods released beside the first ones, for comparison."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ComparedMethods:
    """The releases of the scree and histogram methods requested after the first ones
    (``dp_pca(X, ..., scree={"method": ("clipped", "huber")}, score={"method": ("thresholded",
    "sparse")})``): each a release of its own, on an equal share of its part's budget, so that
    the methods can be compared on the same data at the same total. The first method of each
    part feeds every other release (the score frame, the variable plot, the intervals); these
    feed nothing. Plots draw the scree methods as overlaid lines and the histograms as panels
    side by side.

    Attributes
    ----------
    scree : dict of str to ndarray of shape (k,)
        Each further scree method's private variances (NaN when not usable; the reason is in
        the result's ``status`` under ``"scree (<method>)"``).
    histograms : dict of str to DataFrame
        Each further histogram method's private score histogram (cells and ``prob``; with
        groups, the mixture of its group histograms).
    groups : dict of str to dict, or None
        Per further histogram method, per group label, its private histogram.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(20000, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, scree={"method": ("clipped", "huber")},
    ...                       random_state=1)
    >>> result.scree_methods, result.scree.round(1).tolist()  # the variances are 9, 4, 1, 0.25
    (('clipped', 'huber'), [8.5, 4.0, 1.0, 0.2])
    >>> result.compared.scree["huber"].round(1).tolist()  # on half of the scree's budget
    [8.4, 4.2, 1.0, 0.3]
    """

    scree: dict[str, np.ndarray] = field(default_factory=dict)
    histograms: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    groups: dict[str, dict[Any, pd.DataFrame]] | None = field(default=None, repr=False)

    def to_dict(self, table: Any, label: Any) -> dict[str, Any]:
        """The JSON form, with ``table`` turning a histogram into a dict and ``label`` a group
        label into a JSON value."""
        return {
            "scree": {method: values.tolist() for method, values in self.scree.items()},
            "histograms": {method: table(values) for method, values in self.histograms.items()},
            "groups": None
            if self.groups is None
            else {
                method: [
                    {"label": label(level), "histogram": table(histogram)}
                    for level, histogram in tables.items()
                ]
                for method, tables in self.groups.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], table: Any) -> ComparedMethods:
        """Rebuild from :meth:`to_dict` output, with ``table`` turning a dict into a
        histogram."""
        groups = data.get("groups")
        return cls(
            scree={
                method: np.array(values, dtype=float)
                for method, values in data.get("scree", {}).items()
            },
            histograms={
                method: table(values) for method, values in data.get("histograms", {}).items()
            },
            groups=None
            if groups is None
            else {
                method: {item["label"]: table(item["histogram"]) for item in items}
                for method, items in groups.items()
            },
        )
