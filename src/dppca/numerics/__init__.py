"""Pure numerics, knowing nothing of privacy: spatial signs, the Kendall kernel, sensitivity
formulas, public grids, pairings, isotonic fits, linear-algebra helpers, and rows held in memory
or by Dask."""
