"""The command line's option table: the parser of ``dppca run``, ``dppca demo``,
``dppca app`` and ``dppca datasets``, the options' own values (scales, frame limits, scree
controls), and a release's refusals and notes in the options' terms.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from dppca.cli_input import UsageError


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2 (no usage block)."""

    def error(self, message: str):
        """Refuse the command line with ``message`` (a :class:`UsageError`)."""
        raise UsageError(message)


EXAMPLES = """examples:
  dppca demo
  dppca run data.csv --epsilon 4 --delta 1e-7 --out report
  dppca run data.csv --epsilon 4 --delta 1e-7 --group site --scale private --out report
  dppca run data.csv --epsilon 4 --delta 1e-7 --scree huber --scree-control m2_frac=0.3 \\
      --columns age income --index-col 0 --out report

The total budget (--epsilon, --delta) is shared between the releases by --split; delta should
be well below 1/n (the number of rows). Seeds are for research: a published report should be
made without --seed."""


def parser() -> Parser:
    """The parser of every command and option, with examples in ``--help``."""
    from dppca import __version__

    parser = Parser(
        prog="dppca",
        description="Robust, differentially private PCA (g-DPPCA) with private plots.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dppca {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    run = commands.add_parser(
        "run",
        help="private PCA of a CSV file, with figures and a report",
        description="Private PCA of a CSV file: release.json, figures (PNG and SVG) and "
        "report.html in --out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "data",
        help="CSV file with a header row, or Parquet file or folder (one row per person)",
    )
    run.add_argument("--epsilon", type=float, required=True, help="total epsilon (> 0)")
    run.add_argument("--delta", type=float, required=True, help="total delta in (0, 1)")
    run.add_argument(
        "--split",
        type=float,
        nargs=3,
        metavar=("LOADING", "SCREE", "SCORE"),
        help="shares of the budget for the directions, the scree and the score plot (sum 1; "
        "default a third each; with --scale private the scale takes a tenth first)",
    )
    run.add_argument(
        "--statistic",
        choices=("kendall", "sscm", "auto"),
        default="kendall",
        help="the directions' matrix: the generalized Kendall matrix (g-DPPCA, the default), "
        "the spatial sign covariance matrix about a private centre, or auto: the SSCM where the "
        "benchmarks favour it (n epsilon >= 2000 for the directions, its centre located)",
    )
    run.add_argument(
        "--center",
        metavar="C1,C2,...",
        help="with --statistic sscm or auto: a public centre, one number per variable, known "
        "without the data (nothing is then spent on locating a centre)",
    )
    run.add_argument("--k", type=int, help="components in the scree (default: all)")
    run.add_argument(
        "--bins",
        type=int,
        nargs=2,
        default=None,
        metavar=("BX", "BY"),
        help="cells along x and y (default: chosen from n and the budget)",
    )
    run.add_argument(
        "--axes",
        type=int,
        nargs=2,
        default=(1, 2),
        metavar=("A", "B"),
        help="the two components of the score plot (default 1 2)",
    )
    run.add_argument("--group", metavar="COLUMN", help="column of public group labels")
    run.add_argument(
        "--group-levels",
        metavar="LABELS",
        help="the public set of group labels, comma-separated (released even when empty)",
    )
    run.add_argument(
        "--columns", nargs="+", metavar="COLUMN", help="variables to use (default: all but --group)"
    )
    run.add_argument(
        "--sep", default=",", help="the CSV file's field separator (default ','; 'tab' for tabs)"
    )
    run.add_argument(
        "--decimal",
        default=".",
        choices=[".", ","],
        help="the CSV file's decimal mark (default '.'; ',' for 3,14, usually with --sep ';')",
    )
    run.add_argument(
        "--index-col",
        metavar="COLUMN",
        help="a column that labels the rows (a name, or a number counted from 0), left out of "
        "the variables; a CSV saved by pandas has one, 'Unnamed: 0'",
    )
    run.add_argument(
        "--scale",
        metavar="SCALE",
        help="'private' (robust scales released with a tenth of the budget), 'none' (default), "
        "or one public scale per variable, comma-separated",
    )
    run.add_argument(
        "--scree",
        default="clipped",
        type=methods_option,
        help="scree method: clipped (default), pmwm or huber; several, comma-separated, are "
        "released side by side on equal shares of the scree's budget (the first feeds the "
        "other releases)",
    )
    run.add_argument(
        "--scree-control",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting of the scree method, repeatable (pmwm needs a=, b=, trim_const=, "
        "eta=; see dppca.dp_scree); with several methods METHOD.KEY=VALUE",
    )
    run.add_argument(
        "--score",
        default="thresholded",
        type=methods_option,
        help="score histogram: thresholded (default), add or sparse; several, comma-separated, "
        "are released side by side on equal shares of the histogram's budget",
    )
    run.add_argument(
        "--composition",
        help="tight (the default): the releases share the total by the composition of their "
        "privacy losses, with less noise; basic: the total is cut into the split's parts, which "
        "add up",
    )
    run.add_argument(
        "--frame",
        type=float,
        nargs=4,
        metavar=("XMIN", "XMAX", "YMIN", "YMAX"),
        help="public limits of the score plot, known without the data (default: a private "
        "frame, with a share of the score budget)",
    )
    run.add_argument(
        "--on-weak",
        default="refuse",
        help="refuse (default): stop before anything is spent when the budget cannot locate a "
        "release (the message names the smallest epsilon and n that would work); release: "
        "release anyway, for a study",
    )
    run.add_argument("--seed", type=int, help="random seed (for research only)")
    run.add_argument(
        "--sampler",
        help="discrete (default): exact integer noise on a secure stream; continuous: floats",
    )
    run.add_argument(
        "--non-private-reference",
        metavar="DIR",
        help="also write the NON-private ordinary PCA reference into DIR (outside --out)",
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="compute on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' "
        "for a cluster of this machine's cores; the file is read in blocks by the workers, "
        "which must see it at the same path (needs pip install 'dppca[dask]')",
    )
    run.add_argument("--out", required=True, help="output folder (new or empty)")
    run.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a non-empty --out that an earlier run wrote",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    demo = commands.add_parser(
        "demo",
        help="the full report on embedded 1000 Genomes data",
        description="The full private report on the embedded 1000 Genomes genotypes (Kidd "
        "panel, 2504 people, five superpopulations) at total epsilon 4.",
    )
    demo.add_argument(
        "--out",
        default="dppca-demo",
        help="output folder (default ./dppca-demo; the non-private reference goes to "
        "./dppca-demo-non-private)",
    )
    demo.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a non-empty --out that an earlier run wrote",
    )
    demo.add_argument("--seed", type=int, help="random seed (for research only)")
    demo.add_argument("--quiet", action="store_true", help="no progress bar")
    commands.add_parser("datasets", help="list the embedded data sets")
    app = commands.add_parser(
        "app",
        help="the web app: private PCA in the browser",
        description="Serve the web app (needs pip install 'dppca[app]'). Uploaded data stay in "
        "the server's memory and are dropped when the browser session ends.",
    )
    app.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    app.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    app.add_argument("--browser", action="store_true", help="open a browser tab")
    return parser


