"""
Census data in mixed units: UCI Adult
=====================================

The embedded Adult extract has five numeric variables in years, hours and dollars. Principal
directions of such data follow the units: change a variable's units and the directions
change. Scaling by sample standard deviations is not private. ``scale="private"`` releases a
robust scale per variable first (a tenth of the budget by default), and every later release
works on the scaled data.
"""

import pandas as pd

import dppca
from dppca.datasets import load_adult

adult, adult_labels = load_adult()
print(adult.describe().round(1).to_string())

# %%
# Unscaled, the robust directions follow the variables whose typical differences are largest
# in their units, age (years) and hours per week; the dollar amounts, zero for most people,
# barely enter:
unscaled = dppca.dp_pca(adult, 4.0, 1e-7, random_state=3)
print(unscaled.loadings.iloc[:, :2].round(2).to_string())

# %%
# The warning above is the scree's: unscaled, the variances along the robust directions follow
# the dollar amounts (a few huge capital gains), so PC3's variance exceeds PC1's and the
# non-increasing fit pools them. It is one more sign that the units, not the data, drive the
# unscaled analysis.
#
# Private scales put the variables on a common footing. But ``capital_loss`` is zero in 95 % of
# rows: most of its pairs are tied, and at this budget its private scale cannot be told from
# the noise in about two runs of three. When it cannot, the call stops by default right after
# the scales, having spent only their part of the budget, and the error holds the released
# scales (NaN for ``capital_loss``), as in this run:
try:
    dppca.dp_pca(adult, 4.0, 1e-7, scale="private", scree="huber", random_state=1)
except dppca.UnreliableScaleError as error:
    print(error.result.to_series().round(1).to_string())

# %%
# Two ways on: pass public scales (the released ones are post-processing, so they can be
# reused with a stand-in for ``capital_loss`` chosen by the analyst, and no further budget for
# scales), or consent in advance to the stand-in the library offers when a scale is flagged,
# the geometric mean of the other scales, with ``on_weak="release"``. With private scales the
# directions spread over the variables. The released scales are shown beside the sample
# standard deviations (not private; computed here only to compare).
scaled = dppca.dp_pca(
    adult, 4.0, 1e-7, scale="private", scree="huber", on_weak="release", random_state=3
)
comparison = pd.DataFrame({"private scale": scaled.scales, "sample sd (not private)": adult.std()})
print(comparison.round(1).to_string())
print(scaled.loadings.iloc[:, :2].round(2).to_string())
page = scaled.plot("all", random_state=3)

# %%
# The notes say, from released values only, which parts of the release are dominated by
# noise or unreliable:
for note in scaled.notes:
    print("-", note)
