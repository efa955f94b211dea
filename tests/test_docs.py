"""The R-to-Python guide covers every R function, and the Python names it gives exist."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).parents[1] / "docs" / "r-to-python.md"

#: The R package's exported functions (its inventory, section 1) and its data sets.
R_FUNCTIONS = [
    "dp_loading",
    "dp_loading_plot",
    "loading_plot_control",
    "privacy_control",
    "dp_scree",
    "dp_scree_plot",
    "clipped_control",
    "pmwm_control",
    "huber_control",
    "scree_plot_control",
    "dp_score",
    "dp_score_plot",
    "dp_score_group",
    "dp_score_plot_group",
    "sampling_control",
    "score_plot_control",
    "dp_pca",
    "print.dp_pca",
    "summary.dp_pca",
    "plot.dp_pca",
    "dppca_app",
    "dp_pc_dir",
    "gau_g",
    "adult",
]


def test_every_r_function_has_a_section_or_row():
    text = GUIDE.read_text()
    missing = [name for name in R_FUNCTIONS if f"`{name}" not in text]
    assert not missing


def test_the_python_names_in_the_guide_exist():
    import dppca.datasets
    import dppca.plotting

    text = GUIDE.read_text()
    for module, name in re.findall(r"`(dppca(?:\.plotting|\.datasets)?)\.(\w+)\(", text):
        owner = {"dppca": dppca, "dppca.plotting": dppca.plotting, "dppca.datasets": dppca.datasets}
        assert hasattr(owner[module], name), f"{module}.{name}"
