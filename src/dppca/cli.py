"""The ``dppca`` command line: ``dppca run``, ``dppca demo`` and ``dppca datasets``.

Errors in the input (missing file, non-numeric column, NaN, unknown option, bad epsilon, an
output folder that is in use or cannot be written) are reported in one line on stderr with exit
code 2, and no output folder is left behind. A run is written into a temporary folder next to
``--out`` and moved into place only when it succeeded. A folder that is not empty is replaced
only with ``--overwrite``, and only if an earlier run of dppca wrote it (it holds the marker
file ``MARKER``): no other folder (the current one, a home folder, one holding the input) is
ever deleted, and no file of the earlier run survives. The non-private reference, when asked
for, goes into a folder of its own (``--non-private-reference DIR``, outside ``--out``), never
next to the report a user will publish.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dppca.cli_input import UsageError, read_table

EXIT_USAGE = 2
#: Written into every output folder: only folders holding it may be replaced (--overwrite).
MARKER = ".dppca-output"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, no usage block
        raise UsageError(message)


class Progress:
    """A small progress bar on stderr, shown only on a terminal and without ``--quiet``."""

    def __init__(self, steps: int, enabled: bool) -> None:
        self.steps, self.done = steps, 0
        self.enabled = enabled and sys.stderr.isatty()

    def step(self, label: str) -> None:
        self.done += 1
        if self.enabled:
            filled = round(20 * self.done / self.steps)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (20 - filled)}] {label:<40}")
            if self.done >= self.steps:
                sys.stderr.write("\n")
            sys.stderr.flush()


EXAMPLES = """examples:
  dppca demo
  dppca run data.csv --epsilon 4 --delta 1e-7 --out report
  dppca run data.csv --epsilon 4 --delta 1e-7 --group site --scale private --out report
  dppca run data.csv --epsilon 4 --delta 1e-7 --scree huber --scree-control m2_frac=0.3 \\
      --columns age income --index-col 0 --out report

The total budget (--epsilon, --delta) is shared between the releases by --split; delta should
be well below 1/n (the number of rows). Seeds are for research: a published report should be
made without --seed."""


def _parser() -> _Parser:
    from dppca import __version__

    parser = _Parser(
        prog="dppca",
        description="Robust, differentially private PCA (g-DPPCA) with private plots.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dppca {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
        "--scree", default="clipped", help="scree method: clipped (default), pmwm or huber"
    )
    run.add_argument(
        "--scree-control",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting of the scree method, repeatable (pmwm needs a=, b=, trim_const=, "
        "eta=; see dppca.dp_scree)",
    )
    run.add_argument(
        "--score",
        default="thresholded",
        help="score histogram: thresholded (default), add or sparse",
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


def _scale_option(value: str | None) -> Any:
    """``--scale``: None, ``"private"``, or public scales as floats."""
    if value is None or value == "none":
        return None
    if value == "private":
        return "private"
    try:
        return [float(part) for part in value.split(",")]
    except ValueError:
        raise UsageError(
            f"--scale must be 'private', 'none' or comma-separated numbers; got {value!r}"
        ) from None


def _frame_option(values: Sequence[float] | None) -> Any:
    """``--frame XMIN XMAX YMIN YMAX`` as ``((xmin, xmax), (ymin, ymax))``, or None."""
    return None if values is None else ((values[0], values[1]), (values[2], values[3]))


def _control_value(text: str) -> Any:
    """A ``--scree-control`` value: an integer, a number, true/false, or text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _scree_control(settings: Sequence[str]) -> dict[str, Any] | None:
    """``--scree-control KEY=VALUE`` settings as a dict (None when there are none)."""
    control: dict[str, Any] = {}
    for setting in settings:
        key, equals, value = setting.partition("=")
        if not equals or not key.strip() or not value.strip():
            raise UsageError(f"--scree-control takes KEY=VALUE; got {setting!r}")
        if key.strip() in control:
            raise UsageError(f"--scree-control sets {key.strip()} twice")
        control[key.strip()] = _control_value(value.strip())
    return control or None


def _check_scree(method: str, control: dict[str, Any] | None) -> None:
    """The scree method and its settings, with the messages in the command line's terms."""
    from dppca._validation import check_option
    from dppca.releases.scree import SCREE_METHODS, check_scree_control

    try:
        check_scree_control(
            check_option(method, "--scree", SCREE_METHODS), control, 1, "--scree-control"
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
    "k": "--k",
    "bins": "--bins",
    "axes": "--axes",
    "scale": "--scale",
    "score": "--score",
    "sampler": "--sampler",
    "composition": "--composition",
    "frame": "--frame",
    "frame's": "--frame's",
    "on_weak": "--on-weak",
}
#: A refusal's advice in the command line's terms.
ADVICE = {
    "on_weak='release'": "--on-weak release",
    "frame=((xmin, xmax), (ymin, ymax))": "--frame XMIN XMAX YMIN YMAX",
    "scree_control={'C_clip': ...}": "--scree-control C_clip=...",
    "scale=[...]": "--scale s1,s2,...",
    "scale='private'": "--scale private",
    "radius=...": "(no option)",
}


