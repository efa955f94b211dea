"""Shared helpers of the benchmark scripts: the method roster, Markdown tables, timing."""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dppca import dp_loading
from dppca.baselines import (
    SpikedModel,
    analyze_gauss,
    diffprivlib_pca,
    nsggd,
    opendp_pca,
    projector_pca,
    sgpca,
    sin_theta,
    sklearn_pca,
)
from dppca.numerics.linalg import descending_eigh
from dppca.numerics.pair_sums import kendall_error_bound
from dppca.privacy.mechanisms import Noise
from dppca.releases.loading import kendall_mechanism


def cell_study_arguments(argv: list[str] | None, doc: str, reps: int) -> argparse.Namespace:
    """The options of a study run cell by cell: ``--reps`` (default ``reps``), ``--tiny``,
    ``--workers`` and ``--out``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--reps", type=int, default=reps)
    parser.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    return parser.parse_args(argv)


def run_cells(
    evaluate: Callable[[Any, int], list[dict]], cells: list, reps: int, workers: int
) -> pd.DataFrame:
    """``evaluate(cell, reps)`` for every cell, in ``workers`` processes (1: in this one), its
    rows in one frame."""
    jobs = [(cell, reps) for cell in cells]
    if workers == 1:
        found = [evaluate(*job) for job in jobs]
    else:
        with multiprocessing.Pool(workers) as pool:
            found = pool.starmap(evaluate, jobs, chunksize=1)
    return pd.DataFrame([row for rows in found for row in rows])


def interval_table(
    results: pd.DataFrame, keys: list[str], methods: list[str], digits: int
) -> pd.DataFrame:
    """Methods by cell (``keys``): ``mean [low, high]`` of sin Theta (:func:`mean_intervals`)."""
    summary = mean_intervals(results, [*keys, "method"], "sin_theta")
    summary["value"] = [
        f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
        for m, lo, hi in summary[["mean", "low", "high"]].values
    ]
    return summary.pivot(index=keys, columns="method", values="value")[methods].reset_index()


def provenance() -> str:
    """The commit the benchmark ran at, and whether the working tree differed from it (the
    library's and the benchmarks' files), for the results it writes; "unknown" outside git."""
    root = Path(__file__).resolve().parents[1]

    def git(*arguments: str) -> str:
        found = subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True)
        return found.stdout.strip() if found.returncode == 0 else ""

    commit = git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    changed = git("status", "--porcelain", "--", "src", "benchmarks/*.py")
    return f"{commit}{' with uncommitted changes to the code' if changed else ''}"


def write_markdown(path: Path, sections: list[str], started: float) -> Path:
    """The ``sections`` and the wall time since ``started`` (``time.perf_counter()``) as one
    Markdown file at ``path``, also printed; returns ``path``."""
    text = "\n\n".join([*sections, f"Wall time {time.perf_counter() - started:.0f} s."])
    path.write_text(text + "\n")
    print(text)
    return path


def script_intro(doc: str) -> str:
    """A benchmark script's docstring without its first line and its usage line."""
    return doc.split("\n\n", 1)[1].split("Usage:")[0].strip()


