"""The platform check: before the first student submits, does grading work on the platform itself?

``python -m instructor --gradescope-bundle ZIP --platform-check``, ``--prairielearn-grader DIR
--platform-check`` and ``--classroom50 DIR --platform-check`` make, instead of an autograder, a package
the platform runs as it runs one (the same ``setup.sh``, image or runtime, the same limits), which grades
no one: it reads nothing of the submission it is started for, and its result scores 0 (Gradescope: score
0, every test worth 0; PrairieLearn: score 0, every test 0 of 0; Classroom 50: 0 of 0), every test named
"Platform check: ...". It reports three checks, where the platform shows results (Gradescope's and
PrairieLearn's results.json, Classroom 50's job log, result and Release):

* sandbox: whether a sandboxed child starts there (``check_child_can_start``, the start check grading
  for credit makes first), and how the children ran (the isolation, every detail: uid, cgroups);
* reference: the package's own reference (``solution/hidden``), copied in as exercise files and graded
  in the sandbox with the platform's limits, as a submission is: full marks, or what it lost;
* time: the grade's time there (installs included) against the platform's stop, the worst case the
  limits allow (a submission that hangs in every task), and a second grade of the reference with half
  of each budget and call timeout: full marks there mean a correct solution twice as slow still fits.
  (The budgets count only the time of the submission's processes, which no wall clock outside the
  grade can tell apart from the grader's own: so the grader's own budgets measure it.)

No autograder holds this module (``instructor/exports.py`` ships it in check packages only), so no
submission to an assignment can make one run it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from grader import report
from grader.cli import EXIT_GRADER_ERROR, hide_gpus_from_grading
from grader.grading import TASK_TITLES, GraderFailure, check_child_can_start, grade
from grader.paths import reference_file
from grader.probes.safe_text import markdown_cell, printable
from grader.results import Grade
from grader.sandbox import Limits
from grader.tasks import TASKS, parse_tasks
from instructor.classroom50 import (INSTALLED_ENV, RELEASE_BODY, RESULT, SCHEMA, ensure_bubblewrap,
                                    ensure_requirements, identity, remove_path)
from instructor.exports import PLATFORMS, Platform

TEST_PREFIX = "Platform check: "
TITLES = {"sandbox": "the sandbox starts", "reference": "the reference gets full marks",
          "time": "grading fits the platform's limits"}
# Each task's budget, each call's timeout and the platform's stop must hold the reference's need there
# this many times over: a correct solution may well be slower than the reference, and the machine
# busier, and neither may cost points where the reference just fits.
HEADROOM = 2
USERNS_SETTINGS = ("/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
                   "/proc/sys/kernel/apparmor_restrict_unprivileged_userns")


@dataclass
class Check:
    name: str  # a key of TITLES
    passed: bool
    found: str  # what was found, for the instructor (the isolation's every detail included)

    @property
    def title(self) -> str:
        return TITLES[self.name]


@dataclass
class ReferenceRun:
    """One grade of the reference (every task in one run, as a real grade is), and its seconds there."""
    limits: Limits
    seconds: float = 0.0
    grade: Grade | None = None
    error: str = ""  # why it was not graded

    def lost(self, tasks: list[str]) -> dict[str, tuple[int, int]]:
        """The tasks that did not get all their points (or no test at all): task -> (points, possible)."""
        points = {task: self.grade.task_points(task) for task in tasks} if self.grade else {}
        return {task: (got, most) for task, (got, most) in points.items() if not most or got < most}


def reference_submission(folder: Path) -> Path:
    """The package's reference as a student's exercise files, every one of them as a complete hand-in
    has them (a suite may use another task's file): the only code a platform check grades."""
    folder.mkdir(parents=True, exist_ok=True)
    for exercise in sorted({t.exercise for t in TASKS}):
        shutil.copyfile(reference_file(exercise), folder / f"{exercise}.py")
    return folder


def grade_reference(tasks: list[str], limits: Limits) -> ReferenceRun:
    """Grade the reference on ``tasks`` in the sandbox (required), as run_autograder grades a submission."""
    run = ReferenceRun(limits)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="platform-check-") as tmp:
        try:
            run.grade = grade(reference_submission(Path(tmp) / "reference"), display="the reference", limits=limits,
                              sandbox_mode="bwrap", tasks=tasks)
        except GraderFailure as exc:
            run.error = " ".join(str(exc).split())
    run.seconds = time.monotonic() - started
    return run