def scale_option(value: str | None) -> Any:
    """``--scale``: None, ``"private"``, or public scales as floats."""
    if value is None or value == "none":
        return None
    if value == "private":
        return "private"
    return numbers_option(value, "--scale", "'private', 'none' or comma-separated numbers")


def center_option(value: str | None) -> list[float] | None:
    """``--center``: None, or a public centre as floats."""
    if value is None:
        return None
    return numbers_option(value, "--center", "comma-separated numbers, one per variable")


def numbers_option(value: str, option: str, rule: str) -> list[float]:
    """Comma-separated numbers, or a usage error saying ``option`` must be ``rule``."""
    try:
        return [float(part) for part in value.split(",")]
    except ValueError:
        raise UsageError(f"{option} must be {rule}; got {value!r}") from None


def frame_option(values: Sequence[float] | None) -> Any:
    """``--frame XMIN XMAX YMIN YMAX`` as ``((xmin, xmax), (ymin, ymax))``, or None."""
    return None if values is None else ((values[0], values[1]), (values[2], values[3]))


def control_value(text: str) -> Any:
    """A ``--scree-control`` value: an integer, a number, true/false, or text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def methods_option(text: str) -> str | tuple[str, ...]:
    """A method option: one name, or several comma-separated (a tuple)."""
    names = tuple(name.strip() for name in text.split(","))
    return names[0] if len(names) == 1 else names


def parse_scree_control(
    settings: Sequence[str], methods: str | tuple[str, ...] = "clipped"
) -> dict[str, Any] | None:
    """``--scree-control KEY=VALUE`` settings as a dict (None when there are none); with
    several ``methods``, ``METHOD.KEY=VALUE`` settings as a dict of them by method."""
    several = not isinstance(methods, str)
    control: dict[str, Any] = {}
    for setting in settings:
        key, equals, value = setting.partition("=")
        key = key.strip()
        if not equals or not key or not value.strip():
            raise UsageError(f"--scree-control takes KEY=VALUE; got {setting!r}")
        own = control
        if several:
            method, dot, key = (part.strip() for part in key.partition("."))
            if not dot or not method or not key:
                raise UsageError(
                    f"with several --scree methods, --scree-control takes METHOD.KEY=VALUE "
                    f"(e.g. huber.T=20); got {setting!r}"
                )
            own = control.setdefault(method, {})
        if key in own:
            raise UsageError(f"--scree-control sets {setting.partition('=')[0].strip()} twice")
        own[key] = control_value(value.strip())
    return control or None


def check_scree(method: str | tuple[str, ...], control: dict[str, Any] | None) -> None:
    """The scree method and its settings, with the messages in the command line's terms."""
    from dppca.releases.scree import ScreeSettings

    try:
        ScreeSettings.named(
            {"method": "--scree", "control": "--scree-control"}, method=method, control=control
        )
    except (ValueError, TypeError) as error:  # a setting's own check names the setting only
        message = " ".join(str(error).split())
        raise UsageError(
            message if "--scree" in message else f"--scree-control {message}"
        ) from None


