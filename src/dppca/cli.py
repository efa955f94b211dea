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
from dppca.cli_options import (
    SETTING_OPTIONS,
    center_option,
    check_scree,
    frame_option,
    in_option_terms,
    option_terms,
    parse_scree_control,
    parser,
    scale_option,
)

EXIT_USAGE = 2
#: How long ``--scheduler ADDRESS`` waits for the scheduler to answer.
SCHEDULER_TIMEOUT = "20s"

#: Written into every output folder: only folders holding it may be replaced (--overwrite).
MARKER = ".dppca-output"


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


def _write(targets: dict[Path, Any], overwrite: bool, published: Path) -> None:
    """Build each output in a temporary folder next to its target and move them into place only
    when all succeeded; an earlier run's folder there is replaced whole (none of its files
    survive). ``targets`` maps each folder to a function that fills a given folder. The
    ``published`` folder (the private report) gets the permissions of a new folder under the
    user's umask; any other (the non-private reference) keeps the temporary folder's 0700."""
    staged: dict[Path, Path] = {}
    retired: list[Path] = []
    try:
        for target, produce in targets.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".dppca-", dir=target.parent))
            staged[target] = staging
            produce(staging)
            (staging / MARKER).write_text("Written by dppca; --overwrite may replace it.\n")
            if target == published:
                staging.chmod(0o777 & ~_umask())
        for target, staging in staged.items():
            _check_out(str(target), overwrite, "the output folder")  # again, just before
            if target.exists():
                retired.append(Path(tempfile.mkdtemp(prefix=".dppca-old-", dir=target.parent)))
                os.replace(target, retired[-1] / "previous")
            os.replace(staging, target)
    finally:
        for folder in [*staged.values(), *retired]:
            shutil.rmtree(folder, ignore_errors=True)


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _release(
    data, args: Any, *, title: str, source: str, groups: Any, seed, progress
) -> tuple[Path, Path | None]:
    from dppca.job import run_job
    from dppca.privacy.settings import NoiseSettings
    from dppca.releases.loading import LoadingSettings
    from dppca.releases.scores import ScoreSettings
    from dppca.releases.scree import ScreeSettings

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
        if scale_option(getattr(args, "scale", None)) == "private":
            split = {"scale": 0.1, **{name: 0.9 * share for name, share in split.items()}}
    scree_control = parse_scree_control(getattr(args, "scree_control", []), args.scree)
    check_scree(args.scree, scree_control)
    progress.step("estimating private PCA")
    with warnings.catch_warnings(record=True) as caught, option_terms():
        warnings.simplefilter("always")
        job = run_job(
            data,
            args.epsilon,
            args.delta,
            seed=seed,
            split=split,
            scale=scale_option(getattr(args, "scale", None)),
            groups=groups,
            non_private=reference is not None,
            progress=progress.enabled,
            on_weak=getattr(args, "on_weak", "refuse"),
            loading=LoadingSettings.named(
                SETTING_OPTIONS["loading"],
                statistic=getattr(args, "statistic", "kendall"),
                center=center_option(getattr(args, "center", None)),
            ),
            scree=ScreeSettings.named(
                SETTING_OPTIONS["scree"], method=args.scree, k=args.k, control=scree_control
            ),
            score=ScoreSettings.named(
                SETTING_OPTIONS["score"],
                method=args.score,
                bins=None if args.bins is None else tuple(args.bins),
                axes=tuple(args.axes),
                group_levels=getattr(args, "group_levels_list", None),
                frame=frame_option(getattr(args, "frame", None)),
            ),
            noise=NoiseSettings.named(
                SETTING_OPTIONS["noise"],
                sampler=args.sampler,
                composition=getattr(args, "composition", None),
            ),
        )

    def produce(folder: Path) -> None:
        job.write(folder, title=title, source=source, on_step=progress.step)

    def produce_reference(folder: Path) -> None:
        job.write_reference(folder, title=title, source=source)

    targets = {target: produce}
    if reference is not None:
        targets[reference] = produce_reference
    _write(targets, args.overwrite, target)
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
                n_workers=CPU_COUNT,
                threads_per_worker=1,
                host="127.0.0.1",
                dashboard_address=None,
                # no dashboard, and the scheduler's HTTP server on a free port (its default,
                # 8787, may belong to another cluster)
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            )
        except (OSError, TimeoutError, RuntimeError) as error:
            message = " ".join(str(error).split())
            raise UsageError(f"cannot start a local Dask cluster: {message}") from None
        with cluster, distributed.Client(cluster):
            yield
        return
    try:
        client = distributed.Client(address, timeout=SCHEDULER_TIMEOUT)
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
    scales = scale_option(args.scale)
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
        args = parser().parse_args(argv)
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
