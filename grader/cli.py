"""``python -m grader``: grade one submission (a student's own work, or one hand-in on a platform).

Batches, the student release and the platform exports are the instructor's: ``python -m instructor``.

Exit codes: 0 grading completed (whatever the score); 1 the score is below ``--fail-under``;
3 the grader could not grade (bad path or option, broken set-up, or a sandbox required but not
starting: then no score is written at all). 2 is never used, so a script can tell "the student
scored low" from "the grader needs attention".

A single local run (a student checking their work) falls back to an unsandboxed child and says so;
grading for credit (``--sandbox bwrap``: a batch, the Gradescope bundle, the Classroom 50 autograder)
requires the sandbox.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from grader import report
from grader.grading import GraderFailure, grade
from grader.paths import EXERCISES
from grader.results import BonusRule
from grader.probes.safe_text import printable
from grader.sandbox import SANDBOX_MODES, Limits, exercise_folder
from grader.tasks import TASK_NAMES, parse_tasks

EXIT_OK, EXIT_BELOW, EXIT_GRADER_ERROR = 0, 1, 3
INSTRUCTOR_COMMANDS = ("--batch", "--release", "--gradescope-bundle", "--classroom50", "--prairielearn-grader")


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # bad options are grader errors too, with the same exit code
        self.print_usage(sys.stderr)
        if self.prog == "python -m grader" and any(flag in message for flag in INSTRUCTOR_COMMANDS):
            message += ": batches, the release and the autograders are python -m instructor's (see its --help)"
        print(f"grader error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_GRADER_ERROR)


def add_grading_options(p: argparse.ArgumentParser) -> None:
    """How to grade: the options ``python -m grader`` and ``python -m instructor --batch`` share."""
    run = p.add_argument_group("how to grade")
    run.add_argument("--seed", type=int, help="seed for the tests' data (default: derived from the submission's"
                                              " files and the grader's version, so the same files get the same grade)")
    run.add_argument("--tasks", metavar="LIST", help=f"comma-separated tasks to grade (of {','.join(TASK_NAMES)})")
    run.add_argument("--bonus", metavar="LIST", help="of the tasks graded, those that are a bonus, each TASK=POINTS:"
                                                     " a task's full marks are worth POINTS bonus points, a part of"
                                                     " them that part of POINTS (TASK alone: its own points); bonus"
                                                     " points count in the score, never in the maximum")
    run.add_argument("--bonus-cap", metavar="POINTS", help="with --bonus: the most bonus points a grade can get")
    run.add_argument("--sandbox", choices=SANDBOX_MODES, default=None,
                     help="bwrap: require bubblewrap, or exit 3 without a score (the default for grading for"
                          " credit); auto: bubblewrap where it works, else a plain child process, saying so (the"
                          " default for one local run); none: never sandbox")
    run.add_argument("--call-timeout", type=float, default=Limits.call_timeout, metavar="S",
                     help=f"seconds one call into the submission may take (default {Limits.call_timeout:.0f})")
    run.add_argument("--budget", type=float, default=Limits.budget, metavar="S",
                     help=f"seconds all calls of one task may take together, in all of the submission's"
                          f" processes (default {Limits.budget:.0f})")
    run.add_argument("--startup-timeout", type=float, default=Limits.startup_timeout, metavar="S",
                     help=f"seconds a fresh child may take to start (default {Limits.startup_timeout:.0f})")
    run.add_argument("--memory-mb", type=int, default=Limits.memory_mb, metavar="MB",
                     help=f"memory limit over all of the submission's processes where a cgroup can be made,"
                          f" and of each process (default {Limits.memory_mb})")


def limits_of(args: argparse.Namespace) -> Limits:
    if min(args.call_timeout, args.budget, args.startup_timeout) <= 0 or args.memory_mb <= 0:
        raise GraderFailure("--call-timeout, --budget, --startup-timeout and --memory-mb must be positive")
    return Limits(call_timeout=args.call_timeout, budget=args.budget, startup_timeout=args.startup_timeout,
                  memory_mb=args.memory_mb)


def tasks_of(args: argparse.Namespace) -> list[str] | None:
    try:
        return parse_tasks(args.tasks)
    except ValueError as exc:
        raise GraderFailure(str(exc)) from None


BONUS_FORM = "expected TASK=POINTS or TASK, comma-separated, e.g. --bonus swiglu=5,gated=5"


def bonus_of(args: argparse.Namespace, tasks: list[str] | None) -> BonusRule | None:
    """``--bonus`` and ``--bonus-cap``: bonus tasks among those graded, not all of them (a grade needs a
    maximum), each with what its full marks are worth; None without ``--bonus``."""
    cap = None if args.bonus_cap is None else positive_points(args.bonus_cap)
    if args.bonus_cap is not None and cap is None:
        raise GraderFailure(f"--bonus-cap {args.bonus_cap}: expected a number of points above 0, e.g. --bonus-cap 10")
    if not args.bonus:
        if cap is not None:
            raise GraderFailure(f"--bonus-cap {args.bonus_cap}: a cap needs bonus tasks (--bonus swiglu=5)")
        return None
    weights: dict[str, float | None] = {}
    for item in (part.strip() for part in args.bonus.split(",")):
        task, _, worth = item.partition("=")
        task = task.strip().lower()
        if not task:
            raise GraderFailure(f"--bonus {args.bonus}: {item!r} names no task; {BONUS_FORM}")
        try:
            parse_tasks(task, option="--bonus")
        except ValueError as exc:
            raise GraderFailure(str(exc)) from None
        if task in weights:
            raise GraderFailure(f"--bonus {args.bonus}: {task} is named twice; {BONUS_FORM}")
        weights[task] = positive_points(worth) if "=" in item else None
        if "=" in item and weights[task] is None:
            raise GraderFailure(f"--bonus {args.bonus}: {task}={worth.strip()} is not a number of points above 0;"
                                f" {BONUS_FORM}")
    rule = BonusRule(weights, cap)
    try:
        rule.check(tasks or list(TASK_NAMES))
    except ValueError as exc:
        raise GraderFailure(f"--bonus {args.bonus}: {exc}") from None
    return rule


def positive_points(text: str) -> float | None:
    """``text`` as a number of points above 0 (5, 2.5), else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def bonus_option(rule: BonusRule | None) -> tuple[str, str]:
    """The ``--bonus`` and ``--bonus-cap`` values that give ``rule`` ("" for none): what an autograder
    script passes on."""
    if rule is None:
        return "", ""
    def number(value: float) -> str:
        return str(int(value)) if value.is_integer() else repr(value)

    tasks = ",".join(task if worth is None else f"{task}={number(worth)}" for task, worth in rule.weights.items())
    return tasks, "" if rule.cap is None else number(rule.cap)


