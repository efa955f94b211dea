"""
Private scree in one call: ``dp_scree_plot``
============================================

:func:`dppca.dp_scree_plot` estimates the private directions (``loading_epsilon``) and then the
variances along the first five of them by two private methods: the clipped means of pair
differences and Huber gradient descent (whose five private scales need epsilon 4 at 2,504
rows; at 2 the call is refused before anything is spent). The non-private eigenvalues are
drawn for comparison.
"""

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
figure = dppca.dp_scree_plot(
    genotypes,
    5,
    4.0,
    1e-7,
    method=("clipped", "huber"),
    loading_epsilon=2.0,
    loading_delta=1e-7,
    non_private=True,
    random_state=1,
)
print(figure.result.to_frame().round(3))
