"""The web app's logic without a browser: data roles, settings checks, and what a run writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("shiny")

from dppca.app.data import DataError, default_delta, describe, split_shares, uploaded
from dppca.app.runner import Settings, problem, run


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 3)) * [3.0, 2.0, 1.0], columns=["a", "b", "c"])
    frame["site"] = rng.choice(["north", "south"], size=n)
    frame["name"] = [f"person{i}" for i in range(n)]
    return describe(frame, "test data", None)


def _settings(**changes):
    chosen = {
        "variables": ["a", "b", "c"],
        "group": "site",
        "scale": "none",
        "epsilon": 4.0,
        "delta": 1e-6,
        "handles": (33, 67),
        "k": 3,
        "bins": 0,
        "scree": "clipped",
    }
    return Settings(**{**chosen, **changes})


def test_identifiers_are_never_offered_as_group_labels():
    table = _table()
    assert table.group_candidates == ["site"]  # "name" has 600 values: it would be published
    assert table.numeric == ["a", "b", "c"]


def test_default_delta_and_split_follow_their_rules():
    assert [default_delta(n) for n in (10, 2504, 10**6)] == [1e-2, 1e-7, 1e-12]
    shares = split_shares((70, 20))  # handles in either order
    assert shares == {"loading": 0.2, "scree": 0.5, "score": 0.3}
    assert sum(shares.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"variables": ["a"]}, "Choose at least two variables."),
        ({"group": "a"}, "The group column 'a' cannot also be a variable."),
        ({"k": None}, "Enter a number for k."),
        ({"epsilon": None, "delta": float("nan")}, "Enter a number for epsilon, delta."),
        ({"seed_text": "²"}, "The seed must be a whole number of at most 18 digits, or empty."),
        ({"seed_text": "-5"}, "The seed must be a whole number of at most 18 digits, or empty."),
        (
            {"scree": "pmwm", "scree_control": {"a": 0.0, "b": None}},
            "Enter a number for the scree's b.",
        ),
    ],
)
def test_settings_that_cannot_run_are_named_before_anything_runs(changes, message):
    assert problem(_table(), _settings(**changes)) == message


def test_missing_values_are_named_by_the_preview_and_the_run(tmp_path):
    table = _table()
    table.frame.loc[5, "b"] = np.nan
    expected = "Variable(s) b have missing or infinite values; leave them out or impute them first."
    assert problem(table, _settings()) == expected
    assert run(table, _settings(), tmp_path / "run1").error == expected
    assert not (tmp_path / "run1").exists()


def test_a_run_writes_only_private_files_into_its_own_new_folder(tmp_path):
    outcome = run(_table(), _settings(non_private=True, seed_text="3"), tmp_path / "run1")
    assert outcome.error is None and outcome.reference_png[:4] == b"\x89PNG"
    written = sorted(path.name for path in (tmp_path / "run1").rglob("*"))
    assert "reference.json" not in written and "reference" not in written
    assert {"release.json", "report.html", "page.png", "scree.svg"} <= set(written)
    labels = [m for m in outcome.warnings if m.startswith("groups without group_levels")]
    assert len(labels) == 1 and labels[0].endswith(
        "from Python or the command line, not in the app)."
    )


def test_an_unreliable_private_scale_stops_the_run_with_advice_the_app_can_follow(tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(20000, 2)) * [1.0, 100.0], columns=["a", "b"])
    frame["c"], frame["site"] = 0.0, rng.choice(["north", "south"], size=20000)
    table = describe(frame, "tied", None)
    outcome = run(table, _settings(scale="private", bins=20), tmp_path / "run1")
    assert outcome.error.startswith("dp_pca stopped after the private scales: the scale of c")
    assert outcome.error.endswith("Give more epsilon, or choose no scaling.")
    assert "on_weak" not in outcome.error and not (tmp_path / "run1").exists()
    assert 0 < outcome.spent.epsilon < 4.0  # the scales' part, for the session's tally


def test_nothing_is_written_once_the_session_folder_is_gone(tmp_path):
    outcome = run(_table(), _settings(), tmp_path / "ended" / "run1")
    assert outcome.error == "The session ended."
    assert not (tmp_path / "ended").exists()


def test_uploads_with_semicolons_and_decimal_commas_are_read(tmp_path):
    path = tmp_path / "komma.csv"
    path.write_text("gewicht;größe\n" + "\n".join(f"{i},5;{i % 7},25" for i in range(40)))
    table = uploaded(path, "komma.csv")
    assert table.numeric == ["gewicht", "größe"]
    assert table.frame["gewicht"].iloc[1] == 1.5
    one = tmp_path / "weight.csv"
    one.write_text("weight\n1\n2\n")
    with pytest.raises(DataError, match="it has 1: weight"):  # not read as separated by "w"
        uploaded(one, "weight.csv")


def test_a_refusal_names_only_what_the_app_can_do():
    """The preview's refusal gives the smallest epsilon and n, and public alternatives as the
    app can follow them (no scale= or frame= it has no field for, no on_weak)."""
    from dppca import UnlocatableError
    from dppca.app.runner import in_app_terms
    from dppca.planning import plan_pca

    with pytest.raises(UnlocatableError) as caught:
        plan_pca((150, 4), 1.0, 1e-6, scale="private").enforce("refuse", "This run")
    message = in_app_terms(str(caught.value))
    assert message.startswith("This run cannot locate at n=150, epsilon=1: scale")
    assert "or choose no scaling" in message and "not in the app" in message
    for code in ("scale=[", "frame=(", "C_clip", "on_weak", "Nothing was spent"):
        assert code not in message
    assert message.endswith("Run is refused until the budget or the rows suffice.")


def test_the_settings_are_read_input_by_input():
    from dppca.app.handlers import read_settings

    values = {
        "variables": ("a", "b"),
        "group": "",
        "scale": "none",
        "epsilon": 2.0,
        "delta": 1e-6,
        "split": (30, 60),
        "k": 2,
        "bins": None,
        "scree": "pmwm",
        "pmwm_a": 0.0,
        "pmwm_b": 9.0,
        "pmwm_trim": 5,
        "pmwm_eta": 0.05,
        "score": "sparse",
        "statistic": "sscm",
        "seed": " 12 ",
        "score_axes": "1,2",
        "non_private": False,
    }
    chosen = read_settings(values.__getitem__)
    assert chosen.variables == ["a", "b"] and chosen.group is None and chosen.bins == 0
    assert chosen.scree_control == {"a": 0.0, "b": 9.0, "trim_const": 5, "eta": 0.05}
    assert chosen.seed == 12 and chosen.handles == (30, 60) and chosen.statistic == "sscm"
    assert chosen.scree == "pmwm" and chosen.score == "sparse"  # one method: its name


def test_several_methods_checked_share_their_parts_in_the_preview():
    from dppca.app.data import embedded
    from dppca.app.handlers import plan_preview, read_settings

    table = embedded("gau_g")
    values = {
        "variables": tuple(table.variables),
        "group": "",
        "scale": "none",
        "epsilon": 8.0,
        "delta": 1e-6,
        "split": (33, 67),
        "k": 3,
        "bins": 0,
        "scree": ("clipped", "pmwm"),  # a checkbox group's value
        "pmwm_a": 0.0,
        "pmwm_b": 60.0,
        "pmwm_trim": 10,
        "pmwm_eta": 0.01,
        "huber_m2": 0.25,
        "score": ("thresholded", "sparse"),
        "statistic": "kendall",
        "seed": "",
        "score_axes": "1,2",
        "non_private": False,
    }
    chosen = read_settings(values.__getitem__)
    assert chosen.scree == ("clipped", "pmwm") and chosen.score == ("thresholded", "sparse")
    control = chosen.options()["scree"].control
    assert control == {"clipped": {}, "pmwm": {"a": 0.0, "b": 60.0, "trim_const": 10, "eta": 0.01}}
    budget, refused = plan_preview(table, chosen)
    assert refused is None
    rows = dict(zip(budget["release"], budget["epsilon"].astype(float), strict=True))
    clipped = rows["variances along the directions (clipped)"]
    assert clipped == rows["variances along the directions (pmwm)"]
    first = rows["score plot: histogram (thresholded)"]
    assert first == rows["score plot: histogram (sparse)"]
    for name in ("scree", "score"):
        nothing = read_settings({**values, name: ()}.__getitem__)
        assert plan_preview(table, nothing)[1].startswith("Check at least one")


def test_the_score_plot_components_are_a_release_setting():
    from dppca.app.data import embedded
    from dppca.app.handlers import plan_preview

    table = embedded("gau_g")
    common = dict(
        variables=table.variables,
        group=None,
        scale="none",
        epsilon=4.0,
        delta=1e-6,
        handles=(33, 67),
        bins=0,
        scree="clipped",
    )
    chosen = Settings(**common, k=4, score_axes="2,4")
    assert chosen.options()["score"].axes == (2, 4)
    assert plan_preview(table, chosen)[1] is None
    beyond = Settings(**common, k=3, score_axes="2,4")
    refused = plan_preview(table, beyond)[1]
    assert refused.startswith("the score plot's components must be PC") and "k=3" in refused


def test_the_data_choice_and_the_preview_say_what_is_wrong_in_a_sentence():
    from dppca.app.handlers import load_table, plan_preview

    with pytest.raises(DataError, match="Upload a CSV file"):
        load_table("upload", [])
    with pytest.raises(DataError, match="unknown data set"):
        load_table("census", None)
    table = _table()
    budget, refused = plan_preview(table, _settings())
    assert refused is None and budget["release"].iloc[-1] == "total, as composed (tight)"
    assert budget["epsilon"].iloc[-1] == "4"
    assert plan_preview(table, _settings(variables=["a"])) == (
        None,
        "Choose at least two variables.",
    )
    budget, refused = plan_preview(table, _settings(epsilon=0.05))
    assert budget is not None and refused.endswith("until the budget or the rows suffice.")
    assert plan_preview(table, _settings(bins=100_000))[1].startswith("bins must give at most")


def test_the_given_datas_releases_add_up_over_every_session(tmp_path):
    """Data given to ``dppca.app.run`` are reachable from every browser session: each
    session's releases from them count in one tally the status line reads in every session;
    another data set stays the session's own."""
    from dppca import Budget
    from dppca.app.handlers import SessionRuns, SharedSpending, data_key
    from dppca.app.runner import RunOutput

    given, other = _table(), _table(n=700)
    shared = SharedSpending(data_key(given))
    first = SessionRuns(tmp_path / "first", shared=shared)
    second = SessionRuns(tmp_path / "second", shared=shared)
    for runs in (first, second):
        runs.start(given)
        runs.tally(RunOutput(error="stopped", spent=Budget(1.5, 1e-7)))
    assert first.summary(given) == second.summary(given)
    line = second.summary(given)[1]
    assert line.startswith("This app has made 2 releases from these data (in every browser")
    assert "epsilon = 3," in line and "delta = 2e-07" in line
    second.start(other)
    second.tally(RunOutput(error="stopped", spent=Budget(0.5, 0.0)))
    assert len(shared.spent()) == 2 and len(second.summary(other)) == 1  # one release: no sum
    assert first.spent == {} and second.spent == {data_key(other): [(0.5, 0.0)]}


