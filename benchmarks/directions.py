"""Directions: g-DPPCA (Kendall's tau), the SSCM about a private centre, and Analyze Gauss.

Which statistic should give the directions, for which d, n * epsilon and data? Every method gets
the same (epsilon, delta) and the same (continuous) Gaussian noise (the library's default
discrete sampler adds a little noise for its exactness):

* "g-DPPCA (Kendall)": ``dp_loading(X, epsilon, delta)``, the default (translation invariant);
* "SSCM, private centre": ``dp_loading(..., statistic="sscm")``, and "SSCM, known centre"
  (``center=`` the true centre, the origin: only at shift 0 on synthetic data, beside the AG
  given the same);
* Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014), its matrix released with sd ``sigma``
  on the diagonal and ``sigma / sqrt 2`` off it (``vecd``, as g-DPPCA's own), run three ways:
  "AG, private clip, known centre" on the data as drawn, about the origin, with a private
  median clip (10 % of epsilon): only at shift 0 on synthetic data, where the origin is the
  true centre (an oracle no user has at other shifts, nor on the real data); "AG, private
  clip and centre", about the SSCM's own private centre (its medians and steps planned by the
  same rule on the 90 % of epsilon the clip leaves, the steps sharing one Gaussian budget with
  AG's matrix, the steps that travel to data far from the origin paid on top of the centre's
  share as the SSCM's are), then the median clip; "AG, private clip and centre, no travel",
  the same with every step within the centre's share (more of the budget for the matrix: AG's
  second moment is less hurt by a centre's error than the SSCM, so neither rule is best for it
  everywhere, and the goal is read against each); and "AG, centre and clip at its scale", about
  the same
  centre with all of epsilon and a free clip at half the centre's released pair scale (AG then
  approaches the SSCM without its outer weight, its best setting on heavy tails, measured in
  ``benchmarks/sscm_weights.py``).

A release refused before the charge or marked unusable (NaN directions: the SSCM's centre beyond
its steps' reach) scores the worst error, 1, and is listed. AG cannot mark itself; where its
centre did not reach the data, its release is scored as it is and listed too.

Synthetic data: rows ``mu + Sigma^(1/2) z / w`` with ``Sigma = diag(10, 5, 3, 1, ..., 1)`` in a
random orthonormal basis; ``w = 1`` (Gaussian), ``w = sqrt(chi2_3 / 3)`` (multivariate t3) or
``w = |N(0, 1)|`` (multivariate Cauchy); "aligned 5%" is the Gaussian model with 5 % of rows
replaced by outliers at distance 1000 along one fixed direction outside the top-3 subspace, a
test of robustness: its truth is the inliers' Sigma, which the second-moment and Kendall matrices
are not built to find; every coordinate of ``mu`` is the shift (0, 5, 200 or 1000). The truth is
the top-k eigenvectors of ``Sigma`` (the population eigenvectors of all these matrices for the
elliptical models). Real data: the embedded 1000 Genomes Kidd panel and the R package's gau_g
(UCI Adult is left out: in raw units its first component is one variable), the truth ordinary
PCA's top-k subspace, which the robust statistics estimate only up to their own bias: the rows
"no noise" give each library statistic's error without noise (about its released centre, for
the SSCM), the floor of its private error. delta = 1/n^2. Error: the sine of the largest
principal angle, for k = 1 and k = 3 (synthetic) or 2 (real; one fit gives both). Every method
sees the same sample in a repetition (paired); a verdict is a 95 % Student t interval of the mean
paired difference, cell by cell, without a correction for multiplicity (two equal methods get
about one false verdict in 20 cells) and with cells that share samples across shifts and budgets;
each loss of the SSCM against AG is therefore run again on 80 fresh samples, and the goals give
both verdicts. On real data the intervals reflect the noise of the mechanisms alone (the data are
fixed).

Usage: ``python benchmarks/directions.py [--quick | --tiny] [--stream S] [--workers W] [--out
DIR]``; ``--stream S`` (S > 0) draws every sample and seed from a random stream the committed
run (stream 0) never drew from, a run of the same grid on fresh data (label ``full_streamS``);
``--report DIR/directions_LABEL.csv.gz`` rewrites the report from saved results.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from dppca import dp_loading
from dppca.baselines import analyze_gauss, sklearn_pca
from dppca.datasets import load_1kg_aisnps, load_gau_g
from dppca.exceptions import UnlocatableError

from _common import (
    markdown_table,
    mean_intervals,
    paired_verdicts,
    provenance,
    scored,
    script_intro,
    tally,
    with_tails,
)

SPECTRUM = (10.0, 5.0, 3.0)
DISTRIBUTIONS = ("gaussian", "t3", "cauchy", "aligned 5%")
#: The subspace sizes scored: synthetic data (a spectrum 10, 5, 3, 1, ...) and real data (their
#: third and fourth eigenvalues are within 10 %: k = 3 is barely defined there).
KS = {"synthetic": (1, 3), "real": (1, 2)}
KENDALL = "g-DPPCA (Kendall)"
SSCM = "SSCM, private centre"
SSCM_KNOWN = "SSCM, known centre"
AG_KNOWN = "AG, private clip, known centre"
AG_CENTRE = "AG, private clip and centre"
AG_WITHIN = "AG, private clip and centre, no travel"
AG_SCALE = "AG, centre and clip at its scale"
METHODS = (KENDALL, SSCM, SSCM_KNOWN, AG_KNOWN, AG_CENTRE, AG_WITHIN, AG_SCALE)
#: What the known-centre AG is given that no other method is.
ORACLE = "about the true centre, given free: shift 0 only"
#: The noise-free statistics on real data: each library statistic's floor.
FLOORS = {KENDALL: f"{KENDALL}, no noise", SSCM: f"{SSCM}, no noise"}
GRIDS = {
    "full": {
        "d": [10, 50],
        "n": [2000, 20000],
        "epsilon": [1.0, 4.0],
        "shift": [0.0, 5.0, 200.0, 1000.0],
        "reps": 20,
        "real": True,
        "stream": 0,
    },
    "quick": {
        "d": [10],
        "n": [2000],
        "epsilon": [4.0],
        "shift": [0.0, 200.0],
        "reps": 5,
        "real": False,
        "stream": 0,
    },
    "tiny": {
        "d": [4],
        "n": [600],
        "epsilon": [4.0],
        "shift": [0.0, 50.0],
        "reps": 2,
        "real": False,
        "stream": 0,
    },
}


def sample(distribution: str, n: int, d: int, rng: np.random.Generator):
    """Centred rows of the model and the eigenvectors of ``Sigma`` (d x d, descending)."""
    basis, _ = np.linalg.qr(rng.standard_normal((d, d)))
    spectrum = np.ones(d)
    top = min(d, len(SPECTRUM))
    spectrum[:top] = SPECTRUM[:top]
    z = (rng.standard_normal((n, d)) * np.sqrt(spectrum)) @ basis.T
    z = with_tails(z, distribution, rng)
    if distribution == "aligned 5%":
        bad = rng.random(n) < 0.05
        z[bad] = 1000.0 * basis[:, -1] + rng.standard_normal((int(bad.sum()), d))
    return z, basis


def roster(
    epsilon: float, delta: float, seed: int, shift: float, floors: bool, dimension: int
) -> dict:
    """Each method as ``X -> (directions, outcome)``: directions (d x up to 3) or None when
    refused before the charge; the outcome None or what to list. With ``floors``, the library
    statistics' noise-free directions too."""

    def loading(statistic: str, center: np.ndarray | None = None):
        def fit(X: np.ndarray) -> dict:
            try:
                result = dp_loading(
                    X,
                    epsilon,
                    delta,
                    statistic=statistic,
                    center=center,
                    sampler="continuous",
                    random_state=seed,
                    progress=False,
                    non_private=floors,
                )
            except UnlocatableError:
                return {"directions": None}
            found = {"directions": result.directions}
            if floors:
                found["floor"] = result.non_private.kendall_directions
            return found

        return fit

    def ag(clip: str, center: str | None, travel: bool = True):
        def fit(X: np.ndarray) -> dict:
            result = analyze_gauss(
                X,
                min(3, X.shape[1]),
                epsilon,
                delta,
                clip=clip,
                center=center,
                travel=travel,
                random_state=seed,
            )
            listed = None if result.settings["centre_reached"] else "centre not reached"
            return {"directions": result.components, "listed": listed}

        return fit

    methods = {
        KENDALL: loading("kendall"),
        SSCM: loading("sscm"),
        AG_CENTRE: ag("private", "private"),
        AG_WITHIN: ag("private", "private", travel=False),
        AG_SCALE: ag("scale", "private"),
    }
    if shift == 0.0 and not floors:  # synthetic data at the origin: their centre is known
        methods[SSCM_KNOWN] = loading("sscm", np.zeros(dimension))
        methods[AG_KNOWN] = ag("private", None)
    return methods


