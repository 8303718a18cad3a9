"""How long an honest submission takes to grade alone, and beside a CPU hog in ``--batch --jobs 2``.

The hog is ``selfcheck/attacks/cpu_hog``: as many busy processes as the limits allow, each in a session
of its own, while every test of its own waits for its timeout. Each submission's processes share one
core's worth of CPU (a cgroup), so the neighbour should take about as long beside it as alone on a
machine with two cores free. Prints the neighbour's grading time (the batch CSV's ``seconds``), median of
R runs, for the MLP+GLU tasks and for the SwiGLU task. Once the neighbour's row is written the batch is
stopped as with Ctrl-C (the hog's own tests would only wait for their timeouts).

    python benchmarks/neighbour_beside_hog.py [--runs 3] [--grader-repo PATH] [--only mlp,glu|swiglu]

``--grader-repo`` grades with another checkout's grader (to compare with an older version); the
submissions always come from this checkout.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOG = REPO / "selfcheck" / "attacks" / "cpu_hog"
# What the neighbour is graded on -> (the tasks the batch grades, its files). For SwiGLU the batch grades
# the MLP and GLU tasks too: the neighbour has no mlp_block.py (those tests fail at once), and the hog,
# which has no kernels, hangs in them from the start, as it would beside a whole-course submission.
NEIGHBOUR = {
    "mlp,glu": ("mlp,glu", {"mlp_block.py": REPO / "selfcheck" / "variants" / "mlp_block" / "correct_textbook.py"}),
    "swiglu": ("mlp,glu,swiglu", {"triton_swiglu.py": REPO / "solution" / "hidden" / "reference_triton_swiglu.py"}),
}
# Long enough that the hog's tests outlast the neighbour's grading, even the slow one a hog causes
# without CPU limits; the batch is stopped once the neighbour is graded.
LIMITS = ["--call-timeout", "30", "--budget", "90"]


def neighbour_seconds(grader_repo: Path, graded_on: str, beside_hog: bool) -> float:
    tasks, files = NEIGHBOUR[graded_on]
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch"
        (batch / "neighbour").mkdir(parents=True)
        for name, source in files.items():
            shutil.copy(source, batch / "neighbour" / name)
        if beside_hog:
            shutil.copytree(HOG, batch / "hog")
        grades = Path(tmp) / "grades.csv"
        proc = subprocess.Popen([sys.executable, "-m", "instructor", "--batch", str(batch), "--csv", str(grades),
                                 "--jobs", "2", "--sandbox", "bwrap", "--tasks", tasks, *LIMITS],
                                cwd=grader_repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(grader_repo)})
        row = None
        while row is None and proc.poll() is None:  # the hog's own grading is not waited for
            time.sleep(0.5)
            row = neighbour_row(grades)
        if row is None:
            row = neighbour_row(grades)
        proc.send_signal(signal.SIGINT)  # as Ctrl-C: the batch kills its children and stops
        _, err = proc.communicate(timeout=120)
        if row is None:
            sys.exit(f"the batch ended without grading the neighbour ({proc.returncode}): {err[-2000:]}")
        for task in graded_on.split(","):
            if row[task] != row[f"{task}_max"]:
                sys.exit(f"the neighbour lost points in {task} ({row[task]}/{row[f'{task}_max']}):"
                         f" {row['first_failure']}")
        return float(row["seconds"])


def neighbour_row(grades: Path) -> dict | None:
    if not grades.exists():
        return None
    with open(grades, newline="") as f:
        return next((r for r in csv.DictReader(f) if r["submission"] == "neighbour"), None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--grader-repo", type=Path, default=REPO)
    p.add_argument("--only", choices=list(NEIGHBOUR), help="measure one of the two only")
    args = p.parse_args()
    print(f"grader: {args.grader_repo.resolve()}; {os.cpu_count()} cores; median of {args.runs} runs")
    for graded_on in [args.only] if args.only else NEIGHBOUR:
        for beside in (False, True):
            times = [neighbour_seconds(args.grader_repo.resolve(), graded_on, beside) for _ in range(args.runs)]
            where = "beside the hog" if beside else "alone        "
            print(f"  {graded_on:8} {where}: {statistics.median(times):6.1f} s  (runs: "
                  + ", ".join(f"{t:.1f}" for t in times) + ")", flush=True)


if __name__ == "__main__":
    main()
