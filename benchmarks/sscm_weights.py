"""The SSCM's radial weights: adapted to the data's tails, against the clip's radii alone.

``statistic="sscm"`` weighs each row's spatial sign about the private centre by
``min(1, (r / rho_in)^2) min(1, (rho_out / r)^2)``. With the clip ``tau`` (about the released
pair scale) alone, ``rho_in = tau / 2`` and ``rho_out = 3 tau``: rows beyond three scales fade
out, which buys robustness to outliers and costs efficiency on heavy tails, and nearly every row
counts as its sign, which costs efficiency on light tails once the noise is small. Where
``n epsilon / d^1.5`` passes 50, the library releases a third median, the rows' median
distance ``m`` from the centre (2 % of epsilon or what locates it), and adapts
(``dppca.releases.loading.weights``): ``rho_in`` moves towards ``m`` (all the way from
``n epsilon / d^1.5 = 200``; ``0.7 m`` where ``m`` over the pair scale says the tails are heavy,
below 0.95: Cauchy rows have 0.68), and ``rho_out`` stays ``3 tau``. This script measures each
part on the same samples and noise (paired): "adapted (library)"; "clip's radii" (no spread
released: the release before the adaptation); "outer 10 tau on heavy tails" (the first rule,
whose outer radius moved from 3 to 10 clips as the tails got heavy: it gained a little on clean
heavy tails and let outliers among them take a direction); "adapted, no outer weight"
(``rho_out`` beyond any row).

Data (delta = 1/n^2, shift 0): the directions benchmark's spiked model (``Sigma = diag(10, 5,
3, 1, ..., 1)`` in a random basis) as Gaussian, multivariate t3 and Cauchy rows, and Gaussian
rows with 5 % replaced by outliers along one fixed direction outside the top-3 subspace at
distance 30, 60 or 1,000 from the centre (the inliers' root mean square radius is 8.1 at
d = 50, 5 at d = 10 and 4.5 at d = 5), and t3 and Cauchy rows with 5 % replaced by outliers at
60 (heavy tails, where the outer radius moves to ten clips, and outliers together), at d = 5,
10 and 50, n = 2,000 and 20,000, epsilon 1 and
4. Error: sin Theta of the top-k subspace against ``Sigma``'s (the inliers'), k = 1 and 3; a
verdict is a 95 % Student t interval of the mean paired difference with the library's release,
and each loss against the clip's radii is run again on 60 further repetitions of its cell.

Usage: ``python benchmarks/sscm_weights.py [--reps R | --tiny] [--workers W] [--out DIR]``.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd

import dppca.releases.loading.sscm as sscm_release
from dppca import dp_loading
from dppca.numerics.sscm import KAPPA, Radii
from dppca.releases.loading.weights import heaviness, spread_epsilon

from _common import (
    cell_study_arguments,
    interval_table,
    markdown_table,
    paired_verdicts,
    provenance,
    run_cells,
    scored,
    script_intro,
    tally,
    write_markdown,
)
from directions import sample

LIBRARY = "adapted (library)"
FIXED = "clip's radii"
OUTER_HEAVY = "outer 10 tau on heavy tails"
NO_OUTER = "adapted, no outer weight"
METHODS = (LIBRARY, FIXED, OUTER_HEAVY, NO_OUTER)
DATA = [
    "gaussian",
    "t3",
    "cauchy",
    "outliers at 30",
    "outliers at 60",
    "outliers at 1000",
    "t3, outliers at 60",
    "cauchy, outliers at 60",
]
#: (data, d, n, epsilon).
CELLS = list(itertools.product(DATA, [5, 10, 50], [2000, 20000], [1.0, 4.0]))
#: The ``--tiny`` run's cells (seconds, for the test suite): adapted at n = 2,000.
TINY_CELLS = [("cauchy", 5, 2000, 4.0), ("outliers at 60", 5, 2000, 4.0)]


def draw(data: str, n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A sample of ``data`` and the truth (``Sigma``'s eigenvectors, descending): "TAILS,
    outliers at R" (TAILS Gaussian when left out) replaces 5 % of the rows by outliers at
    distance R along ``Sigma``'s last eigenvector."""
    if "outliers" not in data:
        return sample(data, n, d, rng)
    tails = data.split(", ")[0] if ", " in data else "gaussian"
    rows, basis = sample(tails, n, d, rng)
    bad = rng.random(n) < 0.05
    distance = float(data.rsplit(" ", 1)[1])
    rows[bad] = distance * basis[:, -1] + rng.standard_normal((int(bad.sum()), d))
    return rows, basis


def _outer_on_heavy_tails(adapted):
    """The first rule's radii: the library's inner radius, the outer ``3 (10 / 3)^h tau`` with
    the tails' heaviness ``h`` (:func:`~dppca.releases.loading.weights.heaviness`)."""

    def radii(clip: float, pair_scale: float, spread: float | None, strength: float) -> Radii:
        found = adapted(clip, pair_scale, spread, strength)
        if spread is None or strength == 0.0:
            return found
        heavy = heaviness(spread / pair_scale)
        return Radii(found.inner, KAPPA * (10.0 / KAPPA) ** heavy * clip)

    return radii


def _patched(method: str) -> dict:
    """The attributes of ``dppca.releases.loading.sscm`` that ``method`` replaces."""
    adapted = sscm_release.matrix_radii
    if method == FIXED:
        return {"spread_epsilon": lambda n, d, epsilon: 0.0}
    if method == OUTER_HEAVY:
        return {"matrix_radii": _outer_on_heavy_tails(adapted)}
    if method == NO_OUTER:
        return {"matrix_radii": lambda clip, *rest: Radii(adapted(clip, *rest).inner, 1e300)}
    return {}


