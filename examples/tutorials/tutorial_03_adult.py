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
# With private scales the directions spread over the variables. The released scales are
# shown beside the sample standard deviations (not private; computed here only to compare).
scaled = dppca.dp_pca(adult, 4.0, 1e-7, scale="private", scree="huber", random_state=3)
comparison = pd.DataFrame({"private scale": scaled.scales, "sample sd (not private)": adult.std()})
print(comparison.round(1).to_string())
print(scaled.loadings.iloc[:, :2].round(2).to_string())
page = scaled.plot("all", random_state=3)

# %%
# The notes say, from released values only, which parts of the release are dominated by
# noise or unreliable:
for note in scaled.notes:
    print("-", note)
