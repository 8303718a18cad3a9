"""Wall time of the student's command, ``pytest tests/test_mlp.py`` (or ``--suite``), torch import included.

Runs it as a student would (a fresh process each time) on the reference (every test runs to the
end: the slowest case) and on the stubs (every test fails at once), and prints the median, min and
max over the runs, with the CPU time the run and its child processes used (user + system): on a
machine shared with other work the wall time grows, the CPU time much less. benchmarks/README.md
records the median; the budget is 5 s on a 2-core machine for the MLP/GLU suite and 30 s for the fused SwiGLU
suite, all three of its files (``--suite 'tests -m swiglu' --budget 30``).

    python benchmarks/student_suite_time.py [--runs 7] [--suite 'tests -m swiglu' --budget 30]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_S = 5.0


def cpu_seconds() -> tuple[float, float]:
    """(user, system) seconds of the child processes waited for so far, theirs included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime, used.ru_stime


def wall_time(suite: str, target: str) -> tuple[float, float, float]:
    """(wall, user, system) seconds of one run."""
    env = {k: v for k, v in os.environ.items() if k != "EXERCISE_TARGET"}
    user, system = cpu_seconds()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", *suite.split(), "-q", "--target", target],
                          cwd=REPO, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    user, system = (now - before for now, before in zip(cpu_seconds(), (user, system)))
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-200:]
    print(f"  {target:<10} {elapsed:5.2f} s wall, {user:5.2f} s user, {system:4.2f} s system   {last}", flush=True)
    return elapsed, user, system


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per target (default 7)")
    parser.add_argument("--suite", default="tests/test_mlp.py",
                        help="the suite to time, as pytest's arguments (default tests/test_mlp.py; a whole task:"
                        " 'tests -m swiglu')")
    parser.add_argument("--budget", type=float, default=BUDGET_S, help=f"seconds allowed (default {BUDGET_S:g})")
    args = parser.parse_args()
    print(f"pytest {args.suite}, {args.runs} runs per target, {os.cpu_count()} cores,"
          f" load average {os.getloadavg()[0]:.1f} at the start")
    worst = 0.0
    for target in ("reference", "exercises"):
        runs = [wall_time(args.suite, target) for _ in range(args.runs)]
        times = [wall for wall, _, _ in runs]
        median = statistics.median(times)
        worst = max(worst, median)
        print(f"{target}: median {median:.2f} s wall (min {min(times):.2f}, max {max(times):.2f});"
              f" median {statistics.median(user for _, user, _ in runs):.2f} s user,"
              f" {statistics.median(system for _, _, system in runs):.2f} s system")
    print(f"slowest median {worst:.2f} s against a budget of {args.budget:.1f} s:"
          f" {'within' if worst <= args.budget else 'OVER'} budget")
    return 0 if worst <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
