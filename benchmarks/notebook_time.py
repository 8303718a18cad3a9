"""Wall time of each notebook under nbval in strict mode, as the maintainer command runs it.

One fresh pytest process per run (kernel start included), on each notebook in ``notebooks/``; prints
the median, min and max over the runs. benchmarks/README.md records the medians; the budget is 60 s per notebook
on a 2-core machine.

    python benchmarks/notebook_time.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_S = 60.0


def wall_time(notebook: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "nbval", "--nbval", "--nbval-current-env",
                           str(notebook.relative_to(REPO)), "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-200:]
    print(f"  {notebook.name:<22} {elapsed:6.2f} s   {last}", flush=True)
    if proc.returncode != 0:
        raise SystemExit(f"{notebook.name} failed under nbval: {last}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per notebook (default 3)")
    args = parser.parse_args()
    print(f"nbval, strict, {args.runs} runs per notebook, {os.cpu_count()} cores")
    worst = 0.0
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        times = [wall_time(notebook) for _ in range(args.runs)]
        median = statistics.median(times)
        worst = max(worst, median)
        print(f"{notebook.name}: median {median:.1f} s (min {min(times):.1f}, max {max(times):.1f})")
    print(f"slowest median {worst:.1f} s against a budget of {BUDGET_S:.0f} s:"
          f" {'within' if worst <= BUDGET_S else 'OVER'} budget")
    return 0 if worst <= BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
