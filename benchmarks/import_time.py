"""How long ``import dppca`` takes in a fresh interpreter, beside what it cannot avoid.

Each statement runs in a new Python process, ``--repeats`` times, the statements interleaved so
that a busy machine slows them alike; the table gives the median wall time of the import (timed
inside the process, after the interpreter has started) and its ratio to ``import pandas,
scipy.linalg``, the two libraries every call needs.

Usage: ``python benchmarks/import_time.py [--repeats R] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from _common import save_table_report, script_intro, time_summary

STATEMENTS = {
    "import numpy": "import numpy",
    "import pandas, scipy.linalg": "import pandas, scipy.linalg",
    "import dppca": "import dppca",
    "import dppca, then DPPCA (scikit-learn)": "import dppca; dppca.DPPCA",
}
BASELINE = "import pandas, scipy.linalg"


def timed(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter."""
    code = (
        f"import time; start = time.perf_counter(); {statement}; print(time.perf_counter() - start)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    seconds: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(args.repeats):
        for name, statement in STATEMENTS.items():
            seconds[name].append(timed(statement))
    baseline = statistics.median(seconds[BASELINE])
    table = time_summary(seconds, "statement")
    table["ratio_to_pandas_scipy"] = table["median_s"] / baseline
    save_table_report(
        table,
        args.out,
        "import_time",
        ["# Import time", script_intro(__doc__), f"{args.repeats} runs of each, interleaved."],
        started,
    )
    return table


if __name__ == "__main__":
    main()