def fit_all(
    X: np.ndarray, truth: np.ndarray, epsilon: float, seed: int, facts: dict, ks: tuple
) -> list:
    """Every method on one sample at one budget: a row per fit (and per noise-free floor)."""
    delta = 1.0 / len(X) ** 2
    floors = facts["data"] not in DISTRIBUTIONS
    rows = []
    methods = roster(epsilon, delta, seed, facts["shift"], floors, X.shape[1])
    for name, method in methods.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # marks are read from the result
            found = method(X)
        seconds = time.perf_counter() - start
        score = scored(found["directions"], truth, ks)
        if found.get("listed"):
            score["outcome"] = f"{found['listed']} (scored as released)"
        rows.append({**facts, "epsilon": epsilon, "method": name, **score, "seconds": seconds})
        if "floor" in found:
            floor = scored(found["floor"], truth, ks)
            rows.append({**facts, "epsilon": epsilon, "method": FLOORS[name], **floor})
    return rows


def streamed(key: list[int], stream: int) -> np.random.Generator:
    """The random generator of ``key`` in random ``stream``: stream 0 is the committed full
    run's; any other draws samples and seeds that stream 0 (and its confirmations) never
    draw."""
    return np.random.default_rng(key if stream == 0 else [*key, 7919, stream])


def evaluate_cell(grid: dict, d: int, n: int, distribution: str) -> pd.DataFrame:
    """Every repetition of one (d, n, distribution) cell at every shift and budget; a
    repetition's sample is shared by the shifts, budgets and methods."""
    rng = streamed([d, n, DISTRIBUTIONS.index(distribution)], grid["stream"])
    rows: list[dict] = []
    for rep in range(grid["reps"]):
        centred, truth = sample(distribution, n, d, rng)
        for shift, epsilon in itertools.product(grid["shift"], grid["epsilon"]):
            facts = {"data": distribution, "d": d, "n": n, "shift": shift, "rep": rep}
            seed = int(rng.integers(2**31))
            rows += fit_all(centred + shift, truth, epsilon, seed, facts, KS["synthetic"])
    return pd.DataFrame(rows)


