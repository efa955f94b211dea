"""The web app: private PCA in the browser (``dppca app``; ``pip install -e ".[app]"``).

Pick an embedded data set or upload a CSV file, choose the variables, the groups, the budget and
its split (the budget preview updates before anything runs), press Run, and read the private
page, the budget spent, the notes on noise, and download the release, the figures and the
report. The non-private reference is computed only on request and shown apart, under a "NOT
PRIVATE" heading; it is never part of a download. Uploaded data stay in the server's memory:
an upload's file is deleted as soon as it is read, the session's results are dropped when it
ends, and a server started after one that was killed removes what that one left. The app
serves on 127.0.0.1 only unless told otherwise.

From Python, ``dppca.app.run(X, groups=...)`` opens it on your own data. Built with Shiny for
Python (imported only here, when the app is used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dppca.app.data import Table


def create_app(given: Table | None = None) -> Any:
    """The Shiny application object (for ``shiny run`` or any ASGI server); ``given``: data
    offered first (:func:`dppca.app.data.provided`).

    Examples
    --------
    >>> app = create_app()  # doctest: +SKIP
    """
    from shiny import App

    from dppca.app.handlers import SharedSpending, data_key
    from dppca.app.server import server
    from dppca.app.ui import page

    shared = None if given is None else SharedSpending(data_key(given))

    def session(input: Any, output: Any, session: Any) -> None:
        server(input, output, session, given, shared)

    return App(page(None if given is None else given.source), session)


def run_app(
    host: str = "127.0.0.1",
    port: int = 8000,
    launch_browser: bool = False,
    given: Table | None = None,
) -> None:
    """Serve the app on ``host:port`` until interrupted (``given``: data offered first).

    Examples
    --------
    >>> run_app(port=8765)  # doctest: +SKIP
    """
    from shiny._main import run_app as serve  # shiny's own entry point

    from dppca.app.handlers import sweep_stale

    sweep_stale()  # what a killed server left: stale sessions' folders and uploads
    serve(create_app(given), host=host, port=port, launch_browser=launch_browser, dev_mode=False)


def run(
    X: Any,
    groups: Any = None,
    *,
    name: str = "your data",
    host: str = "127.0.0.1",
    port: int = 8000,
    launch_browser: bool = True,
) -> None:
    """Open the app on data from Python: ``X`` (any table or 2-D array, its column names kept)
    is offered first and chosen, with ``groups`` (a column of ``X`` or one label per row, a
    categorical's categories kept as the declared levels) as its group column. The data stay
    in the server's memory; nothing is released until Run. Every browser session that reaches
    the server may run releases on ``X``, and the status line adds up the releases from ``X``
    of every session: keep the default host, which serves this machine only.

    Examples
    --------
    >>> import dppca.app
    >>> from dppca.datasets import load_gau_g
    >>> X, groups = load_gau_g()
    >>> dppca.app.run(X, groups=groups)  # doctest: +SKIP
    """
    from dppca.app.data import provided

    run_app(host, port, launch_browser, given=provided(X, groups, name))
