"""The maintainer command: ``python -m selfcheck``. Everything here must pass before a change lands.

1. the checks of the checks (``pytest selfcheck``): each suite passes on the reference (judged by
   the live reference, and in the student release by its recorded answers, the snapshot: a failure
   there, the recorded answers have drifted, ``python -m grader.judge.snapshot`` records them again), wrong
   implementations fail, correct ones pass, the stubs fail with their pointers, the grader cannot be
   gamed, the notebook's twin is in step;
2. the notebooks, outputs included, under nbval in strict mode.

Each step is its own pytest run (they need different options), in one of four lanes that run side by
side; the last line adds them up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.paths import REPO
from grader.tasks import TASK_NAMES
from selfcheck.sample import FULL_ENV

# Four lanes run side by side, each its steps in order. Every lane's steps wait part of the time (sandbox
# start-ups, time limits that must expire, the slowest of a batch), so more lanes than cores keep a 2-core machine
# busy. Balanced by each step's CPU seconds alone (``python benchmarks/step_cpu.py``; benchmarks/README.md): move a
# step between lanes when one lane ends minutes after the others (``python -m selfcheck --durations=100`` shows why).
POOL_CHECKS = ["selfcheck/test_mlp_variants.py", "selfcheck/test_cost_variants.py", "selfcheck/test_triton_variants.py",
               "selfcheck/test_gated_mlp_variants.py", "selfcheck/test_task_variants.py", "selfcheck/test_seed_stability.py"]
ATTACK_CHECKS = ["selfcheck/test_grader_attacks.py"]
PLATFORM_CHECKS = ["selfcheck/test_platform_check.py"]
NEW_TASK_CHECKS = ["selfcheck/test_new_task.py"]  # python -m instructor --new-task in a copy of the checkout
GRADER_CHECKS = ["selfcheck/test_grader_reports.py", "selfcheck/test_classroom50.py",
                 "selfcheck/test_submission_budget.py", "selfcheck/test_bonus.py", "selfcheck/test_batch_intake.py"]
DELIVERY_CHECKS = ["selfcheck/test_release.py"]
# (name, title, pytest arguments, lane): ``python -m selfcheck --step NAME`` runs one step alone.
# (The graded suites on the reference against its snapshot are run by the release's check,
# test_reference_copied_in_passes_every_suite, in the student release itself: not again here.)
STEPS = [
    ("pools", "self-checks of the suites on their variants: the pools, the policy and seed panels", POOL_CHECKS, 0),
    ("notebooks", "notebooks (nbval, strict)", ["-p", "nbval", "--nbval", "--nbval-current-env", "notebooks"], 0),
    ("attacks", "self-checks of the grader: a hostile student's attacks", ATTACK_CHECKS, 1),
    ("platforms", "self-checks of the platform checks (Gradescope, PrairieLearn, Classroom 50)", PLATFORM_CHECKS, 1),
    ("grader", "self-checks of the grader: reports, budgets, autograders, intake", GRADER_CHECKS, 2),
    ("new-task", "a task made by python -m instructor --new-task, in a copy of this checkout", NEW_TASK_CHECKS, 2),
    ("checks", "self-checks of the suites: documents, stubs, kernels, judges",
     ["selfcheck", *(f"--ignore={path}" for path in POOL_CHECKS + ATTACK_CHECKS + PLATFORM_CHECKS + NEW_TASK_CHECKS
                     + GRADER_CHECKS + DELIVERY_CHECKS)], 3),
    ("delivery", "self-checks of the student release", DELIVERY_CHECKS, 3),
]


def task_steps(task: str) -> list[tuple[str, str, list[str], int]]:
    """The steps of ``--task NAME``: what a change to one task needs checked, in a few minutes. The self-checks
    of a task are those carrying its marker (a module's ``pytestmark``, a parameter's ``marks``), graded in full."""
    return [
        ("suite", f"{task}'s suites on the reference", ["tests", "-m", task, "--target", "reference"], 0),
        ("recorded", f"{task}'s suites on the reference's recorded answers (the student release's)",
         ["tests", "-m", task, "--target", "reference", "--reference", "snapshot"], 0),
        ("docs", "the documents and the stubs", ["selfcheck/test_docs.py", "selfcheck/test_stubs.py"], 0),
        ("checks", f"the self-checks of {task}: its variants, panels, margins", ["selfcheck", "-m", task], 1),
    ]


# One torch thread per process: the lanes, and the processes each starts side by side, already keep
# every core busy. A second thread only fights them: where a parallel operation's threads wait for each
# other while one of them is off its core, the self-checks' own PyTorch arithmetic (the 16-bit margins)
# took 34 s beside the other lane instead of 1.7 s alone. Every process a step starts inherits it.
ONE_THREAD = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
USAGE = f"""usage: python -m selfcheck [--list] [--full] [--step NAME ...] [--task NAME] [PYTEST OPTIONS]