def evaluate_real(grid: dict) -> pd.DataFrame:
    """The embedded real data sets, ordinary PCA's top-3 subspace as the truth."""
    genotypes, _ = load_1kg_aisnps("kidd")
    gau, _ = load_gau_g()
    sets = {"1000 Genomes (Kidd)": genotypes, "gau_g": gau}
    rng = streamed([1], grid["stream"])
    rows: list[dict] = []
    for name, frame in sets.items():
        X = frame.to_numpy(float)
        truth = sklearn_pca(X, 3)
        for rep, epsilon in itertools.product(range(grid["reps"]), grid["epsilon"]):
            facts = {"data": name, "d": X.shape[1], "n": len(X), "shift": 0.0, "rep": rep}
            rows += fit_all(X, truth, epsilon, int(rng.integers(2**31)), facts, KS["real"])
    return pd.DataFrame(rows)


KEYS = ["data", "d", "n", "shift", "epsilon"]


def long_form(results: pd.DataFrame) -> pd.DataFrame:
    """One row per fit and k: ``sin_theta`` with a column ``k``."""
    value_columns = [f"k{k}" for k in (1, 2, 3) if f"k{k}" in results.columns]
    frame = results.melt(
        id_vars=[*KEYS, "rep", "method", "outcome"],
        value_vars=value_columns,
        var_name="k",
        value_name="sin_theta",
    )
    frame["k"] = frame["k"].str[1:].astype(int)
    return frame.dropna(subset=["sin_theta"])


