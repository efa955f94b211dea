"""Scale on one machine: the Kendall kernel's speed and memory at large n, and the accuracy of
the incomplete design against its degree k.

Sections (each prints a Markdown table and saves it under ``--out``):

* ``speed``: at n = 10^6, d = 50, the circulant design with k = 64 (``pairs=64``) against its
  arithmetic floor measured in the same run, 32 products ``X^T X`` (the design forms 32 n x d
  difference matrices and their Gram matrices), and against a plain numpy loop over the same 32
  cyclic shifts (difference, row norms, scaling, ``D^T D`` in blocks of 10^5 rows); the full
  U-statistic at n = 50,000, d = 50 against the two dense products per tile of its Laplacian
  form. Peak memory is the tracemalloc peak of one call (numpy reports its allocations), next
  to the input's size.
* ``pairs``: sin Theta of the top-2 private directions (``dp_loading``'s own mechanism, default
  discrete sampler, epsilon in {0.5, 1, 2, 5}, delta = 1/n^2) on the spiked Gaussian model of
  the simulation study (d = 50, two spikes of 10) at n = 20,000 and 100,000, for k = 8 to 256
  and all pairs, on the same samples and noise seeds; and on the embedded 1000 Genomes
  genotypes sorted by population against the same rows shuffled.

Usage: ``python benchmarks/scale.py [--quick] [--section speed|pairs] [--reps R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import kendall_matrix
from dppca.baselines import sin_theta
from dppca.datasets import load_1kg_aisnps
from dppca.numerics.kendall import unit_error_bound
from dppca.numerics.linalg import descending_eigh
from dppca.numerics.signs import SphericalSign
from dppca.privacy.mechanisms import Noise
from dppca.releases.loading import kendall_mechanism

from _common import markdown_table
from kendall_speed import blas_description, dense_products

LAMBDA, SPIKES = 10.0, 2
DEGREES = [8, 16, 32, 64, 128, 256, "all"]
EPSILONS = [0.5, 1.0, 2.0, 5.0]


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value


def peak_mib(function, *args) -> float:
    tracemalloc.start()
    function(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def gram_floor(X: np.ndarray, products: int) -> None:
    for _ in range(products):
        X.T @ X


def plain_loop(X: np.ndarray, shifts: int, block: int = 100_000) -> np.ndarray:
    """Spherical signs of ``x_i - x_{i+c}`` for ``c = 1 .. shifts``, summed as ``D^T D``."""
    n, d = X.shape
    total = np.zeros((d, d))
    for c in range(1, shifts + 1):
        for start in range(0, n, block):
            stop = min(start + block, n)
            D = X[start:stop] - X.take(np.arange(start + c, stop + c) % n, axis=0)
            D /= np.sqrt(np.einsum("ij,ij->i", D, D))[:, None]
            total += D.T @ D
    return total


def speed(quick: bool) -> pd.DataFrame:
    rows = []
    n, d, k = (100_000, 50, 64) if quick else (1_000_000, 50, 64)
    X = np.random.default_rng(0).standard_normal((n, d))
    design = lambda: kendall_matrix(X, pairs=k, random_state=0, progress=False)  # noqa: E731
    ours, _ = timed(design)
    floor, _ = timed(gram_floor, X, k // 2)
    loop, _ = timed(plain_loop, X, k // 2)
    rows.append(
        {
            "statistic": f"pairs={k}",
            "n": n,
            "d": d,
            "ours_s": ours,
            "floor_s": floor,
            "floor": f"{k // 2} X'X",
            "ours/floor": ours / floor,
            "plain loop_s": loop,
            "peak_MiB": peak_mib(design),
            "input_MiB": X.nbytes / 2**20,
        }
    )
    print(rows[-1])
    n = 5_000 if quick else 50_000
    X = X[:n].copy()
    full = lambda: kendall_matrix(X, pairs="all", progress=False)  # noqa: E731
    ours, _ = timed(full)
    floor, _ = timed(dense_products, X)
    rows.append(
        {
            "statistic": "all pairs",
            "n": n,
            "d": d,
            "ours_s": ours,
            "floor_s": floor,
            "floor": "2 products per tile",
            "ours/floor": ours / floor,
            "plain loop_s": float("nan"),
            "peak_MiB": peak_mib(full),
            "input_MiB": X.nbytes / 2**20,
        }
    )
    print(rows[-1])
    return pd.DataFrame(rows)


def spiked_sample(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    U, _ = np.linalg.qr(rng.standard_normal((d, SPIKES)))
    X = rng.standard_normal((n, d)) + np.sqrt(LAMBDA) * rng.standard_normal((n, SPIKES)) @ U.T
    return X, U


def private_errors(
    kendall: np.ndarray, truth: np.ndarray, n: int, degree, seed: int
) -> dict[float, float]:
    """sin Theta of dp_loading's release of this unit-space matrix at every epsilon."""
    p = kendall.shape[0]
    error = unit_error_bound(p, SphericalSign(), None if degree == "all" else degree)
    errors = {}
    for epsilon in EPSILONS:
        mechanism = kendall_mechanism(
            n, p, error, epsilon, 1.0 / n**2, "tight", "analytic", "discrete"
        )
        noise = Noise("discrete", np.random.default_rng([seed, int(10 * epsilon)]))
        noisy = mechanism.randomise_symmetric(kendall, noise)
        errors[epsilon] = sin_theta(descending_eigh(noisy)[1][:, : truth.shape[1]], truth)
    return errors