def test_a_session_counts_its_runs_and_what_each_data_set_spent(tmp_path):
    from dppca import Budget
    from dppca.app.handlers import SessionRuns, figures_zip, private_file
    from dppca.app.runner import RunOutput

    runs = SessionRuns(tmp_path / "session")
    runs.folder.mkdir()
    table, other = _table(), _table(n=700)
    assert runs.start(table) == tmp_path / "session" / "run1"
    runs.tally(RunOutput(error="stopped", spent=Budget(0.5, 1e-7)))
    runs.start(table)
    outcome = run(table, _settings(seed_text="1"), runs.folder / "run2")
    runs.tally(outcome)
    lines = runs.summary(table)
    assert "2 releases from these data" in lines[1] and "epsilon = 4.5" in lines[1]
    assert runs.current(table, outcome) is outcome and runs.current(other, outcome) is None
    assert private_file(outcome, "release.json").exists()
    assert figures_zip(outcome, "png")[:2] == b"PK"
    with pytest.raises(ValueError, match="Run the private PCA first"):
        figures_zip(None, "svg")
    runs.end()
    assert not runs.folder.exists()
    runs.after_run()  # a run that finishes after the end leaves nothing behind
    assert not runs.folder.exists()


def test_the_page_says_what_its_links_and_labels_publish():
    """The downloads say their links are open to whoever has them while the session lives;
    the group column says its labels are published."""
    from dppca.app.ui import page

    html = str(page())
    assert "works for anyone who has it while this session lives" in html
    assert "labels are published with the results" in html


