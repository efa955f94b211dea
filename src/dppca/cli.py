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
import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_USAGE = 2
#: Written into every output folder: only folders holding it may be replaced (--overwrite).
MARKER = ".dppca-output"


class UsageError(Exception):
    """A problem with the command line or its input, shown in one line."""


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


def _parser() -> _Parser:
    parser = _Parser(prog="dppca", description="Robust, differentially private PCA.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="private PCA of a CSV file, with figures and a report")
    run.add_argument("data", help="CSV file with a header row")
    run.add_argument("--epsilon", type=float, required=True, help="total epsilon (> 0)")
    run.add_argument("--delta", type=float, required=True, help="total delta in (0, 1)")
    run.add_argument(
        "--split",
        type=float,
        nargs=3,
        metavar=("LOADING", "SCREE", "SCORE"),
        help="shares of the budget (sum 1); default a third each",
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
    run.add_argument("--group", help="column of group labels")
    run.add_argument(
        "--group-levels",
        help="the public set of group labels, comma-separated (released even when empty)",
    )
    run.add_argument("--columns", nargs="+", help="variables to use (default: all but --group)")
    run.add_argument("--scree", default="clipped", help="clipped (default), pmwm or huber")
    run.add_argument("--score", default="thresholded", help="thresholded (default), add or sparse")
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
    run.add_argument("--out", required=True, help="output folder (new or empty)")
    run.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a non-empty --out that an earlier run wrote",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    demo = commands.add_parser("demo", help="the full report on embedded 1000 Genomes data")
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
    return parser


def _read_csv(path: str, columns: Sequence[str] | None, group: str | None):
    import pandas as pd

    try:
        table = pd.read_csv(path, dtype=None if group is None else {group: str})
    except FileNotFoundError:
        raise UsageError(f"data file not found: {path}") from None
    except (OSError, ValueError, pd.errors.ParserError) as error:
        raise UsageError(f"cannot read {path} as CSV: {error}") from None
    wanted = list(columns) if columns else [c for c in table.columns if c != group]
    if group is not None:
        wanted.append(group)
    unknown = [name for name in wanted if name not in table.columns]
    if unknown:
        raise UsageError(f"column(s) not in {path}: {', '.join(map(str, unknown))}")
    return table[wanted]


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
    import numpy as np

    from dppca.pipeline import dp_pca
    from dppca.report import write_figures, write_non_private_report, write_report

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
    # Independent streams for the noise and for the figures' synthetic points, so that a seed
    # never replays the noise's random words in a published figure.
    noise_seed, figure_seed, reference_seed, redraw_seed = np.random.SeedSequence(seed).spawn(4)
    split = None
    if args.split is not None:
        split = dict(zip(("loading", "scree", "score"), args.split, strict=True))
    progress.step("estimating private PCA")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dp_pca(
            data,
            args.epsilon,
            args.delta,
            split=split,
            k=args.k,
            scree=args.scree,
            score=args.score,
            bins=None if args.bins is None else tuple(args.bins),
            axes=tuple(args.axes),
            groups=groups,
            group_levels=getattr(args, "group_levels_list", None),
            non_private=reference is not None,
            random_state=noise_seed,
            sampler=args.sampler,
        )
        uncertainty = result.uncertainty(draws=200, random_state=redraw_seed)
    sampling_rng = np.random.default_rng(figure_seed)

    def produce(folder: Path) -> None:
        release = result.to_dict()
        release["uncertainty"] = uncertainty.to_dict()
        (folder / "release.json").write_text(json.dumps(release, indent=1))
        progress.step("drawing figures")
        images = write_figures(result, folder, random_state=sampling_rng, uncertainty=uncertainty)
        progress.step("writing the report")
        write_report(result, folder, images, title=title, source=source, uncertainty=uncertainty)

    def produce_reference(folder: Path) -> None:
        write_non_private_report(
            result,
            folder,
            title=title,
            source=source,
            random_state=np.random.default_rng(reference_seed),
        )

    targets = {target: produce}
    if reference is not None:
        targets[reference] = produce_reference
    _write(targets, args.overwrite)
    for warning in caught:  # budget warnings and notes on noise, once written: one line each
        print(f"dppca: warning: {' '.join(str(warning.message).split())}", file=sys.stderr)
    return target / "report.html", None if reference is None else reference / "report.html"


def _run(args: argparse.Namespace) -> tuple[Path, Path | None]:
    progress = Progress(4, not args.quiet)
    if args.group_levels is not None and args.group is None:
        raise UsageError("--group-levels needs --group")
    if args.group_levels is not None:
        args.group_levels_list = [level.strip() for level in args.group_levels.split(",")]
    progress.step("reading data")
    table = _read_csv(args.data, args.columns, args.group)
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
