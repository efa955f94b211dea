"""Where a warning points: the user's line, however deep the package's own calls go."""

from __future__ import annotations

import sys
from pathlib import Path

#: The package's folder: frames of files under it are the package's own.
_PACKAGE = str(Path(__file__).parent)


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn`, called from the function that warns, at
    which the warning points to the first frame outside this package (the caller's line).

    Examples
    --------
    >>> user_stacklevel()  # called from outside the package: its own caller
    1
    """
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