def test_an_upload_is_read_into_memory_and_its_file_deleted_at_once(tmp_path, monkeypatch):
    """Shiny writes an upload to <temporary folder>/fileupload-*/<operation>/0.csv: the app reads
    it whole and deletes it (and the emptied operation folder) at once, keeping the table in
    the session. The path comes from the browser: any other path (a user's file, a ``..``
    through an upload folder) is refused and never read or deleted."""
    import tempfile

    from dppca.app.handlers import load_table

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    operation = tmp_path / "fileupload-abc" / "tmp123"
    operation.mkdir(parents=True)
    upload = operation / "0.csv"
    _table().frame.drop(columns="name").to_csv(upload, index=False)
    uploads: dict = {}
    files = [{"datapath": str(upload), "name": "mine.csv"}]
    table = load_table("upload", files, uploads)
    assert not upload.exists() and not operation.exists()
    assert (tmp_path / "fileupload-abc").exists()  # Shiny's own, removed when the session ends
    assert load_table("upload", files, uploads) is table  # kept in memory, not read again
    secret = tmp_path / "secret"
    secret.mkdir()
    own = secret / "data.csv"
    _table().frame.drop(columns="name").to_csv(own, index=False)
    for sent in (own, tmp_path / "fileupload-abc" / ".." / "secret" / "data.csv"):
        with pytest.raises(DataError, match="is not a file this server received"):
            load_table("upload", [{"datapath": str(sent), "name": "data.csv"}], {})
    assert own.exists() and secret.exists()
    with pytest.raises(DataError, match="no longer on the server; upload it again"):
        load_table("upload", files)  # without the session's copy


