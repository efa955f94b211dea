"""The R-to-Python guide covers every R function, and the Python names it gives exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


#: Every argument of the R package's functions (its inventory, section 1).
R_ARGUMENTS = {
    "dp_loading": ["X", "eps", "delta", "center", "standardize", "cpp.option", "non_private"],
    "dp_loading_plot": [
        "axes",
        "display",
        "heatmap_components",
        "variables",
        "labels",
        "align_sign",
        "plot_control",
    ],
    "loading_plot_control": [
        "nonprivate_color",
        "private_color",
        "arrow_size",
        "point_size",
        "label_size",
        "heatmap_values",
        "heatmap_digits",
        "heatmap_text_size",
        "base_size",
        "title_size",
        "nonprivate_title",
        "private_title",
        "xlab",
        "ylab",
        "heatmap_colors",
    ],
    "privacy_control": ["eps", "delta", "split", "loading", "scree", "score"],
    "dp_scree": ["k", "privacy", "method", "control", "mono", "V_dp", "non_private"],
    "dp_scree_plot": ["type", "plot_control"],
    "clipped_control": ["C_clip"],
    "pmwm_control": ["a", "b", "trim_const", "eta", "beta", "split_mode"],
    "huber_control": ["k_min_m2", "k_max_m2", "m2_frac", "mu0", "eta0", "T", "M"],
    "scree_plot_control": [
        "title",
        "legend_position",
        "legend_labels",
        "col",
        "lty",
        "pch",
        "lwd",
        "point_cex",
        "cex_main",
        "cex_lab",
        "cex_axis",
        "cex_legend",
        "legend_bty",
    ],
    "dp_score": ["bins", "method", "axes", "V_dp"],
    "dp_score_plot": ["private_plot", "sampling_control"],
    "dp_score_group": ["group"],
    "sampling_control": ["method", "sample_size", "bandwidth_scale"],
    "score_plot_control": [
        "color",
        "scatter_alpha",
        "scatter_size",
        "hist_alpha_range",
        "scatter_title",
        "nonprivate_title",
        "add_title",
        "sparse_title",
        "group_colors",
        "group_ncol",
        "show_group_legend",
    ],
    "dp_pca": ["privacy", "scree", "score", "axes", "V_dp"],
    "print.dp_pca": ["digits"],
    "plot.dp_pca": [
        "type",
        "non_private",
        "scree",
        "score",
        "loading",
        "variable",
        "biplot",
        "sampling",
        "variables",
        "labels",
        "base_size",
        "display_k",
        "alpha",
        "circle",
    ],
    "dppca_app": ["group"],
}


def test_every_r_argument_is_named_in_the_guide():
    text = GUIDE.read_text()
    missing = [
        f"{function}({argument})"
        for function, arguments in R_ARGUMENTS.items()
        for argument in arguments
        if f"`{argument}" not in text and f"{argument}," not in text and f"{argument})" not in text
    ]
    assert not missing


def test_the_source_cites_papers_never_internal_documents():
    """Docstrings and comments name public sources (papers, the R package), never the project's
    own design notes, which users do not have."""
    import dppca

    package = Path(dppca.__file__).parent
    internal = re.compile(r"\bSPEC\b|\b[Ss]eed 0\d\d\b|\binventory\b")
    cited = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if internal.search(line)
    ]
    assert not cited, cited


GALLERY = Path(__file__).parents[1] / "examples" / "gallery"


def test_the_gallery_has_an_example_of_every_plot_function():
    """Every plotting helper, display and one-call figure is drawn by some gallery example (the
    documentation build runs them all)."""
    import dppca.plotting

    text = "\n".join(path.read_text() for path in GALLERY.glob("plot_*.py"))
    names = [name for name in dppca.plotting.__all__ if not name.endswith("Display")]
    names += ["dp_loading_plot", "dp_scree_plot", "dp_score_plot", "dp_score_plot_group"]
    names += ["sample_scores", "LoadingDisplay"]
    missing = [name for name in names if not re.search(rf"\b{name}\b", text)]
    assert not missing


README = Path(__file__).parents[1] / "README.md"


@pytest.mark.filterwarnings("ignore")  # the releases' notes on noise; the values are checked
def test_the_readme_code_runs(tmp_path, monkeypatch):
    """The README's Python blocks (which the documentation site includes) run in order, except
    the one that needs a cluster at a made-up address (the Dask tutorial runs its own)."""
    import matplotlib

    matplotlib.use("Agg")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    runnable = [block for block in blocks if "scheduler-host" not in block]
    assert len(runnable) >= 2 and len(blocks) - len(runnable) == 1
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in runnable:
        exec(compile(block, str(README), "exec"), namespace)
    assert (tmp_path / "pca.png").stat().st_size > 10_000
    assert namespace["result"].privacy.total.epsilon <= 4.0
