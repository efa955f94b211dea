"""
The variable plot: ``plot_variables``
=====================================

:func:`dppca.plotting.plot_variables` draws each variable's loadings on the first two
directions, scaled by the private standard deviations along them.
"""

import dppca
from dppca.datasets import load_adult
from dppca.plotting import plot_variables

adult = load_adult()[0]
# capital_loss is zero in 95 % of rows, so its private scale cannot be told; on_weak="release"
# consents to the other scales' geometric mean for it.
scaled = dppca.dp_pca(
    adult, 4.0, 1e-7, scale="private", scree="huber", on_weak="release", random_state=1
)
ax = plot_variables(scaled, title="Adult (private scales): variable plot")
