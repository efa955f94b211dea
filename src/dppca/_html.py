"""HTML summaries of results for notebooks (``_repr_html_``): facts, tables and notes."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

_STYLE = (
    "<style>.dppca-card table{border-collapse:collapse;margin:2px 0 8px 0;font-size:90%}"
    ".dppca-card th,.dppca-card td{padding:2px 8px;text-align:right}"
    ".dppca-card th:first-child,.dppca-card td:first-child{text-align:left}"
    ".dppca-card caption{text-align:left;font-weight:bold;padding:4px 0}"
    ".dppca-card .note{color:#8a4b00}</style>"
)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return html.escape(str(value))


def table_html(caption: str, table: pd.DataFrame) -> str:
    """A small HTML table with a caption; numbers with 4 significant digits."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in table.columns)
    rows = "".join(
        f"<tr><th>{html.escape(str(index))}</th>"
        + "".join(f"<td>{_cell(value)}</td>" for value in row)
        + "</tr>"
        for index, row in zip(table.index, table.itertuples(index=False), strict=True)
    )
    return (
        f"<table><caption>{html.escape(caption)}</caption><thead><tr><th></th>{head}</tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def card(
    title: str,
    facts: Sequence[tuple[str, str]],
    tables: Sequence[tuple[str, pd.DataFrame]],
    notes: Sequence[str] = (),
) -> str:
    """A titled HTML block: a list of facts, captioned tables and warning notes.

    Examples
    --------
    >>> text = card("Result", [("rows", "10")], [("Budget", pd.DataFrame({"epsilon": [1.0]}))])
    >>> "<caption>Budget</caption>" in text and "<b>rows</b>: 10" in text
    True
    """
    listed = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in facts)
    warned = "".join(f'<p class="note">{html.escape(note)}</p>' for note in notes)
    body = "".join(table_html(caption, table) for caption, table in tables)
    return (
        f'{_STYLE}<div class="dppca-card"><h4>{html.escape(title)}</h4><ul>{listed}</ul>'
        f"{body}{warned}</div>"
    )
