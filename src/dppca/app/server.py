"""The app's server: one independent state per browser session (its data, its runs, its
folder of downloads, removed when the session ends); runs in a worker thread, so the page stays
responsive; every problem shown in the page as a sentence."""

from __future__ import annotations

import asyncio
import base64
import io
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from shiny import reactive, render, ui

from dppca.app.data import DataError, Table, default_delta, embedded, split_shares, uploaded
from dppca.app.runner import (
    RUN_LOCK,
    RunOutput,
    Settings,
    in_app_terms,
    png_bytes,
    problem,
    run,
)
from dppca.exceptions import UnlocatableError

FIGURES = ("scree", "score", "loading", "variable", "biplot", "page")


def server(input: Any, output: Any, session: Any) -> None:
    folder = Path(tempfile.mkdtemp(prefix="dppca-app-"))  # readable by this user only
    runs: dict[str, Any] = {"count": 0, "stage": "", "ended": False, "spent": {}}

    def end() -> None:
        runs["ended"] = True
        shutil.rmtree(folder, ignore_errors=True)

    session.on_ended(end)
    loaded: reactive.Value[Table | None] = reactive.value(None)
    data_error: reactive.Value[str | None] = reactive.value(None)

    @reactive.effect
    def _load() -> None:
        choice = input.dataset()
        try:
            if choice == "upload":
                files = input.upload()
                if not files:
                    raise DataError("Upload a CSV file, or choose an embedded data set.")
                table = uploaded(files[0]["datapath"], files[0]["name"])
            else:
                table = embedded(choice)
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
        scree = input.scree()
        control: dict[str, Any] = {}
        if scree == "pmwm":
            control = {
                "a": input.pmwm_a(),
                "b": input.pmwm_b(),
                "trim_const": input.pmwm_trim(),
                "eta": input.pmwm_eta(),
            }
        elif scree == "huber":
            control = {"m2_frac": input.huber_m2()}
        return Settings(
            variables=list(input.variables() or []),
            group=input.group() or None,
            scale=input.scale(),
            epsilon=input.epsilon(),
            delta=input.delta(),
            handles=tuple(input.split()),
            k=input.k(),
            bins=input.bins() or 0,
            scree=scree,
            scree_control=control,
            score=input.score(),
            seed_text=(input.seed() or "").strip(),
            non_private=input.non_private(),
        )

    @reactive.calc
    def planned() -> tuple[pd.DataFrame | None, str | None]:
        from dppca.planning import plan_pca

        table = loaded()
        if table is None:
            return None, data_error()
        chosen = settings()
        refused = problem(table, chosen)
        if refused:
            return None, refused
        try:
            shape = (table.n, len(chosen.variables))
            plan = plan_pca(shape, chosen.epsilon, chosen.delta, **chosen.options())
        except (ValueError, TypeError) as error:
            return None, " ".join(str(error).split())
        budget = plan.budget_table()
        try:  # what the budget cannot locate is said before Run, which would be refused
            plan.enforce("refuse", "This run")
        except UnlocatableError as error:
            return budget, in_app_terms(str(error))
        budget["epsilon"] = budget["epsilon"].map(lambda v: f"{v:.3g}")
        budget["delta"] = budget["delta"].map(lambda v: f"{v:.3g}")
        return budget, None

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
        def heard(stage: str) -> None:  # from the worker thread; read by the status poll
            runs["stage"] = stage

        outcome = await asyncio.to_thread(run, table, chosen, target, heard)
        if runs["ended"]:  # the session ended during the run: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
        return outcome

    @reactive.effect
    @reactive.event(input.run)
    def _start() -> None:
        table = loaded()
        if table is None:
            ui.notification_show(data_error() or "Choose data first.", type="error")
            return
        runs["count"] += 1
        runs["data"] = _data_key(table)
        target = folder / f"run{runs['count']}"
        compute.invoke(table, settings(), target)

    def finished() -> RunOutput | None:
        """The last run's outcome, while the data it was made from are still the chosen ones."""
        if compute.status() != "success":
            return None
        table = loaded()
        if table is None or runs.get("data") != _data_key(table):
            return None
        return compute.result()

    @reactive.effect
    def _tally() -> None:  # every release counts against its data in this session, a stopped
        if compute.status() == "success":  # run's too (what it released before it stopped)
            outcome = compute.result()
            total = outcome.spent
            if outcome.release is not None and not outcome.error:
                total = outcome.release.privacy.total
            if total is not None:
                runs["spent"].setdefault(runs["data"], []).append((total.epsilon, total.delta))

    @render.ui
    def status() -> Any:
        state = compute.status()
        if state == "running":
            reactive.invalidate_later(0.5)
            stage = runs["stage"] or "starting"
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
        spent = runs["spent"].get(runs["data"], [])
        lines = [f"Made from {table.source}: n = {table.n:,} rows. Every panel below is private."]
        if len(spent) > 1:
            epsilon, delta = (sum(values) for values in zip(*spent, strict=True))
            lines.append(
                f"This session has made {len(spent)} releases from these data; their guarantees "
                f"add up to epsilon = {epsilon:.3g}, delta = {delta:.3g} (basic composition). "
                "Publish one release, not several."
            )
        if not result.warnings:
            return ui.div(*[ui.p(line) for line in lines], class_="alert alert-success")
        items = [ui.tags.li(message) for message in result.warnings]
        return ui.div(
            *[ui.p(line) for line in lines],
            ui.strong("Notes on the noise:"),
            ui.tags.ul(*items),
            class_="alert alert-warning",
        )

    @render.ui
    async def page() -> Any:
        result = finished()
        if result is None or result.release is None:
            return ui.p("Press Run to make the private release; its page appears here.")
        score, loading = input.score_view(), input.loading_view()
        png = await _drawn(  # redrawn in the chosen displays: post-processing, no budget
            lambda: (
                result.release.plot(
                    "all",
                    score=score,
                    loading=loading,
                    random_state=0,
                    uncertainty=result.uncertainty,
                ).figure_
            )
        )
        return _image(
            png,
            "The private PCA page: scree, scores, loadings, variable plot and biplot",
            "private-page",
        )

    @render.ui
    async def synthetic() -> Any:
        from dppca.plotting.pages import score_grid

        result = finished()
        if result is None or result.release is None:
            return ui.p("Press Run first.")
        size, sampling = input.sample_size(), input.sampling()
        if not isinstance(size, int | float) or not 10 <= size <= 100_000:
            return ui.div(
                "The sample size must be between 10 and 100,000.", class_="alert alert-warning"
            )

        png = await _drawn(  # post-processing of the released histogram: no budget
            lambda: score_grid(
                result.release,
                panels=("histogram", "sample"),
                sampling=sampling,
                n_points=int(size),
                random_state=0,
            )[0]
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

    def private_file(name: str) -> Path:
        result = finished()
        if result is None or result.folder is None:
            raise ValueError("Run the private PCA first.")
        return result.folder / name

    @render.download_button(filename="dppca-release.json")
    def download_json() -> Any:
        return str(private_file("release.json"))

    @render.download_button(filename="dppca-report.html")
    def download_report() -> Any:
        return str(private_file("report.html"))

    def figures(kind: str) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name in FIGURES:
                archive.write(private_file(f"{name}.{kind}"), f"{name}.{kind}")
        return buffer.getvalue()

    @render.download_button(filename="dppca-figures-png.zip")
    def download_png() -> Any:
        yield figures("png")

    @render.download_button(filename="dppca-figures-svg.zip")
    def download_svg() -> Any:
        yield figures("svg")

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


async def _drawn(make_figure: Callable[[], Any]) -> bytes:
    """``make_figure()`` as PNG bytes, drawn in a worker thread (one drawing at a time in the
    process), so that the server keeps serving every session while it waits."""

    def draw() -> bytes:
        with RUN_LOCK:
            return png_bytes(make_figure())

    return await asyncio.to_thread(draw)


def _data_key(table: Table) -> tuple[str, int, tuple[str, ...]]:
    """What identifies the data a run was made from, within a session."""
    return table.source, table.n, tuple(table.frame.columns)


def _image(png_data: bytes, alt: str, element_id: str, width: str = "100%") -> Any:
    """A PNG as an image in the page, at most ``width`` wide."""
    png = base64.b64encode(png_data).decode("ascii")
    return ui.img(
        src=f"data:image/png;base64,{png}",
        alt=alt,
        style=f"max-width: min(100%, {width});",
        id=element_id,
    )
