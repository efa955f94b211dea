"""The app's server: one independent state per browser session (its data, its runs, its
folder of downloads, removed when the session ends); runs in a worker thread, so the page stays
responsive; every problem shown in the page as a sentence."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from shiny import reactive, render, ui

from dppca.app.data import DataError, Table, default_delta, split_shares
from dppca.app.handlers import (
    SessionRuns,
    SharedSpending,
    figures_zip,
    load_table,
    plan_preview,
    private_file,
    read_settings,
    sample_size_problem,
)
from dppca.app.panels import DESCRIPTIONS, plane_choices, read_axes
from dppca.app.runner import RUN_LOCK, RunOutput, Settings, png_bytes, run


def server(
    input: Any,
    output: Any,
    session: Any,
    given: Table | None = None,
    shared: SharedSpending | None = None,
) -> None:
    """One browser session: :mod:`dppca.app.handlers` does the work, this wires it to the
    page's inputs and outputs (``given``: the data the app was started with, whose releases
    every session counts in ``shared``)."""
    runs = SessionRuns.open(shared)
    session.on_ended(runs.end)
    # Shiny's upload folder of this session, listed for a later server should this one be
    # killed (Shiny removes it when the session ends; its attribute is not public API).
    uploads_folder = getattr(getattr(session, "_file_upload_manager", None), "_basedir", None)
    if uploads_folder:
        runs.remember_upload(uploads_folder)
    loaded: reactive.Value[Table | None] = reactive.value(None)
    data_error: reactive.Value[str | None] = reactive.value(None)

    @reactive.effect
    def _load() -> None:
        try:
            files = input.upload()
            if input.dataset() == "upload" and files:
                runs.remember_upload(files[0]["datapath"])
            table = load_table(input.dataset(), files, runs.uploads, given)
        except DataError as error:
            loaded.set(None)
            data_error.set(str(error))
            ui.update_selectize("variables", choices=[], selected=[])
            ui.update_select("group", choices={"": "none"}, selected="")
            return
        data_error.set(None)
        loaded.set(table)
        ui.update_selectize("variables", choices=table.numeric, selected=table.variables)
        groups = {"": "none", **{name: name for name in table.group_candidates}}
        ui.update_select("group", choices=groups, selected=table.group or "")
        ui.update_numeric("delta", value=default_delta(table.n))
        ui.update_numeric("k", value=min(4, len(table.variables)))  # at most one per variable

    @render.ui
    def delta_rule() -> Any:
        table = loaded()
        if table is None:
            return None
        return ui.tags.small(
            f"Default for n = {table.n:,} rows: 10^-ceil(log10 n²) = {default_delta(table.n):g}, "
            "below 1/n².",
            class_="text-muted d-block mb-2",
        )

    @render.ui
    def split_text() -> Any:
        shares = split_shares(input.split())
        parts = " · ".join(f"{name} {100 * share:.0f} %" for name, share in shares.items())
        return ui.tags.small(f"{parts} (together 100 %)", class_="text-muted d-block mb-2")

    def settings() -> Settings:
        return read_settings(lambda name: getattr(input, name)())

    @reactive.calc
    def planned() -> tuple[pd.DataFrame | None, str | None]:
        table = loaded()
        if table is None:
            return None, data_error()
        return plan_preview(table, settings())

    @render.ui
    def preview() -> Any:
        return _html_table(planned()[0])

    @render.ui
    def preview_note() -> Any:
        _, problem = planned()
        if problem:
            return ui.div(problem, class_="alert alert-warning", role="alert")
        return ui.tags.small(
            "Each release's own (epsilon, delta). With tight composition the rows do not add "
            "up: together they compose to the total in the last row, which is less than their "
            "sum (a panel's title states its part's guarantee as a whole). Moving a slider or a "
            "setting updates this table; nothing is computed on the data until you press Run.",
            class_="text-muted",
        )

    @ui.bind_task_button(button_id="run")
    @reactive.extended_task
    async def compute(table: Table, chosen: Settings, target: Path) -> RunOutput:
        outcome = await asyncio.to_thread(run, table, chosen, target, runs.heard)
        runs.after_run()
        return outcome

    @reactive.effect
    @reactive.event(input.run)
    def _start() -> None:
        table = loaded()
        if table is None:
            ui.notification_show(data_error() or "Choose data first.", type="error")
            return
        compute.invoke(table, settings(), runs.start(table))

    def finished() -> RunOutput | None:
        """The last run's outcome, while the data it was made from are still the chosen ones."""
        outcome = compute.result() if compute.status() == "success" else None
        return runs.current(loaded(), outcome)

    @reactive.effect
    def _tally() -> None:
        if compute.status() == "success":
            runs.tally(compute.result())

    @render.ui
    def status() -> Any:
        state = compute.status()
        if state == "running":
            reactive.invalidate_later(0.5)
            stage = runs.stage or "starting"
            return ui.div(f"Computing: {stage} ...", class_="alert alert-info")
        if state == "error":
            return ui.div("The run failed unexpectedly.", class_="alert alert-danger")
        result = finished()
        if result is None:
            if state == "success":
                return ui.div(
                    "The data changed since the last run: press Run for results on these data.",
                    class_="alert alert-secondary",
                )
            return None
        if result.error:
            return ui.div(result.error, class_="alert alert-danger", role="alert")
        table = loaded()
        assert table is not None  # finished() holds results of the chosen data only
        lines = runs.summary(table)
        if not result.warnings:
            return ui.div(*[ui.p(line) for line in lines], class_="alert alert-success")
        items = [ui.tags.li(message) for message in result.warnings]
        return ui.div(
            *[ui.p(line) for line in lines],
            ui.strong("Notes on the noise:"),
            ui.tags.ul(*items),
            class_="alert alert-warning",
        )

    @reactive.effect
    def _offer_planes() -> None:
        result = finished()
        if result is not None and result.release is not None:
            ui.update_select("plane", choices=plane_choices(result.release), selected="")

    def chosen_plane() -> tuple[int, int] | None:
        """The components chosen for the loading and variable panels (None: the score axes;
        also for a choice made for an earlier run's data, before the page is updated)."""
        result = finished()
        choice = input.plane()
        if result is None or result.release is None:
            return None
        return read_axes(choice if choice in plane_choices(result.release) else "")

    @render.ui
    def results_hint() -> Any:
        result = finished()
        if result is None or result.release is None:
            return ui.p("Press Run to make the private release; its panels appear here.")
        return None

    async def panel(name: str, **views: Any) -> Any:
        """One panel in its views: the run's drawing when there is one, else drawn now in a
        worker thread (post-processing, no budget)."""
        result = finished()
        if result is None or result.panels is None:
            return None
        panels = result.panels
        png = panels.cached(name, **views)
        if png is None:
            try:
                png = await _in_worker(lambda: panels.png(name, **views))
            except (ValueError, TypeError, KeyError) as error:
                message = " ".join(str(error).split())
                return ui.div(f"This view cannot be drawn: {message}", class_="alert alert-warning")
        return _image(png, DESCRIPTIONS[name], f"panel-{name}")

    @render.ui
    async def panel_scree() -> Any:
        return await panel("scree", scree=input.scree_view())

    @render.ui
    async def panel_score() -> Any:
        return await panel("score", score=input.score_view())

    @render.ui
    async def panel_loading() -> Any:
        return await panel("loading", loading=input.loading_view(), axes=chosen_plane())

    @render.ui
    async def panel_variable() -> Any:
        return await panel("variable", axes=chosen_plane())

    @render.ui
    async def panel_biplot() -> Any:
        return await panel("biplot")

    @render.ui
    def compared_histograms() -> Any:
        """Every histogram method side by side, as the report drew them, when several were
        released."""
        result = finished()
        if result is None or result.folder is None:
            return None
        drawn = result.folder / "histograms.png"
        if not drawn.exists():
            return None
        return ui.div(
            ui.h5("Score histograms compared (each on an equal share of the histogram budget)"),
            _image(
                drawn.read_bytes(),
                "The private score histogram of each method",
                "compared-histograms",
            ),
        )

    @render.ui
    async def synthetic() -> Any:
        from dppca.plotting.grids import score_grid

        result = finished()
        if result is None or result.release is None:
            return ui.p("Press Run first.")
        size, sampling = input.sample_size(), input.sampling()
        wrong = sample_size_problem(size)
        if wrong:
            return ui.div(wrong, class_="alert alert-warning")

        png = await _in_worker(  # post-processing of the released histogram: no budget
            lambda: png_bytes(
                score_grid(
                    result.release,
                    panels=("histogram", "sample"),
                    sampling=sampling,
                    n_points=int(size),
                    random_state=0,
                )[0]
            )
        )
        return _image(
            png,
            "The private score histogram and synthetic points drawn from it",
            "synthetic-page",
            width="560px",
        )

    @render.ui
    def budget() -> Any:
        result = finished()
        return None if result is None else _html_table(result.budget, index=True)

    @render.ui
    def importance() -> Any:
        result = finished()
        return None if result is None else _html_table(result.importance, index=True)

    @render.download_button(filename="dppca-release.json")
    def download_json() -> Any:
        return str(private_file(finished(), "release.json"))

    @render.download_button(filename="dppca-report.html")
    def download_report() -> Any:
        return str(private_file(finished(), "report.html"))

    @render.download_button(filename="dppca-figures-png.zip")
    def download_png() -> Any:
        yield figures_zip(finished(), "png")

    @render.download_button(filename="dppca-figures-svg.zip")
    def download_svg() -> Any:
        yield figures_zip(finished(), "svg")

    @render.ui
    def reference() -> Any:
        result = finished()
        if result is None or result.reference_png is None:
            return ui.p(
                "Tick 'Also compute the NON-private reference' and run again to compare the "
                "private page with ordinary PCA of the raw data. The reference is shown here "
                "only, never in the downloads."
            )
        # shown in the page only, never written to a file: the downloads hold private files
        png = base64.b64encode(result.reference_png).decode("ascii")
        return ui.div(
            ui.h4("NOT PRIVATE: ordinary PCA of the raw data", class_="text-danger"),
            ui.p(
                "For your own comparison only: this page is not protected and must never be "
                "published.",
                class_="text-danger",
            ),
            ui.img(src=f"data:image/png;base64,{png}", style="max-width: 100%;"),
        )


def _html_table(frame: pd.DataFrame | None, index: bool = False) -> Any:
    """A table in the page's style (numbers with four significant digits)."""
    if frame is None:
        return None
    html = frame.to_html(
        index=index,
        classes="table table-sm table-striped",
        border=0,
        justify="left",
        float_format=lambda value: f"{value:.4g}",
    )
    return ui.HTML(html)


async def _in_worker(draw: Callable[[], bytes]) -> bytes:
    """``draw()`` (an image) in a worker thread, one drawing at a time in the process, so that
    the server keeps serving every session while it waits."""

    def locked() -> bytes:
        with RUN_LOCK:
            return draw()

    return await asyncio.to_thread(locked)


def _image(png_data: bytes, alt: str, element_id: str, width: str = "100%") -> Any:
    """A PNG as an image in the page, at most ``width`` wide."""
    png = base64.b64encode(png_data).decode("ascii")
    return ui.img(
        src=f"data:image/png;base64,{png}",
        alt=alt,
        style=f"max-width: min(100%, {width});",
        id=element_id,
    )