def test_a_server_that_was_killed_leaves_nothing_for_the_next_to_keep(tmp_path, monkeypatch):
    """At start-up: the session folders of a server process that is gone (or whose pid now
    belongs to another process), with the Shiny upload folders they list, are removed; a live
    server's, unlisted upload folders and folders a listing names outside the temporary folder
    stay."""
    import os
    import subprocess
    import sys
    import tempfile

    from dppca.app.handlers import OWNER_FILE, UPLOADS_FILE, SessionRuns, sweep_stale

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = tmp_path / "dppca-app-dead"
    dead.mkdir()
    (dead / OWNER_FILE).write_text(gone.stdout.strip())
    (dead / "run1").mkdir()
    its_upload = tmp_path / "fileupload-dead"
    (its_upload / "tmp1").mkdir(parents=True)
    (its_upload / "tmp1" / "0.csv").write_text("a,b\n1,2\n")  # killed before it was read
    SessionRuns(dead).remember_upload(its_upload / "tmp1" / "0.csv")
    elsewhere = tmp_path / "keep" / "fileupload-keep"
    elsewhere.mkdir(parents=True)
    with (dead / UPLOADS_FILE).open("a") as listing:  # a crafted line: not the temporary folder
        listing.write(f"{elsewhere}\n")
    reused = tmp_path / "dppca-app-reused"
    reused.mkdir()
    (reused / OWNER_FILE).write_text(f"{os.getpid()} 1")  # this pid, another start time
    live = SessionRuns.open()
    anothers = tmp_path / "fileupload-live"
    anothers.mkdir()
    removed = sweep_stale(tmp_path)
    names = ["dppca-app-dead", "dppca-app-reused", "fileupload-dead"]
    assert sorted(path.name for path in removed) == names
    assert live.folder.exists() and anothers.exists() and elsewhere.exists()
    live.end()


