"""
Data on a Dask cluster
======================

``kendall_matrix``, ``dp_loading``, ``dp_scree``, ``dp_score`` and ``dp_pca`` take a Dask array
or data frame chunked by rows (``pip install -e ".[dask]"``). The rows stay on the workers:
pairs of chunks are tasks whose partial sums are added up on the workers, the random orders of
the design and of the pairs are keyed permutations that each worker evaluates at its own rows,
and the scores are paired, clipped and counted chunk by chunk; only counts, exact sums and one
d x d sum per chunk travel, and the noise is drawn once on the client. For a seed, the release
equals the NumPy path's.

Here a small cluster of threads in this process stands in for a real one; to use an existing
cluster, connect with ``Client("tcp://scheduler-host:8786")`` instead (every worker needs
``dppca`` installed and must be able to read the data).
"""

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
X = genotypes.to_numpy()
groups = labels["superpopulation"].to_numpy()

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, Client(cluster):
    chunked = da.from_array(X, chunks=(700, X.shape[1]))  # four row chunks
    on_dask = dppca.dp_pca(chunked, 4.0, 1e-7, groups=groups, random_state=4, scree={"k": 5})

in_memory = dppca.dp_pca(X, 4.0, 1e-7, groups=groups, random_state=4, scree={"k": 5})
print(
    "largest difference of the directions:", np.abs(on_dask.directions - in_memory.directions).max()
)
print("PVE on Dask:    ", on_dask.pve.round(4))
print("PVE in memory:  ", in_memory.pve.round(4))
page = on_dask.plot("all", random_state=4)

# %%
# On a two-process cluster of a 2-core machine, 2 x 10^6 rows x 50 read from chunked files took
# 11.5 s for the whole ``dp_pca`` release, 1.4 times the same release in memory
# (``benchmarks/dask_scale.py``); a cluster pays off when the data do not fit one machine's
# memory.
