"""The app's page: the data and the settings on the left, the budget preview, the private
results, the downloads and (only on request) the non-private reference on the right."""

from __future__ import annotations

from typing import Any

from shiny import ui

from dppca.app.data import EMBEDDED
from dppca.app.handlers import GIVEN
from dppca.app.panels import PANELS

DATA_CHOICES = {**EMBEDDED, "upload": "Upload a CSV file"}
STATISTIC_CHOICES = {
    "kendall": "Kendall matrix (g-DPPCA, translation invariant)",
    "sscm": "Spatial signs about a private centre",
    "auto": "Chosen from n, p and epsilon (SSCM where it wins)",
}
SCREE_CHOICES = {
    "clipped": "clipped (no tuning)",
    "pmwm": "PMWM (needs public bounds)",
    "huber": "Huber gradient descent",
}
SCORE_CHOICES = {
    "thresholded": "thresholded (drops noise-only cells)",
    "add": "additive noise",
    "sparse": "sparse (cells with data only)",
}


#: Long variable lists scroll inside their box.
STYLE = ".selectize-input { max-height: 11em; overflow-y: auto; }"


def _help(text: str) -> Any:
    return ui.tags.small(text, class_="text-muted d-block mb-2")


def _data_panel(given: str | None) -> Any:
    choices = DATA_CHOICES if given is None else {GIVEN: given, **DATA_CHOICES}
    return ui.accordion_panel(
        "1. Data",
        ui.input_select("dataset", "Data set", choices, selected=next(iter(choices))),
        ui.panel_conditional(
            "input.dataset === 'upload'",
            ui.input_file("upload", "CSV file (header row, one row per person)", accept=[".csv"]),
            _help(
                "The file stays on this server, for this session only, and is deleted when you "
                "leave."
            ),
        ),
        ui.input_selectize("variables", "Variables (numeric columns)", [], multiple=True),
        ui.input_select("group", "Group column (optional)", {"": "none"}),
        _help(
            "Its labels are published with the results: offered are the columns of at most 20 "
            "distinct values."
        ),
        ui.input_radio_buttons(
            "scale",
            "Scaling",
            {"none": "none (variables in the same units)", "private": "private robust scales"},
            selected="none",
        ),
    )


def _budget_panel() -> Any:
    return ui.accordion_panel(
        "2. Privacy budget",
        ui.input_numeric("epsilon", "Total epsilon", 4.0, min=0.01, step=0.5),
        _help("Smaller epsilon: stronger privacy, noisier results."),
        ui.input_numeric("delta", "Total delta", 1e-7, min=0.0, step=1e-7),
        ui.output_ui("delta_rule"),
        ui.input_slider("split", "Split: loading | scree | score (%)", 0, 100, (33, 67), step=1),
        ui.output_ui("split_text"),
    )


def _settings_panel() -> Any:
    return ui.accordion_panel(
        "3. Settings",
        ui.input_select("statistic", "Directions from", STATISTIC_CHOICES, selected="kendall"),
        ui.input_numeric("k", "Components in the scree (k)", 4, min=2, step=1),
        ui.input_numeric(
            "bins", "Histogram cells per axis (0: chosen from n and epsilon)", 0, min=0
        ),
        ui.input_checkbox_group("scree", "Scree method(s)", SCREE_CHOICES, selected=["clipped"]),
        _help(
            "Several are drawn together on the scree panel and share the scree's budget "
            "equally; the highest checked in this list is the one the score frame and the "
            "variable plot use."
        ),
        ui.panel_conditional(
            "input.scree && input.scree.includes('pmwm')",
            ui.input_numeric("pmwm_a", "Lower bound a of the variances", 0.0),
            ui.input_numeric("pmwm_b", "Upper bound b of the variances", 10.0),
            ui.input_numeric("pmwm_trim", "Trimming constant", 10.0),
            ui.input_numeric("pmwm_eta", "Step eta", 0.01),
        ),
        ui.panel_conditional(
            "input.scree && input.scree.includes('huber')",
            ui.input_numeric("huber_m2", "Share of pairs for the scale step (m2_frac)", 0.25),
        ),
        ui.input_checkbox_group(
            "score", "Score histogram(s)", SCORE_CHOICES, selected=["thresholded"]
        ),
        _help(
            "Several are shown side by side below the panels and share the histogram's budget "
            "equally; the highest checked in this list is the one on the score panel."
        ),
        ui.input_select(
            "score_axes",
            "Score plot components",
            {f"{i},{j}": f"PC{i} and PC{j}" for j in range(2, 5) for i in range(1, j)},
            selected="1,2",
        ),
        ui.input_text("seed", "Seed (empty: fresh randomness; for research only)", ""),
        ui.input_checkbox("non_private", "Also compute the NON-private reference", False),
    )