def in_option_terms(message: str) -> str:
    """A refusal's or a note's advice in the command line's terms, on one line."""
    message = " ".join(message.split())
    for advice, option in ADVICE.items():
        message = message.replace(advice, option)
    return message


@contextmanager
def _option_terms() -> Iterator[None]:
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
        if name not in OPTIONS:
            raise
        raise UsageError(OPTIONS[name] + message[len(name) :]) from None


def _check_out(out: str, overwrite: bool, option: str, data: str | None = None) -> Path:
    """An output folder: new, empty, or (with ``--overwrite``) one an earlier run wrote. Checked
    before any computation, so a refused run spends nothing."""
    target = Path(out).resolve()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} {out} exists and is not a folder")
    if data is not None and target in Path(data).resolve().parents:
        raise UsageError(f"{option} {out} holds the input file {data}; choose another folder")
    if target == Path.cwd().resolve() or target == Path.home().resolve():
        raise UsageError(f"{option} {out} is the current or the home folder; choose a new folder")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise UsageError(
                f"{option} {out} is not empty; choose a new folder or pass --overwrite to "
                "replace an earlier run's output"
            )
        if not (target / MARKER).is_file():
            raise UsageError(
                f"{option} {out} was not written by dppca (no {MARKER} file); --overwrite "
                "replaces only earlier runs' output folders"
            )
    return target


def _write(targets: dict[Path, Any], overwrite: bool) -> None:
    """Build each output in a temporary folder next to its target and move them into place only
    when all succeeded; an earlier run's folder there is replaced whole (none of its files
    survive). ``targets`` maps each folder to a function that fills a given folder."""
    staged: dict[Path, Path] = {}
    retired: list[Path] = []
    try:
        for target, produce in targets.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".dppca-", dir=target.parent))
            staged[target] = staging
            produce(staging)
            (staging / MARKER).write_text("Written by dppca; --overwrite may replace it.\n")
        for target, staging in staged.items():
            _check_out(str(target), overwrite, "the output folder")  # again, just before
            if target.exists():
                retired.append(Path(tempfile.mkdtemp(prefix=".dppca-old-", dir=target.parent)))
                os.replace(target, retired[-1] / "previous")
            os.replace(staging, target)
    finally:
        for folder in [*staged.values(), *retired]:
            shutil.rmtree(folder, ignore_errors=True)


def _release(
    data, args: Any, *, title: str, source: str, groups: Any, seed, progress
) -> tuple[Path, Path | None]:
    from dppca.job import run_job

    target = _check_out(args.out, args.overwrite, "--out", getattr(args, "data", None))
    reference = None
    if args.non_private_reference:
        reference = _check_out(
            args.non_private_reference, args.overwrite, "--non-private-reference", args.data
        )
        if reference == target or target in reference.parents or reference in target.parents:
            raise UsageError(
                "--non-private-reference must be a folder outside --out (the reference must never "
                "be published with the private report)"
            )
    split = None
    if args.split is not None:
        split = dict(zip(("loading", "scree", "score"), args.split, strict=True))
        if _scale_option(getattr(args, "scale", None)) == "private":
            split = {"scale": 0.1, **{name: 0.9 * share for name, share in split.items()}}
    scree_control = _scree_control(getattr(args, "scree_control", []))
    _check_scree(args.scree, scree_control)
    progress.step("estimating private PCA")
    with warnings.catch_warnings(record=True) as caught, _option_terms():
        warnings.simplefilter("always")
        job = run_job(
            data,
            args.epsilon,
            args.delta,
            seed=seed,
            split=split,
            scale=_scale_option(getattr(args, "scale", None)),
            scree_control=scree_control,
            k=args.k,
            scree=args.scree,
            score=args.score,
            bins=None if args.bins is None else tuple(args.bins),
            axes=tuple(args.axes),
            groups=groups,
            group_levels=getattr(args, "group_levels_list", None),
            non_private=reference is not None,
            sampler=args.sampler,
            composition=getattr(args, "composition", None),
            progress=progress.enabled,
            frame=_frame_option(getattr(args, "frame", None)),
            on_weak=getattr(args, "on_weak", "refuse"),
        )

    def produce(folder: Path) -> None:
        job.write(folder, title=title, source=source, on_step=progress.step)

    def produce_reference(folder: Path) -> None:
        job.write_reference(folder, title=title, source=source)

    targets = {target: produce}
    if reference is not None:
        targets[reference] = produce_reference
    _write(targets, args.overwrite)
    for warning in caught:  # budget warnings and notes on noise, once written: one line each
        print(f"dppca: warning: {in_option_terms(str(warning.message))}", file=sys.stderr)
    return target / "report.html", None if reference is None else reference / "report.html"


