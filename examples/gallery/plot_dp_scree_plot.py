"""
Private scree in one call: ``dp_scree_plot``
============================================

:func:`dppca.dp_scree_plot` estimates the private directions (``loading_epsilon``) and then the
variances along the first eight of them by two private methods: the clipped means of pair
differences and Huber gradient descent. The non-private eigenvalues are drawn for comparison.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
figure = dppca.dp_scree_plot(
    genotypes,
    8,
    2.0,
    1e-7,
    method=("clipped", "huber"),
    loading_epsilon=2.0,
    loading_delta=1e-7,
    non_private=True,
    random_state=1,
)
print(figure.result.to_frame().round(3))
