"""The web app: private PCA in the browser (``dppca app``; ``pip install -e ".[app]"``).

Pick an embedded data set or upload a CSV file, choose the variables, the groups, the budget and
its split (the budget preview updates before anything runs), press Run, and read the private
page, the budget spent, the notes on noise, and download the release, the figures and the
report. The non-private reference is computed only on request and shown apart, under a "NOT
PRIVATE" heading; it is never part of a download. Uploaded data stay in the server's memory:
an upload's file is deleted as soon as it is read, the session's results are dropped when it
ends, and a server started after one that was killed removes what that one left. The app
serves on 127.0.0.1 only unless told otherwise.

Built with Shiny for Python (imported only here, when the app is used).
"""

from __future__ import annotations

from typing import Any


def create_app() -> Any:
    """The Shiny application object (for ``shiny run`` or any ASGI server).

    Examples
    --------
    >>> app = create_app()  # doctest: +SKIP
    """
    from shiny import App

    from dppca.app.server import server
    from dppca.app.ui import page

    return App(page(), server)


def run_app(host: str = "127.0.0.1", port: int = 8000, launch_browser: bool = False) -> None:
    """Serve the app on ``host:port`` until interrupted.

    Examples
    --------
    >>> run_app(port=8765)  # doctest: +SKIP
    """
    from shiny._main import run_app as serve  # shiny's own entry point

    from dppca.app.handlers import sweep_stale

    sweep_stale()  # what a killed server left: stale sessions' folders and uploads
    serve(create_app(), host=host, port=port, launch_browser=launch_browser, dev_mode=False)
