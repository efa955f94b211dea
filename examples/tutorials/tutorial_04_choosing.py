"""
Choosing epsilon, delta, k, bins and the split
==============================================

How accurate are the private directions and proportions of variance at a given budget and
sample size? This page measures it on the embedded 1000 Genomes data (Kidd panel, 55 SNPs)
over 10 seeds per setting, against ordinary PCA of the same rows (the non-private reference,
computed here only to measure the error).

* ``sin Theta``: the sine of the largest principal angle between the private and the ordinary
  plane of PC1-2 (0: the same plane; 1: orthogonal).
* PVE error: the largest absolute error of the proportions of variance over PC1-5.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.linalg import subspace_angles

import dppca
from dppca.datasets import load_1kg_aisnps

genotypes, labels = load_1kg_aisnps("kidd")
X = genotypes.to_numpy()


def sin_theta(private, reference):
    """The sine of the largest principal angle between two column spaces."""
    return float(np.sin(subspace_angles(private, reference)).max())


rows = []
rng = np.random.default_rng(0)
# The smallest budgets here are too small for their n: by default dp_pca refuses them before
# anything is spent (an UnlocatableError naming the smallest epsilon and n that would work,
# below). The study passes on_weak="release" to show what they would give; the releases then
# warn with a NoiseDominatedWarning and mark what is not usable in ``result.status``.
try:
    dppca.plan_pca((600, X.shape[1]), 1.0, 1e-7, scree={"k": 5}).enforce()
except dppca.UnlocatableError as refusal:
    print(refusal)
warnings.simplefilter("ignore", dppca.NoiseDominatedWarning)
for n in (600, 1200, 2504):
    for epsilon in (0.5, 1.0, 2.0, 4.0, 8.0):
        for seed in range(10):
            sample = X[rng.choice(len(X), n, replace=False)]
            result = dppca.dp_pca(
                sample,
                epsilon,
                1e-7,
                non_private=True,
                random_state=seed,
                on_weak="release",
                scree={"k": 5},
            )
            rows.append(
                {
                    "n": n,
                    "epsilon": epsilon,
                    "sin theta": sin_theta(
                        result.directions[:, :2], result.non_private.directions[:, :2]
                    ),
                    "PVE error": float(np.max(np.abs(result.pve - result.non_private.pve))),
                }
            )
study = pd.DataFrame(rows)
summary = study.groupby(["n", "epsilon"]).median().unstack("n")
print(summary.round(3).to_string())

# %%
# The medians against epsilon, one line per n: the error falls roughly like ``1 / (n epsilon)``
# once the budget locates the directions at all (below that, sin Theta is near 1).
# Ordinary PCA and the robust Kendall directions differ a little even without noise, so the
# error cannot fall below that difference.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
for n, part in study.groupby("n"):
    medians = part.groupby("epsilon").median()
    axes[0].plot(medians.index, medians["sin theta"], marker="o", label=f"n = {n}")
    axes[1].plot(medians.index, medians["PVE error"], marker="o", label=f"n = {n}")
for ax, title in zip(axes, ("sin Theta, PC1-2", "largest PVE error, PC1-5"), strict=True):
    ax.set(xscale="log", yscale="log", xlabel="total epsilon (delta = 1e-7)", title=title)
    ax.set_xticks([0.5, 1, 2, 4, 8], labels=["0.5", "1", "2", "4", "8"])
    ax.set_yticks([0.01, 0.03, 0.1, 0.3, 1], labels=["0.01", "0.03", "0.1", "0.3", "1"])
    ax.minorticks_off()
    ax.legend()

# %%
# The split and the bins
# ----------------------
#
# At n = 2,504 and a total epsilon of 2 and 4: the share of the budget for the directions
# (the rest split equally between the scree and the score plot), and the number of histogram
# cells per axis. The histogram error is the total variation distance between the private
# histogram and the histogram of ordinary PCA's scores on the same frame.

split_rows = []
for epsilon in (2.0, 4.0):
    for share in (0.2, 1 / 3, 0.5, 0.7):
        split = {"loading": share, "scree": (1 - share) / 2, "score": (1 - share) / 2}
        for seed in range(10):
            result = dppca.dp_pca(
                X,
                epsilon,
                1e-7,
                split=split,
                non_private=True,
                random_state=seed,
                on_weak="release",
                scree={"k": 5},
            )
            split_rows.append(
                {
                    "epsilon": epsilon,
                    "loading share": round(share, 2),
                    "sin theta": sin_theta(
                        result.directions[:, :2], result.non_private.directions[:, :2]
                    ),
                    "PVE error": float(np.max(np.abs(result.pve - result.non_private.pve))),
                }
            )
print(pd.DataFrame(split_rows).groupby(["epsilon", "loading share"]).median().round(3).to_string())

bins_rows = []
for bins in (6, 10, 16, 24):
    for seed in range(10):
        result = dppca.dp_pca(
            X, 4.0, 1e-7, non_private=True, random_state=seed, scree={"k": 5}, score={"bins": bins}
        )
        private = result.histogram["prob"].to_numpy()
        reference = result.non_private.histogram["prob"].to_numpy()
        bins_rows.append({"bins": bins, "TV distance": 0.5 * np.abs(private - reference).sum()})
print(pd.DataFrame(bins_rows).groupby("bins").median().round(3).to_string())

# %%
# A coarser grid is closer to its reference by construction (it shows less), so compare the
# histogram errors with the detail each grid gives; the default grid here has 12 x 12 cells.
#
# The cost of a smaller delta grows slowly. The noise standard deviation of the directions
# against delta, relative to delta = 1e-6 (the same data and epsilon); each factor of 100 adds
# 15 to 20 % noise:
sds = {
    delta: dppca.dp_loading(X, 1.0, delta, random_state=0).sigma
    for delta in (1e-5, 1e-6, 1e-8, 1e-10, 1e-12)
}
print({f"{delta:g}": round(sd / sds[1e-6], 3) for delta, sd in sds.items()})

# %%
# Rules of thumb
# --------------
#
# * **epsilon**: the total for the whole ``dp_pca`` call. On these data ``n epsilon`` of about
#   10,000 gives directions within ``sin Theta`` 0.1 of ordinary PCA, and halving ``n`` needs
#   about twice the epsilon for the same accuracy (read the table above for your n).
# * **delta**: every call asks for it (``DPPCA`` defaults to 1e-6). Choose it well below
#   ``1 / n``, the chance of a release that exposes one person outright; a common choice is
#   below ``1 / n^2`` (the web app proposes ``10^-ceil(log10 n^2)``: 1e-7 for 2,504 rows). A
#   delta of ``1 / n`` or more draws a warning before anything is spent. The Gaussian noise
#   grows like ``sqrt(ln(1 / delta))``, slowly (the table above).
# * **k**: the number of components in the scree. The proportions of variance are shares of
#   the k released components' variance, not of the total variance (which is not released):
#   PC1's share is larger at k = 5 than at k = 30. Compare proportions only at the same k;
#   each further component adds noise to the scree's joint release.
# * **bins**: by default ``sqrt(n / (3 sigma))`` cells per axis within ``[4, 40]``, from the
#   histogram's public noise sd ``sigma``: about ten noise sd per occupied cell when the points
#   cover 30 % of the frame. More bins give a finer picture with more of it lost to noise.
# * **split**: by default a third of the budget each for the directions, the scree and the
#   score plot, composed tightly (each part gets more than its share of epsilon). Here half of
#   it for the directions made them more accurate at no cost to the scree at epsilon 4, and
#   at a small cost at epsilon 2; 70 % starved the scree at epsilon 2. Give the directions more
#   when they matter most; :func:`dppca.plan_pca` shows each release's budget before anything
#   is spent.
plan = dppca.plan_pca(X.shape, 4.0, 1e-7, scree={"k": 5})
print(plan.budget_table())