def verdict_table(results: pd.DataFrame, first: str, against: list[str]):
    """``first`` against each of ``against``: wins/ties/losses over the cells (n, epsilon,
    shift) of each data set and d (rows), per method and k (columns); and the verdicts."""
    frame = long_form(results[results["method"].isin([first, *against])])
    verdicts = paired_verdicts(frame, first, [*KEYS, "k"], "sin_theta")
    verdicts["against"] = verdicts["method"] + ", k=" + verdicts["k"].astype(str)
    table = verdicts.groupby(["data", "d", "against"], sort=False).apply(tally).unstack()
    order = [f"{m}, k={k}" for m in against for k in (1, 2, 3)]
    return table[[c for c in order if c in table.columns]].fillna("").reset_index(), verdicts


#: The fresh samples on which each loss of the goals is run again: a screen of 256 cells at 95 %
#: without a correction for multiplicity calls about one cell in 40 a loss between two equal
#: methods, so a loss is one the fresh samples confirm.
CONFIRM_REPS = 80


def confirm(row, first: str, method: str, reps: int, stream: int) -> str:
    """``first`` against ``method`` in the synthetic cell of a verdict ``row`` on ``reps`` fresh
    samples (a random stream the grid of random ``stream`` never draws from): the verdict, its
    mean paired difference and the half-width of its 95 % interval."""
    rng = streamed([row.d, row.n, DISTRIBUTIONS.index(row.data), 1], stream)
    rows = []
    for rep in range(reps):
        centred, truth = sample(row.data, row.n, row.d, rng)
        seed = int(rng.integers(2**31))
        fits = roster(row.epsilon, 1.0 / row.n**2, seed, row.shift, False, row.d)
        for name in (first, method):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # marks are read from the result
                found = fits[name](centred + row.shift)
            value = scored(found["directions"], truth, (row.k,))[f"k{row.k}"]
            rows.append({"cell": 0, "rep": rep, "method": name, "sin_theta": value})
    verdict = paired_verdicts(pd.DataFrame(rows), first, ["cell"], "sin_theta").iloc[0]
    return f"{verdict['verdict']} {verdict['mean']:+.3f} +- {verdict['half']:.3f}"


def goals(
    summary: pd.DataFrame,
    verdicts: pd.DataFrame,
    known_verdicts: pd.DataFrame,
    reps: int,
    stream: int,
) -> list[str]:
    """The SSCM's goals, read from the synthetic grid of random ``stream``: ``verdicts`` of the
    SSCM about its private centre and ``known_verdicts`` of the SSCM about the known centre;
    each loss against AG is run again on ``reps`` fresh samples (:func:`confirm`)."""

    def mean(method: str, **cell) -> str:
        part = summary[summary["method"] == method]
        for key, value in cell.items():
            part = part[part[key] == value]
        if part.empty:
            return "not run"
        row = part.iloc[0]
        return f"{row['mean']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"

    first = {"data": "gaussian", "d": 50, "n": 2000, "epsilon": 1.0, "shift": 0.0, "k": 1}
    second = {"data": "aligned 5%", "d": 50, "n": 2000, "epsilon": 4.0, "shift": 0.0, "k": 3}
    synthetic = verdicts[verdicts["data"].isin(DISTRIBUTIONS)]
    lines = [
        f"- Gaussian, d = 50, n = 2,000, epsilon 1, k = 1: SSCM {mean(SSCM, **first)}, g-DPPCA "
        f"{mean(KENDALL, **first)} (goal: at most 0.24 and below g-DPPCA).",
        f"- 5 % aligned outliers, d = 50, n = 2,000, epsilon 4, k = 3: SSCM "
        f"{mean(SSCM, **second)} (goal: at most 0.30).",
        "- Cells of the synthetic grid where the SSCM is worse than fair AG given the same "
        "knowledge, beyond the paired interval (goal: none), each run again on "
        f"{reps} fresh samples (verdict, mean paired difference +- half-width):",
    ]
    known = known_verdicts[known_verdicts["data"].isin(DISTRIBUTIONS)]
    pairs = (
        (SSCM, synthetic, AG_CENTRE),
        (SSCM, synthetic, AG_WITHIN),
        (SSCM_KNOWN, known, AG_KNOWN),
    )
    for first, frame, method in pairs:
        cells = frame[frame["method"] == method]
        worse = cells[cells["verdict"] == "loss"]
        lines.append(f"  - {first} against {method}: {len(worse)} of {len(cells)}.")
        for row in worse.itertuples(index=False):
            lines.append(
                f"    - {row.data}, d={row.d}, n={row.n}, epsilon={row.epsilon:g}, "
                f"shift={row.shift:g}, k={row.k}: by {row.mean:.3f} +- {row.half:.3f}; on "
                f"fresh samples: {confirm(row, first, method, reps, stream)}"
            )
    cells = synthetic[synthetic["method"] == AG_KNOWN]
    worse = cells[cells["verdict"] == "loss"]
    lines.append(
        f"- The private centre's price: {SSCM} against {AG_KNOWN} ({ORACLE}): worse in "
        f"{len(worse)} of {len(cells)} cells, by at most "
        f"{worse['mean'].max() if len(worse) else 0:.3f}, "
        f"at n epsilon {', '.join(sorted({f'{r.n * r.epsilon:g}' for r in worse.itertuples()}))}."
    )
    cells = synthetic[synthetic["method"] == AG_SCALE]
    worse = cells[cells["verdict"] == "loss"]
    better = cells[(cells["verdict"] == "win") & (cells["data"] == "aligned 5%")]
    by_data = ", ".join(f"{data} {count}" for data, count in worse["data"].value_counts().items())
    lines.append(
        f"- Against {AG_SCALE} (the SSCM without its outer weight, "
        f"``benchmarks/sscm_weights.py``): worse in {len(worse)} of {len(cells)} cells "
        f"({by_data or 'none'}; by at most {worse['mean'].max() if len(worse) else 0:.3f}), "
        f"better in {len(better)} of {int((cells['data'] == 'aligned 5%').sum())} cells with "
        "5 % aligned outliers: the weight's price on heavy tails and what it buys."
    )
    return lines