def evaluate(cell: tuple[str, int, int, float], reps: int) -> list[dict]:
    """Every method on the same ``reps`` samples and seeds of one cell."""
    data, d, n, epsilon = cell
    rng = np.random.default_rng([d, int(epsilon), n, len(data)])
    rows = []
    for rep in range(reps):
        X, truth = draw(data, n, d, rng)
        seed = int(rng.integers(2**31))
        for method in METHODS:
            originals = {name: getattr(sscm_release, name) for name in _patched(method)}
            for name, replacement in _patched(method).items():
                setattr(sscm_release, name, replacement)
            try:
                result = dp_loading(
                    X,
                    epsilon,
                    1.0 / n**2,
                    statistic="sscm",
                    sampler="continuous",
                    random_state=seed,
                    progress=False,
                )
            finally:
                for name, original in originals.items():
                    setattr(sscm_release, name, original)
            score = scored(result.directions, truth, (1, 3))
            facts = {"data": data, "d": d, "n": n, "epsilon": epsilon, "rep": rep}
            rows += [
                {**facts, "method": method, "k": k, "sin_theta": score[f"k{k}"]} for k in (1, 3)
            ]
    return rows


#: Further repetitions on which each loss of the library's release against the clip's radii is
#: run again (144 cells at 95 % without a correction for multiplicity call about one in 40 a
#: loss between equal releases).
CONFIRM_REPS = 60


def confirmations(verdicts: pd.DataFrame, reps: int, further: int) -> list[str]:
    """Each cell where the library's release loses to the clip's radii, run again on the
    ``further`` repetitions after the first ``reps`` of its stream: the verdict there."""
    lines = []
    losses = verdicts[(verdicts["method"] == FIXED) & (verdicts["verdict"] == "loss")]
    for row in losses.itertuples(index=False):
        cell = (row.data, row.d, row.n, row.epsilon)
        rows = pd.DataFrame(evaluate(cell, reps + further))
        fresh = rows[(rows["rep"] >= reps) & (rows["k"] == row.k)]
        fresh = fresh[fresh["method"].isin([LIBRARY, FIXED])]
        again = paired_verdicts(fresh, LIBRARY, ["k"], "sin_theta").iloc[0]
        lines.append(
            f"- {row.data}, d={row.d}, n={row.n}, epsilon={row.epsilon:g}, k={row.k}: by "
            f"{row.mean:.4f} +- {row.half:.4f}; on {further} further repetitions: "
            f"{again['verdict']} {again['mean']:+.4f} +- {again['half']:.4f}"
        )
    return lines or ["None."]


def adapted_tally(verdicts: pd.DataFrame) -> str:
    """Wins/ties/losses against the clip's radii in the cells where the weights adapt (a
    spread is released); elsewhere the two releases are the same by construction."""
    against = verdicts[verdicts["method"] == FIXED]
    adapted = [spread_epsilon(r.n, r.d, r.epsilon) > 0 for r in against.itertuples()]
    inside = against[adapted]
    return (
        f"Against the clip's radii where the weights adapt ({len(inside)} of {len(against)} "
        f"cells): {tally(inside)}; in the others the releases are the same by construction."
    )


def tally_table(verdicts: pd.DataFrame) -> str:
    """Wins/ties/losses of the library's release against each method, by data set and n."""
    counts = {
        (data, n, method): tally(frame)
        for (data, n, method), frame in verdicts.groupby(["data", "n", "method"], sort=False)
    }
    table = pd.Series(counts).unstack()
    return markdown_table(
        table[[m for m in METHODS if m in table.columns]].rename_axis(["data", "n"]).reset_index()
    )


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = cell_study_arguments(argv, __doc__, 20)
    started = time.perf_counter()
    cells, reps = (TINY_CELLS, 2) if args.tiny else (CELLS, args.reps)
    results = run_cells(evaluate, cells, reps, 1 if args.tiny else args.workers)
    label = "sscm_weights_tiny" if args.tiny else "sscm_weights"
    keys = ["data", "d", "n", "epsilon", "k"]
    means = interval_table(results, keys, list(METHODS), 3)
    verdicts = paired_verdicts(results, LIBRARY, keys, "sin_theta")
    verdicts["difference"] = [
        f"{v} {m:+.3f} +- {h:.3f}" for v, m, h in verdicts[["verdict", "mean", "half"]].values
    ]
    paired = verdicts.pivot(index=keys, columns="method", values="difference")
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / f"{label}.csv.gz", index=False)
    write_markdown(
        args.out / f"{label}.md",
        [
            "# The SSCM's radial weights",
            script_intro(__doc__),
            f"{len(results) // 2} releases, {reps} repetitions per cell, at commit {provenance()}.",
            "## Tally: the library's release against each (wins, ties, losses over the cells)",
            tally_table(verdicts),
            adapted_tally(verdicts),
            "## Losses to the clip's radii, run again",
            "\n".join(confirmations(verdicts, reps, 2 if args.tiny else CONFIRM_REPS)),
            "## Mean sin Theta [95 % interval]",
            markdown_table(means),
            "## The library against each: verdict, mean paired difference (the library minus "
            "the other) +- half-width",
            markdown_table(paired[[m for m in METHODS if m in paired.columns]].reset_index()),
        ],
        started,
    )
    return results


if __name__ == "__main__":
    main()