#: The release's parameters that an option of ``dppca run`` sets.
OPTIONS = {
    "epsilon": "--epsilon",
    "delta": "--delta",
    "split": "--split",
    "scale": "--scale",
    "frame's": "--frame's",
    "on_weak": "--on-weak",
}


#: Each setting's option, as the command line names the settings it makes.
SETTING_OPTIONS = {
    "loading": {"statistic": "--statistic", "center": "--center"},
    "scree": {"method": "--scree", "k": "--k", "control": "--scree-control"},
    "score": {
        "method": "--score",
        "bins": "--bins",
        "axes": "--axes",
        "group_levels": "--group-levels",
        "frame": "--frame",
    },
    "noise": {"sampler": "--sampler", "composition": "--composition"},
}


#: A refusal's advice in the command line's terms.
ADVICE = {
    "on_weak='release'": "--on-weak release",
    "frame=((xmin, xmax), (ymin, ymax))": "--frame XMIN XMAX YMIN YMAX",
    "C_clip in the clipped scree's control": (
        "--scree-control C_clip=..., or clipped.C_clip=... with several --scree methods"
    ),
    "scale=[...]": "--scale s1,s2,...",
    "scale='private'": "--scale private",
    "radius=...": "(no option)",
    "statistic='kendall'": "--statistic kendall",
    "statistic='sscm' (or 'auto')": "--statistic sscm (or auto)",
    "groups without group_levels": "--group without --group-levels",
    "group_levels=[...] (or a pandas Categorical's categories)": "--group-levels A,B,...",
}


def in_option_terms(message: str) -> str:
    """A refusal's or a note's advice in the command line's terms, on one line."""
    message = " ".join(message.split())
    for advice, option in ADVICE.items():
        message = message.replace(advice, option)
    return message


@contextmanager
def option_terms() -> Iterator[None]:
    """A release's refusal of a parameter (``"k must be ..."``), in one line naming the option
    that set it (``"--k must be ..."``)."""
    from dppca.exceptions import UnlocatableError, UnreliableScaleError

    try:
        yield
    except (UnlocatableError, UnreliableScaleError) as error:
        raise UsageError(in_option_terms(str(error))) from None
    except (ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        name = message.split(" ", 1)[0]
        if name.startswith("--"):  # a setting the command line named itself
            raise UsageError(in_option_terms(message)) from None
        if name not in OPTIONS:
            raise
        raise UsageError(OPTIONS[name] + message[len(name) :]) from None