def halved(limits: Limits) -> Limits:
    """``limits`` with each task's budget and each call's timeout cut by HEADROOM."""
    return replace(limits, budget=limits.budget / HEADROOM, call_timeout=limits.call_timeout / HEADROOM)


def sandbox_check(run: ReferenceRun, why_not: str) -> Check:
    if why_not:
        return Check("sandbox", False, f"it did not start: {why_not}")
    if run.grade is None:
        return Check("sandbox", True, f"a sandboxed child started; the reference was not graded ({run.error})")
    how = run.grade.isolation
    return Check("sandbox", run.grade.sandboxed, how if run.grade.sandboxed else f"a child ran outside it: {how}")


def reference_check(run: ReferenceRun, tasks: list[str]) -> Check:
    if run.grade is None:
        return Check("reference", False, f"not graded: {run.error}")
    lost, parts = run.lost(tasks), []
    for task in tasks:
        got, most = run.grade.task_points(task)
        failure = run.grade.first_failure(task)
        why = (f"first failure {failure.name}: {failure.message}" if failure else
               "; ".join(run.grade.not_graded) or "no test of it was graded")
        parts.append(f"{TASK_TITLES[task]} {got}/{most}" + (f" ({why})" if task in lost else ""))
    verdict = "full marks" if not lost else "NOT full marks"
    return Check("reference", not lost, f"{verdict}, {run.grade.score}/{run.grade.max_score}: {'; '.join(parts)}")


def time_check(platform: Platform, tasks: list[str], graded: ReferenceRun, tight: ReferenceRun | None,
               start_seconds: float, installs: float) -> Check:
    """``graded``: the reference's grade with the platform's limits; ``tight``: with ``halved`` limits (None
    when it was not run)."""
    stop, worst = platform.stops_after, platform.worst_case(len(tasks))
    limits_text = (f"a submission hanging in every task is stopped by the grader after {worst / 60:.1f} min at most"
                   + (f" ({platform.setup / 60:.0f} min of installs included)" if platform.setup else "")
                   + f"; {platform.name} stops a run at {stop / 60:.0f} min")
    if graded.grade is None or graded.lost(tasks):
        return Check("time", False, f"not measured: the reference did not get full marks with the real limits;"
                                    f" {limits_text}")
    needed = installs + start_seconds + graded.seconds
    found = [f"the reference's grade took {needed:.0f} s here ("
             + (f"{installs:.0f} s of installs, " if installs else "")
             + f"{start_seconds:.0f} s to start the sandbox, {graded.seconds:.0f} s to grade)", limits_text]
    problems = []
    if needed * HEADROOM > stop:
        problems.append(f"that is over 1/{HEADROOM} of {platform.name}'s {stop / 60:.0f} min: a slower correct"
                        " solution, or a busier machine, could be stopped by the platform")
    if installs > platform.setup:
        problems.append(f"installs took {installs:.0f} s, more than the {platform.setup:.0f} s the limits leave for"
                        f" them: {platform.name} could stop a slow grade before the grader does")
    if worst >= stop:
        problems.append("the limits let a hanging submission run past the platform's stop")
    half = tight.limits if tight else halved(graded.limits)
    what = f"with 1/{HEADROOM} of each task's budget and of the call timeout ({half.budget:g} s, {half.call_timeout:g} s)"
    if tight is None:
        problems.append(f"{what} the reference was not graded: no time was left for it within the platform's stop")
    elif tight.grade is None:
        problems.append(f"{what} the reference was not graded: {tight.error}")
    elif tight.lost(tasks):
        lost = ", ".join(f"{TASK_TITLES[t]} {got}/{most}" for t, (got, most) in tight.lost(tasks).items())
        problems.append(f"{what} the reference lost points ({lost}): a correct solution {HEADROOM} times slower than"
                        " the reference could run out of time")
    else:
        found.append(f"{what} it still gets full marks, so a correct solution {HEADROOM} times slower fits")
    return Check("time", not problems, "; ".join(found + problems))