def degree_study(quick: bool, reps: int) -> pd.DataFrame:
    records = []
    sizes = [(5_000, 20)] if quick else [(20_000, 50), (100_000, 50)]
    for n, d in sizes:
        for rep in range(reps):
            X, U = spiked_sample(n, d, np.random.default_rng([n, d, rep]))
            for degree in DEGREES:
                seconds, kendall = timed(
                    kendall_matrix, X, "spherical", None, degree, rep, progress=False
                )
                no_noise = sin_theta(descending_eigh(kendall)[1][:, :SPIKES], U)
                for epsilon, error in private_errors(kendall, U, n, degree, rep).items():
                    records.append(
                        {
                            "data": "spiked Gaussian",
                            "n": n,
                            "d": d,
                            "k": str(degree),
                            "epsilon": epsilon,
                            "rep": rep,
                            "sin_theta": error,
                            "sin_theta_no_noise": no_noise,
                            "seconds": seconds,
                        }
                    )
            print(f"n={n} rep={rep} done")
    genotypes, labels = load_1kg_aisnps("kidd")
    X = genotypes.to_numpy(dtype=float)
    sorted_rows = X[np.argsort(labels["population"].to_numpy(), kind="stable")]
    reference = descending_eigh(kendall_matrix(X, progress=False))[1][:, :2]
    n, d = X.shape
    for rep in range(reps):
        shuffled = sorted_rows[np.random.default_rng(rep).permutation(n)]
        for layout, rows in (("sorted by population", sorted_rows), ("shuffled", shuffled)):
            for degree in (8, 32, 64, "all"):
                kendall = kendall_matrix(rows, pairs=degree, random_state=rep, progress=False)
                no_noise = sin_theta(descending_eigh(kendall)[1][:, :2], reference)
                for epsilon, error in private_errors(kendall, reference, n, degree, rep).items():
                    records.append(
                        {
                            "data": f"1000 Genomes, {layout}",
                            "n": n,
                            "d": d,
                            "k": str(degree),
                            "epsilon": epsilon,
                            "rep": rep,
                            "sin_theta": error,
                            "sin_theta_no_noise": no_noise,
                            "seconds": float("nan"),
                        }
                    )
    return pd.DataFrame(records)


def degree_summary(records: pd.DataFrame) -> pd.DataFrame:
    summary = (
        records.groupby(["data", "n", "d", "k", "epsilon"], sort=False)
        .agg(
            median=("sin_theta", "median"),
            worst=("sin_theta", "max"),
            no_noise_median=("sin_theta_no_noise", "median"),
            seconds=("seconds", "median"),
        )
        .reset_index()
    )
    full = summary[summary["k"] == "all"].set_index(["data", "n", "d", "epsilon"])["median"]
    keys = list(zip(summary["data"], summary["n"], summary["d"], summary["epsilon"], strict=True))
    summary["median/all"] = [
        row / full.get(key, float("nan")) for row, key in zip(summary["median"], keys, strict=True)
    ]
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--section", choices=["speed", "pairs"], action="append")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    sections = args.section or ["speed", "pairs"]
    suffix = "_quick" if args.quick else ""
    args.out.mkdir(parents=True, exist_ok=True)
    machine = f"Python {platform.python_version()}, numpy {np.__version__}, {blas_description()}."
    if "speed" in sections:
        table = speed(args.quick)
        text = f"# Kernel speed at scale\n\n{machine}\n\n{markdown_table(table)}\n"
        (args.out / f"scale_speed{suffix}.md").write_text(text)
        print(text)
    if "pairs" in sections:
        records = degree_study(args.quick, 2 if args.quick else args.reps)
        records.to_csv(args.out / f"scale_pairs{suffix}.csv.gz", index=False)
        summary = degree_summary(records)
        text = (
            "# Accuracy of the incomplete design against its degree k\n\n"
            f"{machine} Median and worst sin Theta over {records['rep'].nunique()} samples; "
            "`median/all`: against all pairs on the same samples and noise seeds.\n\n"
            f"{markdown_table(summary)}\n"
        )
        (args.out / f"scale_pairs{suffix}.md").write_text(text)
        print(text)


if __name__ == "__main__":
    main()