@contextmanager
def _scheduler(address: str | None) -> Iterator[None]:
    """A Dask client connected to ``address`` (``"local"``: a cluster of this machine's cores,
    one single-threaded worker process each, on loopback) for the duration of a run."""
    if address is None:
        yield
        return
    try:
        import distributed
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install 'dppca[dask]'") from None
    if address == "local":
        from dask.system import CPU_COUNT  # the cores this process may use

        try:
            cluster = distributed.LocalCluster(
                n_workers=CPU_COUNT, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
            )
        except (OSError, TimeoutError, RuntimeError) as error:
            message = " ".join(str(error).split())
            raise UsageError(f"cannot start a local Dask cluster: {message}") from None
        with cluster, distributed.Client(cluster):
            yield
        return
    try:
        client = distributed.Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        message = " ".join(str(error).split())
        raise UsageError(f"cannot connect to the Dask scheduler at {address}: {message}") from None
    with client:
        yield


def _run(args: argparse.Namespace) -> tuple[Path, Path | None]:
    with _scheduler(args.scheduler):
        return _run_on(args)


def _run_on(args: argparse.Namespace) -> tuple[Path, Path | None]:
    progress = Progress(4, not args.quiet)
    if args.group_levels is not None and args.group is None:
        raise UsageError("--group-levels needs --group")
    if args.group_levels is not None:
        args.group_levels_list = [level.strip() for level in args.group_levels.split(",")]
    progress.step("reading data")
    table = read_table(
        args.data,
        args.columns,
        args.group,
        sep=args.sep,
        index_col=args.index_col,
        chunked=args.scheduler is not None,
        decimal=args.decimal,
    )
    variables = [str(name) for name in table.columns if name != args.group]
    scales = _scale_option(args.scale)
    if isinstance(scales, list) and len(scales) != len(variables):
        raise UsageError(
            f"--scale must be 'private', 'none' or {len(variables)} positive numbers, one per "
            f"variable ({', '.join(variables)}); got {len(scales)}"
        )
    if args.group_levels is not None:
        labels = table[args.group].unique()
        labels = labels.compute() if args.scheduler is not None else labels
        undeclared = sorted(set(labels) - set(args.group_levels_list))
        if undeclared:
            raise UsageError(
                f"--group-levels must list every label of --group {args.group}; missing "
                f"{', '.join(undeclared[:5])}{' ...' if len(undeclared) > 5 else ''}"
            )
    return _release(
        table,
        args,
        title="Private PCA report",
        source=args.data,
        groups=args.group,
        seed=args.seed,
        progress=progress,
    )


def _demo(args: argparse.Namespace) -> tuple[Path, Path | None]:
    from dppca.datasets import load_1kg_aisnps

    progress = Progress(4, not args.quiet)
    progress.step("loading 1000 Genomes data")
    genotypes, labels = load_1kg_aisnps("kidd")
    settings = argparse.Namespace(
        epsilon=4.0,
        delta=1e-7,
        split=None,
        k=10,
        scree="clipped",
        score="thresholded",
        bins=None,
        axes=(1, 2),
        non_private_reference=f"{Path(args.out)}-non-private",
        out=args.out,
        overwrite=args.overwrite,
        sampler=None,
        data=None,
        group_levels_list=["AFR", "AMR", "EAS", "EUR", "SAS"],  # the public design of the panel
    )
    return _release(
        genotypes,
        settings,
        title="Private PCA of 1000 Genomes ancestry SNPs (demo)",
        source="1000 Genomes phase 3, Kidd ancestry-informative SNPs (0/1/2 allele counts)",
        groups=labels["superpopulation"].to_numpy(),
        seed=args.seed,
        progress=progress,
    )


def _app(args: argparse.Namespace) -> int:
    try:
        import shiny  # noqa: F401 (the extra's check, before serving)

        from dppca.app import run_app
    except ImportError:
        raise UsageError("the web app needs Shiny: pip install 'dppca[app]'") from None
    run_app(host=args.host, port=args.port, launch_browser=args.browser)
    return 0


def _datasets() -> None:
    from dppca.datasets import DATASETS

    for name, (call, shape, source) in DATASETS.items():
        print(f"{name:<11} dppca.datasets.{call:<26} {shape}; {source}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dppca`` command; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "datasets":
            _datasets()
            return 0
        if args.command == "app":
            return _app(args)
        report, reference = _run(args) if args.command == "run" else _demo(args)
    except UsageError as error:
        print(f"dppca: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        print(f"dppca: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:  # an output folder that cannot be created or written
        where = f": {error.filename}" if error.filename else ""
        print(f"dppca: error: cannot write the output ({error.strerror}){where}", file=sys.stderr)
        return EXIT_USAGE
    print(f"Report: {report}")
    if reference is not None:
        print(f"Non-private reference (NOT private, do not publish): {reference}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
