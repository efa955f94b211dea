"""The web app in a real browser: Playwright drives Debian's Chromium against the app served
on loopback. Screenshots of each state go to ``test-artifacts/app/``."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("shiny")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "app"
#: Seconds a private run may take in the browser tests (a few on this machine).
RUN_TIMEOUT_MS = 180_000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(log: Path, environment: dict[str, str] | None = None, code: str | None = None):
    """``dppca app`` (or Python ``code`` serving it on the port in ``{port}``) in its own
    process on a free loopback port: the process and its URL, once it answers."""
    port = _free_port()
    command = [sys.executable, "-m", "dppca", "app", "--port", str(port)]
    if code is not None:
        command = [sys.executable, "-c", code.format(port=port)]
    with log.open("w") as sink:
        server = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    url = f"http://127.0.0.1:{port}/"
    for _ in range(120):
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return server, url
        except OSError:
            time.sleep(0.5)
    server.kill()
    server.wait(timeout=30)
    pytest.fail(f"the app did not start: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """``dppca app`` in its own process on a free loopback port, stopped after the module."""
    server, url = _serve(tmp_path_factory.mktemp("app") / "server.log")
    yield url
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (.ci/run installs it)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    opened = context.new_page()
    opened.goto(app_url)
    _ready(opened)
    yield opened
    context.close()


def _ready(page) -> None:
    """The embedded data are loaded and the budget preview is drawn."""
    page.locator("#preview table").wait_for(timeout=60_000)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _preview(page) -> dict[str, tuple[float, float]]:
    rows = page.locator("#preview table tbody tr")
    table = {}
    for index in range(rows.count()):
        cells = rows.nth(index).locator("td").all_inner_texts()
        table[cells[0]] = (float(cells[1]), float(cells[2]))
    return table


def _source(page, panel: str) -> str:
    return page.locator(f"#panel-{panel}").get_attribute("src")


def _run(page) -> None:
    page.get_by_role("button", name="Run private PCA").click()
    page.locator("#status .alert-success, #status .alert-warning, #status .alert-danger").wait_for(
        timeout=RUN_TIMEOUT_MS
    )


def test_the_page_loads_with_the_budget_preview(page):
    assert page.title() == "dppca"
    preview = _preview(page)
    assert preview["total, as composed (tight)"] == (4.0, 1e-07)  # n = 2504: delta 1e-7
    assert "Default for n = 2,504 rows" in page.locator("#delta_rule").inner_text()
    _shot(page, "1-loaded")


def test_a_run_on_embedded_data_draws_every_panel(page):
    page.get_by_role("button", name="Run private PCA").click()
    sync_api.expect(page.locator("#status")).to_contain_text("Computing:", timeout=10_000)
    page.get_by_label("Components in the scree (k)").fill("5")  # the page stays responsive
    _shot(page, "2a-computing")
    page.locator("#status .alert-success, #status .alert-warning").wait_for(timeout=RUN_TIMEOUT_MS)
    assert page.locator("#status .alert-danger").count() == 0
    for panel in ("scree", "score", "loading", "variable", "biplot"):  # the report's drawings
        image = page.locator(f"#panel-{panel}")
        image.wait_for()
        assert image.evaluate("element => element.naturalWidth") > 500
    _shot(page, "2-run")
    page.get_by_role("tab", name="Budget and importance").click()
    budget = page.locator("#budget table").inner_text()
    for part in ("Loading", "Scree", "Score frame", "Score histogram"):
        assert part in budget
    assert "Proportion of variance" in page.locator("#importance table").inner_text()
    _shot(page, "3-budget")
    page.get_by_role("tab", name="Synthetic scores").click()
    page.locator("#synthetic-page").wait_for(timeout=30_000)
    _shot(page, "3b-synthetic")
    page.get_by_role("tab", name="Private results").click()
    before = {name: _source(page, name) for name in ("scree", "loading")}
    page.locator("#loading_view").select_option("heatmap")  # redrawn, no budget spent
    page.wait_for_function(
        "before => document.querySelector('#panel-loading').src !== before",
        arg=before["loading"],
        timeout=30_000,
    )
    assert _source(page, "scree") == before["scree"]  # only the changed panel is drawn again
    heatmap = _source(page, "loading")
    page.locator("#loading_view").select_option("point")
    variable = _source(page, "variable")
    page.locator("#plane").select_option("1,3")  # another plane: PC1 and PC3, both panels
    for panel, before_change in (("loading", heatmap), ("variable", variable)):
        page.wait_for_function(
            "([panel, before]) => document.querySelector('#panel-' + panel).src !== before",
            arg=[panel, before_change],
            timeout=30_000,
        )
    page.locator("#scree_view").select_option("scree")
    page.wait_for_function(
        "before => document.querySelector('#panel-scree').src !== before",
        arg=before["scree"],
        timeout=30_000,
    )
    _shot(page, "4-heatmap")


def test_moving_the_split_keeps_the_sum_and_the_total(page):
    before = _preview(page)
    handle = page.locator(".irs-handle.from").first
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 60, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "previous => !document.querySelector('#split_text').innerText.includes(previous)",
        arg="loading 33 %",
        timeout=10_000,
    )
    shares = page.locator("#split_text").inner_text()
    numbers = [int(part.split()[-2]) for part in shares.split("(")[0].split("·")]
    assert sum(numbers) == 100 and numbers[0] > 33
    page.wait_for_timeout(1500)  # the preview follows
    after = _preview(page)
    assert after["total, as composed (tight)"] == (4.0, 1e-07)
    assert after["directions (Kendall matrix)"][0] > before["directions (Kendall matrix)"][0]
    _shot(page, "5-split")


def test_the_directions_can_come_from_the_sscm(page):
    page.locator("#statistic").select_option("sscm")
    page.wait_for_function(
        "() => document.querySelector('#preview').innerText.includes('directions (SSCM)')",
        timeout=10_000,
    )
    _run(page)
    assert page.locator("#status .alert-danger").count() == 0
    page.locator("#panel-biplot").wait_for()
    _shot(page, "5b-sscm")


def test_a_bad_upload_shows_a_readable_message(page, tmp_path):
    bad = tmp_path / "one-column.csv"
    bad.write_text("weight\n1\n2\n3\n")
    page.locator("#dataset").select_option("upload")
    page.locator("#upload").set_input_files(str(bad))
    note = page.locator("#preview_note .alert")
    sync_api.expect(note).to_contain_text("needs at least two numeric columns", timeout=30_000)
    assert note.inner_text() == (
        "one-column.csv needs at least two numeric columns (variables); it has 1: weight"
    )
    assert "Traceback" not in page.content()
    assert page.locator("#variables option").count() == 0  # the previous data's columns are gone
    _shot(page, "6-bad-upload")


def test_a_budget_that_cannot_locate_a_release_is_said_before_run(page):
    page.locator("#epsilon").fill("0.3")
    page.locator("#epsilon").press("Tab")
    note = page.locator("#preview_note .alert")
    sync_api.expect(note).to_contain_text("This run cannot locate at n=2504", timeout=30_000)
    text = note.inner_text()
    assert "needs epsilon >= " in text and "Run is refused" in text and "on_weak" not in text
    _shot(page, "6b-refused-before-run")


def test_several_methods_are_compared_on_shared_budgets(page):
    page.get_by_label("Huber gradient descent").check()
    page.get_by_label("sparse (cells with data only)").check()
    page.wait_for_function(
        "() => document.querySelector('#preview').innerText.includes('histogram (sparse)')",
        timeout=10_000,
    )
    preview = _preview(page)
    clipped = preview["variances along the directions (clipped)"]
    assert clipped == preview["variances along the directions (huber)"]
    assert preview["total, as composed (tight)"] == (4.0, 1e-07)
    page.locator("#epsilon").fill("40")  # Huber's private scales need more at n = 2504
    page.locator("#epsilon").press("Tab")
    page.locator("#score_axes").select_option("1,3")
    _run(page)
    assert page.locator("#status .alert-danger").count() == 0
    page.get_by_role("tab", name="Downloads").click()
    with page.expect_download() as download:
        page.locator("#download_json").click()
    release = json.loads(Path(download.value.path()).read_text())
    assert release["axes"] == [1, 3] and set(release["compared"]["histograms"]) == {"sparse"}
    page.get_by_role("tab", name="Private results").click()
    compared = page.locator("#compared-histograms")
    compared.wait_for(timeout=30_000)
    assert compared.evaluate("element => element.naturalWidth") > 800
    _shot(page, "6c-compared-methods")


def test_the_json_download_holds_only_the_private_release(page):
    page.get_by_label("Also compute the NON-private reference").check()
    _run(page)
    page.get_by_role("tab", name="Non-private reference").click()
    sync_api.expect(page.locator("#reference")).to_contain_text("NOT PRIVATE", timeout=30_000)
    _shot(page, "7-reference")
    page.get_by_role("tab", name="Downloads").click()
    with page.expect_download() as download:
        page.locator("#download_json").click()
    release = json.loads(Path(download.value.path()).read_text())
    text = json.dumps(release).lower()
    assert "non_private" not in release and "not private" not in text
    epsilon, delta = release["privacy_total"]  # the composed total: at most the request
    assert epsilon == 4.0 and 0 < delta <= 1e-07
    for kind in ("png", "svg"):
        with page.expect_download() as download:
            page.locator(f"#download_{kind}").click()
        with zipfile.ZipFile(download.value.path()) as archive:
            names = sorted(archive.namelist())
        panels = ["biplot", "loading", "page", "score", "scree", "variable"]
        assert names == [f"{panel}.{kind}" for panel in panels]  # private panels only


def _upload(page, path):
    """Upload ``path`` (a CSV whose first column is ``secret_height``) and wait for its
    variables to appear."""
    page.locator("#dataset").select_option("upload")
    page.locator("#upload").set_input_files(str(path))
    page.wait_for_function(
        "() => document.querySelector('#variables').innerHTML.includes('secret_height')",
        timeout=30_000,
    )


def test_two_sessions_do_not_see_each_others_data(browser, app_url, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text("secret_height,secret_weight\n" + "\n".join(f"{i},{i % 7}" for i in range(50)))
    first = browser.new_context().new_page()
    second = browser.new_context().new_page()
    for opened in (first, second):
        opened.goto(app_url)
        _ready(opened)
    _upload(first, mine)
    second.reload()
    _ready(second)
    assert "secret_height" not in second.content()
    assert second.locator("#dataset").input_value() == "1kg-kidd"
    first.context.close()
    second.context.close()


def test_repeated_runs_are_added_up_and_results_never_outlive_their_data(page):
    _run(page)
    _run_again = page.get_by_role("button", name="Run private PCA")
    _run_again.click()
    sync_api.expect(page.locator("#status")).to_contain_text("2 releases", timeout=RUN_TIMEOUT_MS)
    assert "epsilon = 8" in page.locator("#status").inner_text()  # 4 + 4, basic composition
    _shot(page, "8-two-runs")
    page.locator("#dataset").select_option("gau_g")
    sync_api.expect(page.locator("#status")).to_contain_text("The data changed", timeout=30_000)
    assert page.locator("#panel-scree").count() == 0
    _shot(page, "9-data-changed")


def test_an_upload_never_stays_on_disk_even_when_the_server_is_killed(browser, tmp_path):
    """The upload's file is deleted as soon as it is read, while the session lives; after the
    server is killed (no clean-up), the next server removes the session folder it left."""
    import os
    import signal

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary)}
    server, url = _serve(tmp_path / "first.log", environment)
    mine = tmp_path / "mine.csv"
    mine.write_text("secret_height,secret_weight\n" + "\n".join(f"{i},{i % 7}" for i in range(60)))
    opened = browser.new_context().new_page()
    opened.goto(url)
    _ready(opened)
    _upload(opened, mine)
    assert not list(temporary.rglob("*.csv"))  # read into memory, its file gone
    sessions = list(temporary.glob("dppca-app-*"))
    assert sessions
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    opened.context.close()
    assert all(folder.exists() for folder in sessions)  # nobody cleaned up
    second, _ = _serve(tmp_path / "second.log", environment)
    try:
        assert not any(folder.exists() for folder in sessions)
        assert not list(temporary.rglob("*.csv"))
    finally:
        second.terminate()
        second.wait(timeout=30)


GIVEN_DATA = """
import numpy as np, pandas as pd, dppca.app
rng = np.random.default_rng(0)
frame = pd.DataFrame(rng.normal(size=(800, 3)) * [3, 2, 1], columns=["height", "weight", "age"])
sites = rng.choice(["north", "south"], size=800)
dppca.app.run(frame, groups=sites, name="my study", port={port}, launch_browser=False)
"""


def test_the_app_opens_on_data_passed_from_python(browser, tmp_path):
    server, url = _serve(tmp_path / "server.log", code=GIVEN_DATA)
    try:
        context = browser.new_context(viewport={"width": 1500, "height": 1100})
        page = context.new_page()
        page.goto(url)
        _ready(page)
        assert page.locator("#dataset option:checked").inner_text() == "my study"
        assert page.locator("#group option:checked").inner_text() == "group"
        _run(page)
        assert page.locator("#status .alert-danger").count() == 0
        page.locator("#panel-variable").wait_for()
        assert page.get_by_label("Components in the scree (k)").input_value() == "3"  # p = 3
        _shot(page, "10-from-python")
        context.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