def test_a_run_keeps_the_reports_panels_and_draws_only_views_not_drawn_before(
    tmp_path, monkeypatch
):
    import dppca.plotting.pages as pages
    from dppca.app.panels import PANELS

    outcome = run(_table(), _settings(seed_text="3"), tmp_path / "run1")
    panels = outcome.panels
    for name in PANELS:  # the report's own drawings, before anything is asked
        assert panels.cached(name) == (outcome.folder / f"{name}.png").read_bytes()
    drawn = []
    original = pages.page_panels
    monkeypatch.setattr(
        pages, "page_panels", lambda *a, **k: drawn.append(k["panels"]) or original(*a, **k)
    )
    assert panels.png("loading", loading="point", axes=None, scree="scree") == panels.cached(
        "loading"
    )  # a view it does not read changes nothing
    heatmap = panels.png("loading", loading="heatmap")
    plane = panels.png("loading", loading="point", axes=(1, 3))
    assert len({heatmap, plane, panels.cached("loading")}) == 3 and heatmap[:4] == b"\x89PNG"
    assert panels.png("loading", loading="heatmap") == heatmap
    assert drawn == [["loading"], ["loading"]]  # each new view drawn once, nothing else


def test_a_plane_beyond_the_screes_components_is_drawn_without_their_intervals(tmp_path):
    outcome = run(_table(), _settings(k=2, seed_text="4"), tmp_path / "run1")
    assert outcome.panels.png("loading", axes=(1, 3))[:4] == b"\x89PNG"  # PC3 has no interval


def test_data_from_python_keep_their_names_and_groups_and_are_not_changed():
    from dppca.app.data import provided
    from dppca.app.handlers import GIVEN, load_table

    frame = _table().frame[["a", "b", "c", "site"]]
    before = frame.copy()
    by_name = provided(frame, groups="site", name="my study")
    assert (by_name.variables, by_name.group, by_name.source) == (
        ["a", "b", "c"],
        "site",
        "my study",
    )
    pd.testing.assert_frame_equal(frame, before)
    labels = frame["site"].to_numpy()
    by_labels = provided(frame[["a", "b"]].to_numpy(), groups=labels)
    assert by_labels.variables == ["X1", "X2"] and by_labels.group == "group"
    assert list(by_labels.frame["group"]) == list(labels)
    with pytest.raises(ValueError, match=r"one label per row of X \(600\); got shape \(3,\)"):
        provided(frame[["a", "b"]], groups=["x", "y", "z"])
    with pytest.raises(ValueError, match="a table or a 2-D array; got shape"):
        provided(np.zeros(4))
    declared = pd.Categorical(labels, categories=["north", "south", "west"])
    kept = provided(frame.assign(group=1.0), groups=declared)  # "group" is taken: group_1
    assert kept.group == "group_1" and "group" in kept.variables
    assert list(kept.frame["group_1"].cat.categories) == ["north", "south", "west"]
    with pytest.raises(ValueError, match="groups has 600 distinct labels; the app shows at most"):
        provided(frame[["a", "b"]], groups=np.arange(600))
    assert load_table(GIVEN, None, None, by_name) is by_name
    with pytest.raises(DataError, match="started without data of its own"):
        load_table(GIVEN, None, None, None)


def test_a_scree_control_of_no_checked_method_is_refused_not_dropped():
    chosen = _settings(scree=("clipped", "huber"), scree_control={"m2_frac": 0.3, "eta": 0.01})
    with pytest.raises(ValueError, match=r"scree control \['eta'\] belongs to none of the checked"):
        chosen.options()
