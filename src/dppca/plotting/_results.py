"""The result types the plots take, and the errors that name them.

The results live in lower layers; they are imported here only when a plot is drawn.
"""

from __future__ import annotations

from typing import Any, NoReturn

#: Every release with private directions.
RESULT_NAMES = ("DPPCAResult", "LoadingResult", "ScreeResult", "ScoreResult")


def result_types(*names: str) -> tuple[type, ...]:
    """The result classes named (any of :data:`RESULT_NAMES`)."""
    from dppca.results.loading import LoadingResult
    from dppca.results.pca import DPPCAResult
    from dppca.results.scores import ScoreResult
    from dppca.results.scree import ScreeResult

    known = {
        "DPPCAResult": DPPCAResult,
        "LoadingResult": LoadingResult,
        "ScreeResult": ScreeResult,
        "ScoreResult": ScoreResult,
    }
    return tuple(known[name] for name in names)


def is_result(value: Any, *names: str) -> bool:
    """Whether ``value`` is one of the results named (default: any of them)."""
    return isinstance(value, result_types(*(names or RESULT_NAMES)))


def check_result(result: Any, display: str, *names: str) -> None:
    """A display's result: one of the types ``names``, or a ``TypeError`` naming them."""
    if not is_result(result, *names):
        raise TypeError(f"{display} draws a {' or '.join(names)}; got {type(result).__name__}.")


def refuse(value: Any, parameter: str, function: str, accepted: str, hint: str = "") -> NoReturn:
    """A ``TypeError`` naming the function's ``parameter``, what it takes (``accepted``) and the
    type received, with an optional ``hint`` (for a result: the display that draws it)."""
    raise TypeError(
        f"{parameter} of {function} must be {accepted}; got {type(value).__name__}."
        + (f" {hint}" if hint else "")
    )
