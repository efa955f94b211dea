"""After a build: the API reference links to each project of ``_external.PROJECTS`` (a page
of ``_build/html/generated`` holds a link to its documentation), else exit 1 naming those it
does not."""

from __future__ import annotations

import sys
from pathlib import Path

from _external import PROJECTS


def unlinked(pages: Path) -> list[str]:
    text = "".join(page.read_text(encoding="utf-8") for page in pages.glob("*.html"))
    return [project for project, (address, _, _) in PROJECTS.items() if address not in text]


if __name__ == "__main__":
    missing = unlinked(Path(__file__).parent / "_build" / "html" / "generated")
    if missing:
        sys.exit(f"no API page links to {', '.join(missing)} (intersphinx)")
    print(f"The API reference links to {', '.join(PROJECTS)}.")
