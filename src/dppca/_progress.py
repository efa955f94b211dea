"""A text progress bar for long computations, shown on stderr only once they last a while."""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: Seconds a computation runs before its bar appears: short calls print nothing.
DELAY_SECONDS = 2.0
WIDTH = 24


class ProgressBar:
    """Counts finished parts of a computation and draws ``label [####....] 45 % (12 s)``.

    Nothing is written until ``delay`` seconds have passed, so quick calls stay silent; the bar
    is redrawn in place (carriage return) at most every 0.2 s on a terminal and every 10 s
    elsewhere (a log file, a notebook), and ends with a newline. The share of parts done
    depends on public sizes only; whether the bar appears, and the seconds it shows, depend on
    the running time, which the caller sees anyway.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> bar = ProgressBar(4, "Kendall matrix", enabled=True, delay=0.0, stream=stream)
    >>> for _ in range(4):
    ...     bar.advance()
    >>> bar.close()
    >>> stream.getvalue().splitlines()[-1].split("]")[0]
    'Kendall matrix [########################'
    """

    def __init__(
        self,
        total: int,
        label: str,
        *,
        enabled: bool = True,
        delay: float = DELAY_SECONDS,
        stream: TextIO | None = None,
    ) -> None:
        self.total, self.label, self.enabled, self.delay = max(total, 1), label, enabled, delay
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.start = self.last = time.monotonic()
        self.shown = False
        isatty = getattr(self.stream, "isatty", None)
        self.interval = 0.2 if isatty is not None and isatty() else 10.0

    def advance(self, parts: int = 1) -> None:
        self.done += parts
        if not self.enabled:
            return
        now = time.monotonic()
        waited = now - self.last < self.interval and self.shown
        if now - self.start < self.delay or (waited and self.done < self.total):
            return
        self.last, self.shown = now, True
        filled = WIDTH * self.done // self.total
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] "
            f"{100 * self.done // self.total:3d} % ({now - self.start:.0f} s)"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