def save_table_report(
    table: pd.DataFrame, out: Path, stem: str, sections: list[str], started: float
) -> Path:
    """``table`` as ``out/<stem>.csv`` and, after ``sections``, as the Markdown report
    ``out/<stem>.md`` (with the wall time since ``started``); returns the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{stem}.csv", index=False)
    return write_markdown(out / f"{stem}.md", [*sections, markdown_table(table)], started)


def time_summary(seconds: dict[str, list[float]], label: str) -> pd.DataFrame:
    """One row per timed thing (``label`` its column's name): the median, least and worst of its
    times in seconds."""
    return pd.DataFrame(
        {
            label: list(seconds),
            "median_s": [float(np.median(values)) for values in seconds.values()],
            "min_s": [min(values) for values in seconds.values()],
            "worst_s": [max(values) for values in seconds.values()],
        }
    )


def markdown_table(table: pd.DataFrame) -> str:
    """A Markdown table with 4 significant digits (no optional dependency)."""

    def cell(value: object) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(False)]
    return "\n".join(lines)


def with_tails(z: np.ndarray, distribution: str, rng: np.random.Generator) -> np.ndarray:
    """Gaussian rows ``z`` made multivariate t3 (divided by ``sqrt(chi2_3 / 3)``) or Cauchy
    (by ``|N(0, 1)|``) for those ``distribution`` names, in place; others are left as they are."""
    if distribution == "t3":
        z /= np.sqrt(rng.chisquare(3, size=(len(z), 1)) / 3)
    elif distribution == "cauchy":
        z /= np.abs(rng.standard_normal((len(z), 1)))
    return z


def scored(directions: np.ndarray | None, truth: np.ndarray, ks: tuple[int, ...]) -> dict:
    """sin Theta between the top-k columns of ``directions`` and of ``truth`` for each k in
    ``ks`` (keys ``k1``, ``k2``, ...), and the ``outcome``: a release refused before the charge
    (None) or marked unusable (NaN directions, e.g. the SSCM's centre beyond its steps' reach)
    scores the worst error, 1, so that the means count it against its method."""
    keys = [f"k{k}" for k in ks]
    if directions is None:
        return {**dict.fromkeys(keys, 1.0), "outcome": "refused"}
    if not np.all(np.isfinite(directions)):
        return {**dict.fromkeys(keys, 1.0), "outcome": "marked unusable"}
    errors = {f"k{k}": sin_theta(directions[:, :k], truth[:, :k]) for k in ks}
    return {**errors, "outcome": "released"}


def mean_intervals(results: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """Per group of ``keys``: the mean of ``value``, the fits that gave one (``count``) and
    were attempted (``runs``), and a 95 % interval of the mean (Student t:
    ``mean +- t_{0.975, count - 1} sd / sqrt(count)``), within [0, 1] (an error sin Theta)."""
    groups = results.groupby(keys, sort=False)
    summary = groups[value].agg(["mean", "std", "count"])
    summary["runs"] = groups.size()
    summary = summary.reset_index()
    quantile = stats.t.ppf(0.975, np.maximum(summary["count"] - 1, 1))
    half = quantile * summary["std"] / np.sqrt(summary["count"])
    summary["low"] = (summary["mean"] - half).clip(lower=0.0)
    summary["high"] = (summary["mean"] + half).clip(upper=1.0)
    return summary.drop(columns=["std"])


def paired_verdicts(
    results: pd.DataFrame, first: str, keys: list[str], value: str, pair: str = "rep"
) -> pd.DataFrame:
    """Method ``first`` against every other method, cell by cell (``keys``), on the same
    samples (``pair``): the mean paired difference ``first - other`` of ``value`` with a 95 %
    Student t interval, and the verdict for ``first``: "win" when the interval lies below 0,
    "loss" when above, "tie" otherwise."""
    ours = results[results["method"] == first].set_index([*keys, pair])[value]
    others = results[results["method"] != first].dropna(subset=[value])
    paired = others.join(ours.rename("first"), on=[*keys, pair], how="inner")
    paired["difference"] = paired["first"] - paired[value]
    cells = paired.groupby(["method", *keys], sort=False)["difference"]
    verdicts = cells.agg(["mean", "std", "count"]).reset_index()
    half = stats.t.ppf(0.975, np.maximum(verdicts["count"] - 1, 1)) * verdicts["std"]
    verdicts["half"] = half / np.sqrt(verdicts["count"])
    verdicts["verdict"] = np.select(
        [
            verdicts["mean"] + verdicts["half"] < 0,
            verdicts["mean"] - verdicts["half"] > 0,
        ],
        ["win", "loss"],
        "tie",
    )
    return verdicts


def tally(frame: pd.DataFrame) -> str:
    """``wins/ties/losses`` of a frame of :func:`paired_verdicts`."""
    counts = frame["verdict"].value_counts()
    return "/".join(str(counts.get(v, 0)) for v in ("win", "tie", "loss"))


def methods(
    k: int,
    epsilon: float,
    delta: float,
    *,
    clip_norm: float,
    eigengap: float,
    seed: int,
    model: SpikedModel | None = None,
) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Every method as ``X -> components (d x k)``, with the stated public tuning; SGPCA only
    when the spiked ``model`` is known (simulations: the oracle's parameters)."""

    def loading(**settings: object) -> Callable[[np.ndarray], np.ndarray]:
        return lambda X: dp_loading(X, epsilon, delta, random_state=seed, **settings).directions[
            :, :k
        ]

    study = {"on_weak": "release"}  # the study measures every cell, also where it cannot locate
    roster = {
        "g-DPPCA spherical (ours)": loading(),
        "g-DPPCA spherical, paper calibration": loading(mechanism="paper"),
        "g-DPPCA winsorized, auto radius": loading(transform="winsorized", radius="auto", **study),
        "AG": lambda X: (
            analyze_gauss(X, k, epsilon, delta, clip=clip_norm, random_state=seed).components
        ),
        "AG, private clip": lambda X: (
            analyze_gauss(X, k, epsilon, delta, clip="private", random_state=seed).components
        ),
        "AG, private clip and centre": lambda X: (
            analyze_gauss(
                X, k, epsilon, delta, clip="private", center="private", random_state=seed
            ).components
        ),
        "SSCM, private centre (ours)": loading(statistic="sscm", sampler="continuous", **study),
        "NSGGD": lambda X: nsggd(X, k, epsilon, delta, random_state=seed).components,
        "NSGGD, private centre": lambda X: (
            nsggd(X, k, epsilon, delta, center="private", random_state=seed).components
        ),
        "projector PCA": lambda X: (
            projector_pca(
                X, k, epsilon, delta, truncation=clip_norm, eigengap=eigengap, random_state=seed
            ).components
        ),
        "PCA (non-private)": lambda X: sklearn_pca(X, k),
    }
    if model is not None:
        roster["SGPCA, oracle model"] = lambda X: (
            sgpca(X, k, epsilon, delta, model=model, random_state=seed).components
        )
        roster["SGPCA, oracle model, private centre"] = lambda X: (
            sgpca(X, k, epsilon, delta, model=model, center="private", random_state=seed).components
        )
        roster["SGPCA, oracle model, rate constants (no guarantee)"] = lambda X: (
            sgpca(X, k, epsilon, delta, model=model, bounds="rate", random_state=seed).components
        )
    if importlib.util.find_spec("diffprivlib") is not None:
        roster["diffprivlib PCA"] = lambda X: diffprivlib_pca(
            X, k, epsilon, data_norm=clip_norm, bounds=(-clip_norm, clip_norm), random_state=seed
        )
    if importlib.util.find_spec("opendp") is not None:
        roster["OpenDP PCA"] = lambda X: opendp_pca(X, k, epsilon, row_norm=clip_norm)
    return roster


def spherical_releases(
    kendall: np.ndarray, n: int, k: int, epsilon: float, delta: float, seed: int
) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The two spherical g-DPPCA fits from one precomputed Kendall matrix.

    ``kendall_mechanism`` is ``dp_loading``'s own mechanism (the test suite checks that
    both give identical releases for a seed), so sharing the matrix between budgets and
    calibrations only saves recomputing it.
    """

    def release(sensitivity: str, calibration: str):
        def fit(_: np.ndarray) -> np.ndarray:
            rng = np.random.default_rng(seed)
            error = kendall_error_bound(kendall.shape[0], laplacian=True)
            mechanism = kendall_mechanism(
                n, kendall.shape[0], error, epsilon, delta, sensitivity, calibration
            )
            noisy = mechanism.randomise_symmetric(kendall, Noise("continuous", rng))
            return descending_eigh(noisy)[1][:, :k]

        return fit

    return {
        "g-DPPCA spherical (ours)": release("tight", "analytic"),
        "g-DPPCA spherical, paper calibration": release("paper", "classical"),
    }


class Stopped(Exception):
    """A method ran past its time limit."""


def with_limit(function: Callable[[], object], seconds: float):
    """``function()`` in a forked child process; raise :class:`Stopped` after ``seconds``.

    A separate process is the only safe way to stop the peers' samplers, which loop inside
    compiled code and callbacks.
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)

    def target() -> None:
        try:
            sender.send(("ok", function()))
        except BaseException as error:  # report any failure to the parent
            sender.send(("error", f"{type(error).__name__}: {error}"))

    process = context.Process(target=target)
    process.start()
    try:
        if not receiver.poll(seconds):
            raise Stopped
        status, value = receiver.recv()
    finally:
        if process.is_alive():
            process.terminate()
        process.join()
    if status == "error":
        raise RuntimeError(value)
    return value


def timed(function: Callable[[], object], limit: float = 120.0) -> float:
    """Seconds taken by ``function()`` (measured in the child); ``inf`` when stopped."""

    def measure() -> float:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start

    try:
        return with_limit(measure, limit)
    except Stopped:
        return float("inf")
