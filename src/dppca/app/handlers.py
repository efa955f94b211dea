"""What the app's server does, as plain functions and one session object that tests can call one
by one without a browser: read the data and the settings, preview the plan, keep a session's
runs and their spending, and say the run's state. :mod:`dppca.app.server` wires them to Shiny's
reactive inputs and outputs.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tempfile
import threading
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from dppca.app.data import DataError, Table, embedded, upload_folder, uploaded
from dppca.app.runner import RunOutput, Settings, in_app_terms, problem
from dppca.exceptions import UnlocatableError

#: The sessions' folders, the file in each that names the server process owning it, and the
#: file that lists Shiny's upload folders of the session.
SESSION_PREFIX = "dppca-app-"
OWNER_FILE = "server.pid"
UPLOADS_FILE = "uploads.txt"


def sweep_stale(folder: Path | None = None) -> list[Path]:
    """Remove what servers that ended without cleaning up (killed) left in the temporary
    ``folder``: the session folders whose server process is gone, with the Shiny upload
    folders (``fileupload-*``) they list, only this user's; the paths removed (a live
    server's folders, and upload folders no session lists, stay).

    Examples
    --------
    >>> import tempfile
    >>> sweep_stale(Path(tempfile.mkdtemp()))
    []
    """
    folder = Path(tempfile.gettempdir()) if folder is None else folder
    removed = []
    for candidate in folder.iterdir():
        try:
            info = candidate.lstat()
        except OSError:
            continue
        if not candidate.is_dir() or candidate.is_symlink() or info.st_uid != os.getuid():
            continue
        if not candidate.name.startswith(SESSION_PREFIX) or _server_alive(candidate / OWNER_FILE):
            continue
        for upload in _listed_uploads(candidate / UPLOADS_FILE):
            shutil.rmtree(upload, ignore_errors=True)
            removed.append(upload)
        shutil.rmtree(candidate, ignore_errors=True)
        removed.append(candidate)
    return removed


def _listed_uploads(listing: Path) -> list[Path]:
    """The existing Shiny upload folders (``fileupload-*``, this user's) that ``listing``
    names."""
    try:
        lines = listing.read_text().splitlines()
    except OSError:
        return []
    found = []
    temporary = Path(os.path.realpath(tempfile.gettempdir()))
    for line in dict.fromkeys(lines):
        path = Path(line)
        if not path.name.startswith("fileupload-") or path.parent != temporary:
            continue  # only Shiny's folders directly in the temporary folder
        try:
            info = path.lstat()
        except OSError:  # gone meanwhile (another server swept it)
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
            found.append(path)
    return found


def _process_identity(pid: int) -> str:
    """``pid`` and its start time (Linux's ``/proc``; the pid alone elsewhere), so that a pid
    used again by another process is not taken for the server's."""
    return f"{pid} {_started(pid) or ''}".strip()


def _started(pid: int) -> str | None:
    """A process's start time in clock ticks, or None where ``/proc`` does not say (or the
    process is a zombie: killed, not yet reaped)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def _server_alive(owner: Path) -> bool:
    """Whether the process named in ``owner`` still runs: the same pid started at the same
    time (a folder without a readable owner is left alone)."""
    try:
        pid_text, *start = owner.read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return True
    if start:
        return _started(pid) == start[0]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: The data set key of the data the app was started with (:func:`dppca.app.run`).
GIVEN = "given"
#: The figures of a run, each written as PNG and SVG.
FIGURES = ("scree", "score", "loading", "variable", "biplot", "page")


def load_table(
    choice: str,
    files: Sequence[dict[str, Any]] | None,
    uploads: dict[str, Table | str] | None = None,
    given: Table | None = None,
) -> Table:
    """The data set chosen: the data the app was started with (``"given"``), an embedded one
    by name, or the first uploaded file, read once (its file is deleted as it is read) and then
    kept in the session's ``uploads``, with the problem it had.

    Raises
    ------
    DataError
        With a sentence for the page (no upload, an unreadable file).
    """
    if choice == GIVEN:
        if given is None:
            raise DataError("This server was started without data of its own; choose another.")
        return given
    if choice != "upload":
        return embedded(choice)
    if not files:
        raise DataError("Upload a CSV file, or choose an embedded data set.")
    key, name = files[0]["datapath"], files[0]["name"]
    if upload_folder(key) is None:  # the browser sends the path: only Shiny's own is read
        raise DataError(f"{name} is not a file this server received; upload it again.")
    known = None if uploads is None else uploads.get(key)
    if isinstance(known, str):
        raise DataError(known)
    if known is not None:
        return known
    try:
        table = uploaded(key, name)
    except FileNotFoundError:
        raise DataError(f"{name} is no longer on the server; upload it again.") from None
    except DataError as error:
        if uploads is not None:
            uploads[key] = str(error)
        raise
    if uploads is not None:
        uploads[key] = table
    return table


def read_settings(value: Callable[[str], Any]) -> Settings:
    """The user's choices, read input by input (``value(name)`` gives an input's value)."""
    scree = checked_methods(value("scree"))
    control: dict[str, Any] = {}
    if "pmwm" in scree:
        control = {
            "a": value("pmwm_a"),
            "b": value("pmwm_b"),
            "trim_const": value("pmwm_trim"),
            "eta": value("pmwm_eta"),
        }
    if "huber" in scree:
        control["m2_frac"] = value("huber_m2")
    return Settings(
        variables=list(value("variables") or []),
        group=value("group") or None,
        scale=value("scale"),
        epsilon=value("epsilon"),
        delta=value("delta"),
        handles=tuple(value("split")),
        k=value("k"),
        bins=value("bins") or 0,
        scree=scree,
        scree_control=control,
        score=checked_methods(value("score")),
        score_axes=value("score_axes"),
        statistic=value("statistic"),
        seed_text=(value("seed") or "").strip(),
        non_private=value("non_private"),
    )


def checked_methods(chosen: Any) -> str | tuple[str, ...]:
    """A method input's value: one method as its name, several (or none) as a tuple."""
    methods = (chosen,) if isinstance(chosen, str) else tuple(chosen or ())
    return methods[0] if len(methods) == 1 else methods


def plan_preview(table: Table, chosen: Settings) -> tuple[pd.DataFrame | None, str | None]:
    """The budget each release would get (formatted) and what keeps the run from being made
    (None when nothing does), from public values only: nothing is computed on the data.

    Examples
    --------
    >>> from dppca.app.data import embedded
    >>> table = embedded("gau_g")
    >>> chosen = Settings(variables=table.variables, group=None, scale="none", epsilon=4.0,
    ...                   delta=1e-6, handles=(33, 67), k=3, bins=0, scree="clipped")
    >>> budget, refused = plan_preview(table, chosen)
    >>> budget["release"].iloc[-1], refused
    ('total, as composed (tight)', None)
    """
    from dppca.planning import plan_pca

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


def data_key(table: Table) -> tuple[str, int, tuple[str, ...]]:
    """What identifies the data a run was made from, within a session."""
    return table.source, table.n, tuple(table.frame.columns)


DataKey = tuple[str, int, tuple[str, ...]]


@dataclass
class SharedSpending:
    """What the releases from the data the app was started with spent, in every browser
    session of the server: the same rows reached from several sessions add up.

    Examples
    --------
    >>> shared = SharedSpending(("your data", 10, ("a",)))
    >>> shared.add((1.0, 1e-6)); shared.add((0.5, 0.0)); shared.spent()
    [(1.0, 1e-06), (0.5, 0.0)]
    """

    data: DataKey
    _spent: list[tuple[float, float]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, budget: tuple[float, float]) -> None:
        """Count one release's (epsilon, delta) (from any session's worker thread)."""
        with self._lock:
            self._spent.append(budget)

    def spent(self) -> list[tuple[float, float]]:
        """Every release's (epsilon, delta) so far."""
        with self._lock:
            return list(self._spent)


@dataclass
class SessionRuns:
    """One browser session's runs: its private folder of downloads (removed when the session
    ends), the stage of the run in progress, and what each data set's releases spent (the
    data the app was started with: in every session, ``shared``).

    Examples
    --------
    >>> runs = SessionRuns.open()
    >>> runs.folder.exists(), runs.count
    (True, 0)
    >>> runs.end()
    >>> runs.folder.exists()
    False
    """

    folder: Path
    count: int = 0
    stage: str = ""
    ended: bool = False
    data: tuple[str, int, tuple[str, ...]] | None = None
    spent: dict[tuple[str, int, tuple[str, ...]], list[tuple[float, float]]] = field(
        default_factory=dict
    )
    shared: SharedSpending | None = None

    #: The session's uploads (each read once, its file deleted), or the problem each had.
    uploads: dict[str, Table | str] = field(default_factory=dict)

    @classmethod
    def open(cls, shared: SharedSpending | None = None) -> SessionRuns:
        """A new session with its own folder, readable by this user only, marked with the
        server's process id (:func:`sweep_stale` removes the folders of servers gone);
        ``shared``: the server's count of the releases from the data it was started with."""
        folder = Path(tempfile.mkdtemp(prefix=SESSION_PREFIX))
        (folder / OWNER_FILE).write_text(_process_identity(os.getpid()))
        return cls(folder, shared=shared)

    def remember_upload(self, datapath: str | Path) -> None:
        """Note Shiny's upload folder of ``datapath`` (a file, or the session's folder itself),
        so that a server started after this one was killed removes it (:func:`sweep_stale`);
        anything not of Shiny's shape is ignored."""
        path = Path(datapath)
        folder = upload_folder(path)
        if path.name.startswith("fileupload-"):  # the session's own folder
            temporary = Path(os.path.realpath(tempfile.gettempdir()))
            exact = path.is_absolute() and Path(os.path.realpath(path)) == path
            folder = path if exact and path.parent == temporary else None
        if folder is None:
            return
        with contextlib.suppress(OSError), (self.folder / UPLOADS_FILE).open("a") as out:
            out.write(f"{folder}\n")

    def end(self) -> None:
        """The session ended: remove its folder and everything in it, and forget its data."""
        self.ended = True
        self.uploads.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, table: Table) -> Path:
        """Count a new run on ``table``; the new folder it writes into."""
        self.count += 1
        self.data = data_key(table)
        return self.folder / f"run{self.count}"

    def heard(self, stage: str) -> None:
        """The run's stage, from the worker thread (read by the status poll)."""
        self.stage = stage

    def after_run(self) -> None:
        """A run finished: if the session ended meanwhile, leave nothing behind."""
        if self.ended:
            shutil.rmtree(self.folder, ignore_errors=True)

    def tally(self, outcome: RunOutput) -> None:
        """Count what a run released against its data: a stopped run's spending too."""
        total = outcome.spent
        if outcome.release is not None and not outcome.error:
            total = outcome.release.privacy.total
        if total is None or self.data is None:
            return
        if self.shared is not None and self.data == self.shared.data:
            self.shared.add((total.epsilon, total.delta))
        else:
            self.spent.setdefault(self.data, []).append((total.epsilon, total.delta))

    def current(self, table: Table | None, outcome: RunOutput | None) -> RunOutput | None:
        """The last run's outcome, while the data it was made from are still the chosen ones."""
        if outcome is None or table is None or self.data != data_key(table):
            return None
        return outcome

    def summary(self, table: Table) -> list[str]:
        """The status lines of a finished run on ``table``: where it came from, and what the
        session's releases from these data add up to when there are several."""
        key = data_key(table)
        shared = self.shared is not None and key == self.shared.data
        spent = (
            self.shared.spent() if self.shared is not None and shared else self.spent.get(key, [])
        )
        lines = [f"Made from {table.source}: n = {table.n:,} rows. Every panel below is private."]
        if len(spent) > 1:
            epsilon, delta = (sum(values) for values in zip(*spent, strict=True))
            who = "This app has made" if shared else "This session has made"
            where = " (in every browser session)" if shared else ""
            lines.append(
                f"{who} {len(spent)} releases from these data{where}; their guarantees "
                f"add up to epsilon = {epsilon:.3g}, delta = {delta:.3g} (basic composition). "
                "Publish one release, not several."
            )
        return lines


def private_file(outcome: RunOutput | None, name: str) -> Path:
    """A file of the last run's private release (never the non-private reference)."""
    if outcome is None or outcome.folder is None:
        raise ValueError("Run the private PCA first.")
    return outcome.folder / name


def figures_zip(outcome: RunOutput | None, kind: str) -> bytes:
    """Every private figure of the last run, in format ``kind``, as one zip archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in FIGURES:
            archive.write(private_file(outcome, f"{name}.{kind}"), f"{name}.{kind}")
    return buffer.getvalue()


def sample_size_problem(size: Any) -> str | None:
    """What is wrong with the synthetic points' sample size (None: nothing)."""
    if not isinstance(size, int | float) or not 10 <= size <= 100_000:
        return "The sample size must be between 10 and 100,000."
    return None