def cell_table(summary: pd.DataFrame, data: str, k: int) -> str:
    """Methods by (d, n, epsilon, shift): ``mean [low, high]`` for one data set and k."""
    part = summary[(summary["data"] == data) & (summary["k"] == k)].copy()
    part["cell"] = [
        f"d={d} n={n} eps={e:g} shift={s:g}"
        for d, n, e, s in part[["d", "n", "epsilon", "shift"]].itertuples(index=False)
    ]
    part["value"] = [
        f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in part[["mean", "low", "high"]].values
    ]
    table = part.pivot(index="cell", columns="method", values="value")
    table = table.reindex(index=list(dict.fromkeys(part["cell"])))
    columns = [m for m in [*METHODS, *FLOORS.values()] if m in table.columns]
    return markdown_table(table[columns].fillna("").reset_index())


def report(results: pd.DataFrame, facts: dict, label: str) -> str:
    frame = long_form(results)
    summary = mean_intervals(frame, [*KEYS, "k", "method"], "sin_theta")
    unusable = (
        results[~results["outcome"].isin(["released"]) & results["method"].isin(METHODS)]
        .groupby([*KEYS, "method", "outcome"], sort=False)
        .size()
        .rename("fits")
        .reset_index()
    )
    sscm_table, verdicts = verdict_table(
        results, SSCM, [KENDALL, AG_KNOWN, AG_CENTRE, AG_WITHIN, AG_SCALE]
    )
    ag_table, _ = verdict_table(results, KENDALL, [AG_KNOWN, AG_CENTRE, AG_WITHIN, AG_SCALE])
    known_table, known_verdicts = verdict_table(results, SSCM_KNOWN, [SSCM, AG_KNOWN])
    lines = [
        f"# Directions ({label} run)",
        "",
        f"{facts['fits']} fits in {facts['minutes']:.1f} minutes on {facts['workers']} "
        f"worker(s) at commit {facts.get('commit', 'not recorded')}. Grid: "
        f"{json.dumps(facts['grid'])}.",
        "",
        script_intro(__doc__),
        "",
        "## Goals",
        "",
        *goals(
            summary,
            verdicts,
            known_verdicts,
            3 if label.startswith("tiny") else CONFIRM_REPS,
            facts["grid"].get("stream", 0),
        ),
        "",
        "## The SSCM against each method",
        "",
        "Wins/ties/losses of the SSCM over the cells (n, epsilon, shift) of each data set, d "
        "and k (the known-centre methods at shift 0 on synthetic data only).",
        "",
        markdown_table(sscm_table),
        "",
        "## The SSCM about the known centre",
        "",
        "Wins/ties/losses of the SSCM about the true centre (shift 0 on synthetic data) against "
        "the SSCM about its private centre (the centre's price) and AG about the true centre.",
        "",
        markdown_table(known_table),
        "",
        "## g-DPPCA (Kendall) against AG",
        "",
        markdown_table(ag_table),
        "",
        "## Releases not made or marked",
        "",
        markdown_table(unusable) if len(unusable) else "None.",
    ]
    for data in dict.fromkeys(summary["data"]):
        for k in KS["synthetic" if data in DISTRIBUTIONS else "real"]:
            lines += ["", f"## {data}, k = {k}", "", cell_table(summary, data, k)]
    return "\n".join(lines) + "\n"