def environment() -> str:
    """What decides whether the sandbox starts, in one line: who runs, bubblewrap, user namespaces."""
    bwrap = shutil.which("bwrap")
    if bwrap:
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                 check=False).stdout.strip() or "bwrap (its version unknown)"
        setuid = " (setuid)" if os.stat(bwrap).st_mode & stat.S_ISUID else ""
        bwrap_text = f"{version}{setuid} at {bwrap}"
    else:
        bwrap_text = "no bwrap on PATH"
    settings = [f"{Path(s).name}={Path(s).read_text().strip()}" for s in USERNS_SETTINGS if Path(s).is_file()]
    return (f"Python {sys.version.split()[0]}, {bwrap_text}, uid {os.geteuid()}, {os.cpu_count()} CPUs"
            + (f", {', '.join(settings)}" if settings else ""))


def run_checks(platform: Platform, tasks: list[str], installs: float = 0.0) -> list[Check]:
    """The three checks on this machine, with ``platform``'s limits; ``installs``: seconds spent installing
    requirements before this (Classroom 50's runner installs them for each grade)."""
    started = time.monotonic()
    try:
        check_child_can_start(platform.limits(len(tasks)), "bwrap")
        why_not = ""
    except GraderFailure as exc:
        why_not = " ".join(str(exc).split())
    start_seconds = time.monotonic() - started
    limits = platform.limits(len(tasks))
    graded = (grade_reference(tasks, limits) if not why_not else ReferenceRun(limits, error="the sandbox did not start"))
    tight = None
    # A second grade takes at most as long as the first: run it only where both fit the platform's stop.
    if graded.grade is not None and not graded.lost(tasks) and installs + 2 * (time.monotonic() - started) < platform.stops_after:
        tight = grade_reference(tasks, halved(limits))
    return [sandbox_check(graded, why_not), reference_check(graded, tasks),
            time_check(platform, tasks, graded, tight, start_seconds, installs)]


def text_report(platform: Platform, checks: list[Check]) -> str:
    """The report as the log shows it: one line per check, then what the machine is."""
    lines = [f"Platform check on {platform.name}: NOT a grade (it read no submission, and it scores 0)."]
    lines += [f"{'PASS' if c.passed else 'FAIL'}  {c.title}: {printable(c.found)}" for c in checks]
    lines.append(f"Here: {printable(environment())}")
    lines.append("Every check passed: grading works here." if all(c.passed for c in checks) else
                 "A check failed: fix it before students submit (docs/platforms.md, 'Before the first student"
                 " submits').")
    return "\n".join(lines)


def gradescope_results(platform: Platform, checks: list[Check]) -> dict:
    """Gradescope's results.json for a platform check: score 0, each check a test worth 0. What anyone may
    read (the top-level output) says only which checks passed; the tests, hidden from students, hold what
    was found, the isolation's detail included."""
    verdicts = "; ".join(f"{c.title}: {'PASS' if c.passed else 'FAIL'}" for c in checks)
    return {"score": 0, "visibility": "visible", "stdout_visibility": "hidden",
            "output": f"Platform check, not a grade: it read no submission and scores 0. Checks: {verdicts}.",
            "tests": [{"name": TEST_PREFIX + c.title, "score": 0, "max_score": 0,
                       "status": "passed" if c.passed else "failed", "output": printable(c.found),
                       "visibility": "hidden"} for c in checks]
            + [{"name": TEST_PREFIX + "the machine", "score": 0, "max_score": 0, "status": "passed",
                "output": printable(environment()), "visibility": "hidden"}],
            "extra_data": {"platform_check": True, "checks": {c.name: c.passed for c in checks}}}


def prairielearn_results(platform: Platform, checks: list[Check]) -> dict:
    """PrairieLearn's results.json for a platform check: gradable, score 0, each check a test worth 0 of 0
    (what was found in its output, the verdict in its message)."""
    verdicts = "; ".join(f"{c.title}: {'PASS' if c.passed else 'FAIL'}" for c in checks)
    return {"gradable": True, "score": 0.0,
            "message": f"Platform check, not a grade: it read no submission and scores 0. Checks: {verdicts}.",
            "output": text_report(platform, checks),
            "tests": [{"name": TEST_PREFIX + c.title, "points": 0, "max_points": 0,
                       "message": "PASS" if c.passed else "FAIL", "output": printable(c.found)} for c in checks]}