The maintainer command: every step below, in four lanes side by side; exit 0 when all pass.
  --list        the steps, and the pytest command each runs
  --full        grade every Triton variant and policy panel in full, not this commit's share (selfcheck/sample.py)
  --step NAME   run only this step (repeat for several): {', '.join(name for name, *_ in STEPS)}
  --task NAME   check one task instead, in a few minutes: its suites on the reference and on its recorded
                answers, its self-checks in full, the documents and stubs (one of {', '.join(TASK_NAMES)})
Any other option goes to every step's pytest (e.g. --durations=20, -x)."""


def count(report: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) from a junit report; errors count as failures."""
    passed = failed = skipped = 0
    for suite in ET.parse(report).getroot().iter("testsuite"):
        total = int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skip = int(suite.get("skipped", 0))
        passed, failed, skipped = passed + total - bad - skip, failed + bad, skipped + skip
    return passed, failed, skipped


def run_step(title: str, args: list[str], argv: list[str]) -> tuple[int, tuple[int, int, int], float, str]:
    """One step's pytest run: (exit code, counts, seconds, its output)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", f"--junitxml={report}", *argv],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ONE_THREAD)
        seconds = time.perf_counter() - start
        return proc.returncode, count(report) if report.exists() else (0, 0, 0), seconds, proc.stdout


def parse(argv: list[str]) -> tuple[list[tuple], list[str]] | None:
    """(the steps to run, the options for pytest); None where this command has answered itself (--help, --list)."""
    names = [name for name, *_ in STEPS]
    chosen, rest, args, steps = [], [], list(argv), STEPS
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            print(USAGE)
            return None
        if arg == "--list":
            for name, title, step_args, lane in STEPS:
                print(f"{name:<10} lane {lane}: {title}\n           pytest {' '.join(step_args)}")
            return None
        if arg == "--full":
            ONE_THREAD[FULL_ENV] = "1"
            continue
        if arg == "--task" or arg.startswith("--task="):
            task = arg.partition("=")[2] or (args.pop(0) if args else "")
            if task not in TASK_NAMES:
                raise SystemExit(f"--task {task!r}: the tasks are {', '.join(TASK_NAMES)}")
            steps = task_steps(task)
            ONE_THREAD[FULL_ENV] = "1"  # one task's variants and panels, every one of them
            continue
        if arg == "--step" or arg.startswith("--step="):
            name = arg.partition("=")[2] or (args.pop(0) if args else "")
            if name not in names:
                raise SystemExit(f"--step {name!r}: the steps are {', '.join(names)}")
            chosen.append(name)
        else:
            rest.append(arg)
    if chosen and steps is not STEPS:
        raise SystemExit("--step and --task: give one (a task's steps are its own)")
    return [step for step in steps if not chosen or step[0] in chosen], rest


def main(argv: list[str]) -> int:
    parsed = parse(argv)
    if parsed is None:
        return 0
    steps, argv = parsed
    totals = [0, 0, 0]
    broken = []
    lock = threading.Lock()
    started = time.perf_counter()

    def lane(number: int) -> None:
        for _, title, args, in_lane in steps:
            if in_lane != number:
                continue
            code, (passed, failed, skipped), seconds, output = run_step(title, args, argv)
            with lock:  # a step's output is printed whole when it ends, never interleaved with another's
                print(f"\n=== {title}: pytest {' '.join(args)} {' '.join(argv)}".rstrip())
                print(output.rstrip())
                print(f"--- {title}: {passed} passed, {failed} failed, {skipped} skipped in {seconds:.1f}s"
                      f" (pytest exit {code})", flush=True)
                # Exit 5 (nothing collected) is a failure too: a step that ran no test checked nothing.
                if code != 0 or passed == 0:
                    broken.append(title)
                for i, n in enumerate((passed, failed, skipped)):
                    totals[i] += n

    lanes = [threading.Thread(target=lane, args=(n,)) for n in sorted({step[3] for step in steps})]
    for thread in lanes:
        thread.start()
    for thread in lanes:
        thread.join()
    if broken:
        print(f"\nFAILED steps: {', '.join(broken)}")
    print(f"\nselfcheck: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped"
          f" in {time.perf_counter() - started:.0f}s")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
