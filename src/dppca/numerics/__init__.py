"""Pure numerics, knowing nothing of privacy: spatial signs, the Kendall kernel, sensitivity
formulas, public grids, pairings, isotonic fits and linear-algebra helpers."""
