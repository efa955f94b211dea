"""
The scikit-learn estimator: ``DPPCA`` and ``LoadingDisplay``
============================================================

:class:`dppca.DPPCA` fits private directions as a scikit-learn transformer;
:meth:`dppca.plotting.LoadingDisplay.from_result` draws its loadings.
"""

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.plotting import LoadingDisplay

genotypes, labels = load_1kg_aisnps("kidd")
model = dppca.DPPCA(2, epsilon=4.0, delta=1e-7, random_state=1).fit(genotypes)
display = LoadingDisplay.from_result(model)
print(model.explained_variance_ratio_, model.privacy_spent_)