def build_parser() -> Parser:
    p = Parser(prog="python -m grader", description=(
        "Grade the MLP-block exercises with the graded test suites: points per task, the first thing "
        "to fix in each, and the total. The submission's code runs in a separate, sandboxed process."),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
        "examples:\n"
        "  python -m grader                         grade this checkout's exercises/\n"
        "  python -m grader path/to/submission      a folder of exercise files, or a whole checkout\n"
        "  python -m grader --tasks mlp,glu         some tasks only\n"
        "  python -m grader --json grade.json --fail-under 40\n"
        "exit codes: 0 graded, 1 below --fail-under, 3 grader error"))
    p.add_argument("path", nargs="?", help="submission folder (default: this checkout's exercises/)")
    out = p.add_argument_group("reports")
    out.add_argument("--json", type=Path, metavar="FILE", help="write the grade as JSON (schema mlp-block-grader/1)")
    out.add_argument("--gradescope", type=Path, metavar="FILE", help="write Gradescope's results.json")
    out.add_argument("--prairielearn", type=Path, metavar="FILE", help="write PrairieLearn's results.json")
    out.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML, one test case per test")
    out.add_argument("--fail-under", type=float, metavar="POINTS", help="exit 1 if the score is below POINTS")
    out.add_argument("--verbose", action="store_true", help="also show the graded suites' own pytest output")
    add_grading_options(p)
    return p


def check_submission(path: Path) -> None:
    if not path.exists():
        raise GraderFailure(f"{path}: no such folder")
    if not path.is_dir():
        raise GraderFailure(f"{path} is a file; give the folder that holds the exercise files"
                            " (or a whole checkout)")
    if not any(exercise_folder(path).glob("*.py")):
        raise GraderFailure(f"{path} holds no exercise files: expected e.g. mlp_block.py in it, or"
                            " exercises/mlp_block.py (a whole checkout)")


def hide_gpus_from_grading() -> None:
    """Grade on the CPU, in Triton's interpreter, wherever the grader runs: a grade must not depend on the
    machine. On a GPU a kernel's read past a tensor's end returns whatever memory is there and goes unseen
    (measured on an H200: a gated kernel without its M mask passed every gated test), where the interpreter
    sees every access. Before torch is asked about CUDA; every process the grader starts inherits it."""
    os.environ["CUDA_VISIBLE_DEVICES"] = ""


def run_command(parser: Parser, run, argv: list[str] | None) -> int:
    """Parse, run, and turn a GraderFailure into its one line and exit 3 (both commands do this)."""
    hide_gpus_from_grading()
    args = parser.parse_args(argv)
    try:
        return run(args)
    except GraderFailure as exc:
        print(f"grader error: {exc}", file=sys.stderr)
        return EXIT_GRADER_ERROR
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130


def main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), run, argv)


def run(args: argparse.Namespace) -> int:
    limits, tasks = limits_of(args), tasks_of(args)
    bonus = bonus_of(args, tasks)
    if args.path:
        submission, display = Path(args.path), args.path
    else:
        submission, display = EXERCISES, "exercises/"
    check_submission(submission)
    log: list[str] = []
    result = grade(submission, display=display, seed=args.seed, limits=limits,
                   sandbox_mode=args.sandbox or "auto", tasks=tasks, log=log, bonus=bonus)
    if args.verbose:
        print(printable("".join(log), keep_newlines=True))
    print(report.text(result))
    if not result.sandboxed:
        print(f"Not sandboxed: {result.isolation_summary}. Fine for checking your own work; a grade for credit"
              " needs --sandbox bwrap.", file=sys.stderr)
    if args.json:
        report.write_json(args.json, report.as_json(result))
    if args.gradescope:
        report.write_json(args.gradescope, report.gradescope(result))
    if args.prairielearn:
        report.write_json(args.prairielearn, report.prairielearn(result))
    if args.junit:
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        report.junit(result).write(args.junit, encoding="utf-8", xml_declaration=True)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(report.markdown(result))
    if args.fail_under is not None and result.score < args.fail_under:
        print(f"Score {result.score} is below --fail-under {args.fail_under:g}.", file=sys.stderr)
        return EXIT_BELOW
    return EXIT_OK
