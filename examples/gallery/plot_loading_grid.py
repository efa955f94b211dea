"""
Data in mixed units: private scales and ``loading_grid``
========================================================

The Adult census variables come in years, hours and dollars. ``scale="private"`` releases a
robust scale per variable first, so that no variable dominates by its units; the robust Huber
scree follows. :func:`dppca.plotting.loading_grid` draws the private and the non-private
loadings side by side.
"""

import dppca
from dppca.datasets import load_adult
from dppca.plotting import loading_grid

adult = load_adult()[0]
scaled = dppca.dp_pca(
    adult,
    4.0,
    1e-7,
    scale="private",
    scree="huber",
    on_weak="release",  # consent to a stand-in scale for capital_loss (zero in 95 % of rows)
    non_private=True,
    random_state=1,
)
scaled.plot("all", random_state=1)
figure, displays = loading_grid(scaled, display="point", non_private=True)
