"""Statistical privacy audits of every mechanism, with many draws (slow).

For each mechanism on its worst-case neighbours: the lower confidence bound (95 %) on the
epsilon its outputs reveal, for the mechanism as shipped and for a broken variant run with more
epsilon than it claims (which must be flagged). Prints a Markdown table and saves it.

Usage: ``python benchmarks/privacy_audit.py [--draws N] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from dppca.audit import audit, scenarios


def run(draws: int) -> pd.DataFrame:
    rows = []
    for name, scenario in scenarios().items():
        count = max(draws // 6, 50) if name == "dp_pca directions" else draws
        start = time.perf_counter()
        correct = audit(scenario, count, seed=1)
        broken = audit(scenario, count, seed=2, broken=True)
        rows.append(
            {
                "mechanism": name,
                "claimed epsilon": scenario.epsilon,
                "delta": scenario.delta,
                "draws per neighbour": count,
                "bound (as shipped)": correct.lower_bound,
                "within claim": not correct.flagged,
                "bound (broken: epsilon x factor)": broken.lower_bound,
                "break factor": scenario.break_factor,
                "broken flagged": broken.flagged,
                "seconds": time.perf_counter() - start,
            }
        )
        print(f"{name}: {correct.lower_bound:.3f} / broken {broken.lower_bound:.3f}", flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000)
    parser.add_argument("--quick", action="store_true", help="200 draws (seconds)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    table = run(200 if args.quick else args.draws)
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    for row in table.itertuples(index=False):
        lines.append(
            "| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row) + " |"
        )
    text = (
        "# Privacy audits\n\nLower 95 % confidence bounds on the epsilon revealed by each "
        "mechanism on worst-case neighbours (threshold test on a one-dimensional statistic, "
        "Clopper-Pearson).\n\n" + "\n".join(lines) + "\n"
    )
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "privacy_audit_quick" if args.quick else "privacy_audit"
    (args.out / f"{name}.md").write_text(text)
    return table


if __name__ == "__main__":
    main()
