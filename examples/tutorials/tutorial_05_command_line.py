"""
The command line
================

``dppca run`` makes the whole private PCA of a CSV or Parquet file and writes the private
release as JSON, every figure as PNG and SVG, and a self-contained HTML report. Here it runs on
the embedded Adult data written to a CSV file (in a terminal, the same command without
``sys.executable -m``).
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from dppca.datasets import load_adult

folder = Path(tempfile.mkdtemp())
adult, _ = load_adult()
adult.to_csv(folder / "adult.csv", index=False)
command = [
    *(sys.executable, "-m", "dppca", "run", str(folder / "adult.csv")),
    *("--epsilon", "4", "--delta", "1e-7", "--scale", "private", "--scree", "huber"),
    *("--on-weak", "release"),  # consent to a stand-in scale for capital_loss
    *("--seed", "5", "--quiet", "--out", str(folder / "report")),
]
finished = subprocess.run(command, capture_output=True, text=True, check=True)
print(finished.stdout)
print(sorted(path.name for path in (folder / "report").iterdir()))

# %%
# ``release.json`` holds every released number and the ledger; nothing in the folder is
# non-private (``--non-private-reference DIR`` writes the reference elsewhere, on request).
release = json.loads((folder / "report" / "release.json").read_text())
print({key: release[key] for key in ("n_samples", "feature_names", "k")})
print("PVE:", [round(value, 3) for value in release["pve"]])
print("total budget:", release["privacy_total"])
for entry in release["privacy"][:3]:
    print(entry["name"], "|", entry["mechanism"], "| epsilon", round(entry["epsilon"], 4))
for note in release["notes"]:
    print("note:", note)

# %%
# The report's page, as written:
page = plt.imread(next((folder / "report").glob("*page*.png")))
fig, ax = plt.subplots(figsize=(9, 6), layout="constrained")
ax.imshow(page)
ax.set_axis_off()

# %%
# Bad input is refused before anything is spent, with a one-line message and exit status 2:
refused = [*command[:5], "--epsilon", "-1", "--delta", "1e-7", "--out", str(folder / "x")]
bad = subprocess.run(refused, text=True, capture_output=True)
print(bad.returncode, bad.stderr.strip())
