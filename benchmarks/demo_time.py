"""How long ``dppca demo`` makes a user wait, beside the work it cannot avoid.

Each command runs in a new Python process, ``--repeats`` times, the commands interleaved so that
a busy machine slows them alike; the table gives the median and least wall time of each, as the
user sees it (interpreter start included), and its ratio to the demo:

* ``dppca demo``: the whole job (release, every panel and the page as PNG and SVG, the report,
  and the non-private reference page);
* ``the release alone``: the interpreter, ``import dppca``, the data and the same
  ``dp_pca`` call (scree, score histogram by superpopulation, directions) without any figure;
* ``import dppca.cli``: the interpreter and the command line's imports.

Usage: ``python benchmarks/demo_time.py [--repeats R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from _common import save_table_report, script_intro, time_summary

RELEASE = """
import dppca
from dppca.datasets import load_1kg_aisnps
X, labels = load_1kg_aisnps("kidd")
dppca.dp_pca(
    X, 4.0, 1e-7, groups=labels["superpopulation"].to_numpy(), non_private=True,
    scree={"method": "clipped", "k": 10},
    score={"method": "thresholded", "group_levels": ["AFR", "AMR", "EAS", "EUR", "SAS"]},
)
"""


def commands(folder: Path) -> dict[str, list[str]]:
    demo = ["demo", "--out", str(folder / "demo"), "--overwrite", "--quiet"]
    return {
        "dppca demo": [sys.executable, "-m", "dppca", *demo],
        "the release alone": [sys.executable, "-c", RELEASE],
        "import dppca.cli": [sys.executable, "-c", "import dppca.cli"],
    }


def wall_time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        runs = commands(Path(folder))
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, command in runs.items():
                seconds[name].append(wall_time(command))
    table = time_summary(seconds, "command")
    table["share_of_demo"] = table["median_s"] / table["median_s"].iloc[0]
    save_table_report(
        table,
        args.out,
        "demo_time",
        ["# Demo time", script_intro(__doc__), f"{args.repeats} runs of each, interleaved."],
        started,
    )
    print(table.to_string(index=False))
    return table


if __name__ == "__main__":
    main()
