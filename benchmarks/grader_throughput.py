"""How many MLP+GLU submissions per minute ``python -m instructor --batch`` grades on this machine.

Makes N submission folders, each holding an ``mlp_block.py``: mostly correct ones (the self-checks'
``correct_*`` variants), some wrong ones (other variants), the stubs, and a few broken ones (a syntax
error, a file without the classes, a crash at import). Grades them with ``--batch`` as an instructor
would, all tasks included (the SwiGLU tests fail fast on a submission without ``triton_swiglu.py``),
and prints submissions per minute; with ``--runs R`` the median of R batches.

    python benchmarks/grader_throughput.py                 # 30 submissions, jobs = cores, 1 run
    python benchmarks/grader_throughput.py --runs 3 --submissions 40 --jobs 2
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANTS = REPO / "selfcheck" / "variants" / "mlp_block"

BROKEN = {
    "syntax_error": "class MLP(nn.Module:\n    pass\n",
    "crash_at_import": "import ctypes\nctypes.string_at(0)\n",
    "no_classes": "",  # an empty folder would be a skipped entry, not a row
}


def make_submissions(folder: Path, count: int) -> dict[str, str]:
    """``count`` submission folders in ``folder``; returns name -> kind (correct/wrong/stubs/broken)."""
    correct = sorted(VARIANTS.glob("correct_*.py"))
    wrong = sorted(p for p in VARIANTS.glob("*.py") if not p.name.startswith("correct_"))
    if not correct:
        raise SystemExit(f"no correct variants in {VARIANTS}")
    kinds = {}
    for i in range(count):
        sub = folder / f"student_{i:03d}"
        sub.mkdir()
        slot = i % 10
        if slot < 7:
            kinds[sub.name] = "correct"
            shutil.copy(correct[i % len(correct)], sub / "mlp_block.py")
        elif slot == 7 and wrong:
            kinds[sub.name] = "wrong"
            shutil.copy(wrong[i % len(wrong)], sub / "mlp_block.py")
        elif slot == 8:
            kinds[sub.name] = "stubs"
            shutil.copy(REPO / "exercises" / "mlp_block.py", sub / "mlp_block.py")
        else:
            name = list(BROKEN)[i % len(BROKEN)]
            kinds[sub.name] = f"broken ({name})"
            (sub / "mlp_block.py").write_text("from torch import nn\n" + BROKEN[name])
    return kinds


def run_batch(count: int, jobs: int, extra: list[str]) -> tuple[float, list[dict]]:
    with tempfile.TemporaryDirectory(prefix="grader-throughput-") as tmp:
        folder, grades = Path(tmp) / "submissions", Path(tmp) / "grades.csv"
        folder.mkdir()
        kinds = make_submissions(folder, count)
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "instructor", "--batch", str(folder), "--csv", str(grades),
                               "--jobs", str(jobs), *extra], cwd=REPO, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"the batch failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        with open(grades, newline="") as f:
            rows = list(csv.DictReader(f))
    for row in rows:
        row["kind"] = kinds[row["submission"]]
    return seconds, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=1, help="batches to time; the median is reported")
    parser.add_argument("--tasks", help="pass --tasks to the grader (e.g. mlp,glu); default: every task")
    args = parser.parse_args()
    extra = ["--tasks", args.tasks] if args.tasks else []
    rates = []
    for run in range(args.runs):
        seconds, rows = run_batch(args.submissions, args.jobs, extra)
        rate = len(rows) / seconds * 60
        rates.append(rate)
        correct = [r for r in rows if r["kind"] == "correct"]
        full = sum(int(r["mlp"]) == int(r["mlp_max"]) and int(r["glu"]) == int(r["glu_max"]) for r in correct)
        errors = sum(r["status"] != "graded" for r in rows)
        print(f"run {run + 1}: {len(rows)} submissions in {seconds:.1f} s = {rate:.1f}/min"
              f"  (correct ones with full MLP+GLU marks: {full}/{len(correct)}; grader errors: {errors})",
              flush=True)
        if full != len(correct) or errors:
            print("  the grades are wrong: the timing does not count", file=sys.stderr)
            for r in rows:
                bad = r["status"] != "graded" or (r["kind"] == "correct" and r["mlp"] != r["mlp_max"] or
                                                  r["kind"] == "correct" and r["glu"] != r["glu_max"])
                if bad:
                    print(f"  {r['submission']} ({r['kind']}): {r['status']} {r['mlp']}/{r['mlp_max']}"
                          f" {r['glu']}/{r['glu_max']} {r['first_failure']}", file=sys.stderr)
            return 1
    print(f"\nthroughput: {statistics.median(rates):.1f} submissions/min (median of {len(rates)};"
          f" {args.submissions} submissions, --jobs {args.jobs}, {os.cpu_count()} cores,"
          f" isolation: {rows[0]['isolation']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