def _single_threaded() -> None:
    threadpool_limits(1)  # two workers on two cores: one BLAS thread each


def run(grid: dict, workers: int, checkpoint: Path) -> pd.DataFrame:
    """Every cell, the largest first, in ``workers`` processes; finished cells are appended to
    ``checkpoint`` and skipped when the run is resumed."""
    cells = sorted(
        itertools.product(grid["d"], grid["n"], DISTRIBUTIONS), key=lambda c: -c[0] * c[1]
    )
    parts = []
    if checkpoint.exists():
        done = pd.read_csv(checkpoint)
        parts.append(done)
        finished = set(done[["d", "n", "data"]].itertuples(index=False, name=None))
        cells = [cell for cell in cells if cell not in finished]
    jobs = [(evaluate_cell, (grid, *cell)) for cell in cells]
    real_done = bool(parts) and bool((~parts[0]["data"].isin(DISTRIBUTIONS)).any())
    if grid["real"] and not real_done:
        jobs.append((evaluate_real, (grid,)))

    def keep(part: pd.DataFrame) -> None:
        parts.append(part)
        part.to_csv(checkpoint, mode="a", header=not checkpoint.exists(), index=False)
        first = part.iloc[0]
        print(f"{first['data']} d={first['d']} n={first['n']}: {part['seconds'].sum():.0f} s")

    if workers == 1:
        for job, arguments in jobs:
            keep(job(*arguments))
    else:
        with concurrent.futures.ProcessPoolExecutor(workers, initializer=_single_threaded) as pool:
            futures = [pool.submit(job, *arguments) for job, arguments in jobs]
            for future in concurrent.futures.as_completed(futures):
                keep(future.result())
    return pd.concat(parts, ignore_index=True)


def _stream(text: str) -> int:
    stream = int(text)
    if stream < 0:
        raise argparse.ArgumentTypeError(f"a random stream is a number >= 0, got {text}")
    return stream


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="d=10, n=2000, epsilon 4, 5 reps")
    mode.add_argument("--tiny", action="store_true", help="seconds: for the test suite")
    mode.add_argument("--report", type=Path, help="only rewrite the report from saved results")
    parser.add_argument(
        "--stream",
        type=_stream,
        default=0,
        help="random stream of samples and seeds (0: the committed run's; others are fresh)",
    )
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    if args.report:
        results = pd.read_csv(args.report)
        label = args.report.name.split(".")[0].removeprefix("directions_")
        facts = json.loads((args.report.parent / f"directions_{label}_run.json").read_text())
        folder = args.report.parent
    else:
        size = "tiny" if args.tiny else "quick" if args.quick else "full"
        grid = {**GRIDS[size], "stream": args.stream}
        label = f"{size}_stream{args.stream}" if args.stream else size
        folder = args.out
        folder.mkdir(parents=True, exist_ok=True)
        checkpoint = folder / f"directions_{label}.partial.csv"
        start = time.perf_counter()
        results = run(grid, 1 if args.tiny else args.workers, checkpoint)
        facts = {
            "grid": grid,
            "workers": 1 if args.tiny else args.workers,
            "minutes": (time.perf_counter() - start) / 60,
            "fits": len(results),
            "commit": provenance(),
        }
        results.to_csv(folder / f"directions_{label}.csv.gz", index=False)
        checkpoint.unlink()
        (folder / f"directions_{label}_run.json").write_text(json.dumps(facts, indent=1) + "\n")
    text = report(results, facts, label)
    (folder / f"directions_{label}.md").write_text(text)
    print(text)
    return results


if __name__ == "__main__":
    main()