# The platforms whose check runs as a script writing results.json: how each writes it.
RESULTS_WRITERS = {"gradescope": gradescope_results, "prairielearn": prairielearn_results}


def results_main(platform_name: str, results: Path, tasks: list[str]) -> int:
    """What a check package's script runs: the checks, into results.json (exit 0 once written)."""
    platform = PLATFORMS[platform_name]
    try:
        checks = run_checks(platform, tasks)
    except Exception as exc:  # noqa: BLE001 - the platform shows results.json only: a crash must land there too
        checks = [Check(name, False, f"the check itself failed: {type(exc).__name__}: {exc}") for name in TITLES]
    print(text_report(platform, checks), flush=True)
    report.write_json(results, RESULTS_WRITERS[platform_name](platform, checks))
    return 0


def classroom50_result(checks: list[Check], fields: dict[str, str]) -> dict:
    """Classroom 50's result.json for a platform check: 0 of 0, each check a test worth 0 whose ``passed``
    says whether it passed (the submission's status is then success only when every check passed)."""
    return {"schema": SCHEMA, **fields, "datetime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "score": 0, "max-score": 0,
            "tests": [{"test-name": TEST_PREFIX + c.title, "passed": c.passed, "score": 0, "max-score": 0,
                       "message": printable(c.found)} for c in checks]}


def markdown_report(platform: Platform, checks: list[Check]) -> str:
    """The report as a Release or a run's summary page shows it."""
    lines = [f"### Platform check on {platform.name}: not a grade (0 of 0)", "",
             "It read no submission: it graded the autograder's own reference, in the sandbox.", "",
             "| Check | Result | Found |", "| --- | --- | --- |"]
    lines += [f"| {c.title} | {'PASS' if c.passed else 'FAIL'} | {markdown_cell(c.found)} |" for c in checks]
    return "\n".join(lines + ["", f"Here: {markdown_cell(environment())}", ""])


def classroom50_main(tasks: list[str], requirements: list[str]) -> int:
    """What a check folder's autograder.py runs, in the working directory it is started in.

    Under Classroom 50's runner (its variables set) it writes result.json (0 of 0, a test per check) and
    release-body.md, and exits 0, as an autograder that graded does: the submission's status says
    whether every check passed. Run as a command anywhere else it writes neither, and exits 0 when every
    check passed, 1 when one failed. Either way it exits 3, with the reason on one ``::error::`` line,
    when it could not check at all (a requirement missing, bubblewrap not installed).
    """
    platform, checkout = PLATFORMS["classroom50"], Path.cwd()
    outputs = [checkout / RESULT, checkout / RELEASE_BODY]
    try:
        for path in outputs:
            remove_path(path)
        under_runner = any(os.environ.get(var) for var in ("CLASSROOM", "ASSIGNMENT", "SUBMISSION_TAG"))
        fields = identity(dict(os.environ)) if under_runner else None
        ensure_requirements(requirements, tasks)
        ensure_bubblewrap()
        checks = run_checks(platform, tasks, installs=float(os.environ.get(INSTALLED_ENV) or 0))
    except (GraderFailure, OSError) as exc:
        reason = printable(" ".join(str(exc).split()))
        print(f"::error::the platform check could not run: {reason}", file=sys.stderr)
        return EXIT_GRADER_ERROR
    print(text_report(platform, checks), flush=True)
    body = markdown_report(platform, checks)
    if fields is not None:
        report.write_text(outputs[1], body)
        report.write_json(outputs[0], classroom50_result(checks, fields))
        return 0
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(body)
    return 0 if all(c.passed for c in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m instructor.platform_check", description=(
        "Run the platform check of a Gradescope check bundle or a PrairieLearn check grader (their scripts do)."))
    parser.add_argument("results", type=Path, help="where the platform reads the result: results/results.json")
    parser.add_argument("--tasks", help="the tasks to grade the reference on (default: all)")
    parser.add_argument("--platform", choices=sorted(RESULTS_WRITERS), default="gradescope",
                        help="whose results.json to write (default: gradescope)")
    args = parser.parse_args(argv)
    hide_gpus_from_grading()
    return results_main(args.platform, args.results, parse_tasks(args.tasks) or list(TASK_TITLES))


if __name__ == "__main__":
    sys.exit(main())