def page(given: str | None = None) -> Any:
    """The whole page (``given``: the name of the data the app was started with, offered first
    and chosen)."""
    sidebar = ui.sidebar(
        ui.accordion(
            _data_panel(given),
            _budget_panel(),
            _settings_panel(),
            id="steps",
            open=True,
            multiple=True,
        ),
        ui.input_task_button("run", "Run private PCA", label_busy="Computing..."),
        width=380,
        title="Private PCA",
    )
    results = ui.navset_card_tab(
        ui.nav_panel(
            "Private results",
            ui.layout_columns(
                ui.input_select(
                    "scree_view",
                    "Scree panel",
                    {"pve": "proportion of variance", "scree": "variances (eigenvalues)"},
                ),
                ui.input_select(
                    "score_view",
                    "Score panel",
                    {"histogram": "private histogram", "sample": "synthetic points"},
                ),
                ui.input_select(
                    "loading_view",
                    "Loading panel",
                    {"point": "points", "vector": "arrows", "heatmap": "heatmap"},
                ),
                ui.input_select(
                    "plane", "Loading and variable panels' components", {"": "as the score plot"}
                ),
                col_widths=(3, 3, 3, 3),
            ),
            ui.output_ui("results_hint"),
            ui.layout_column_wrap(
                *[ui.output_ui(f"panel_{name}") for name in PANELS], width=1 / 3, gap="0.5rem"
            ),
            ui.output_ui("compared_histograms"),
        ),
        ui.nav_panel(
            "Synthetic scores",
            _help(
                "Points drawn from the private score histogram (post-processing: no budget). "
                "They show the shape of the data, never real people."
            ),
            ui.layout_columns(
                ui.input_select(
                    "sampling",
                    "Sampling in each cell",
                    {"uniform": "uniform within the cell", "center": "at the cell's centre"},
                ),
                ui.input_numeric("sample_size", "Sample size", 500, min=10, max=100_000),
                col_widths=(3, 3),
            ),
            ui.output_ui("synthetic"),
        ),
        ui.nav_panel(
            "Budget and importance",
            ui.h5("Budget spent by each release"),
            ui.output_ui("budget"),
            ui.h5("Importance of the components (private)"),
            ui.output_ui("importance"),
        ),
        ui.nav_panel(
            "Downloads",
            _help(
                "Everything here is private: the release and figures made from it. A "
                "download's link works for anyone who has it while this session lives."
            ),
            ui.download_button("download_json", "Release (JSON)"),
            ui.download_button("download_report", "Report (HTML)"),
            ui.download_button("download_png", "Figures (PNG, zip)"),
            ui.download_button("download_svg", "Figures (SVG, zip)"),
        ),
        ui.nav_panel("Non-private reference", ui.output_ui("reference")),
        id="tabs",
    )
    return ui.page_sidebar(  # the results above the fold, the budget preview below them
        sidebar,
        ui.tags.style(STYLE),
        ui.output_ui("status"),
        results,
        ui.card(
            ui.card_header("Budget preview (before anything runs)"),
            ui.output_ui("preview"),
            ui.output_ui("preview_note"),
        ),
        title="dppca: private PCA",
        window_title="dppca",
    )
