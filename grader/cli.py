"""``python -m grader``: grade one submission or a folder of submissions, or make an autograder
(a Gradescope bundle, a Classroom 50 folder).

Exit codes: 0 grading completed (whatever the score); 1 the score is below ``--fail-under``;
3 the grader could not grade (bad path or option, broken set-up, or a sandbox required but not
starting: then no score is written at all). 2 is never used, so a script can tell "the student
scored low" from "the grader needs attention".

Grading for credit (``--batch``, the Gradescope bundle, the Classroom 50 autograder) requires the
sandbox by default; a single local run (a student checking their work) falls back to an unsandboxed
child and says so. ``--sandbox`` overrides either default.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grader import report
from grader.grading import TASK_TITLES, GraderFailure, grade
from grader.safe_text import printable
from grader.sandbox import REPO, SANDBOX_MODES, Limits, exercise_folder

EXIT_OK, EXIT_BELOW, EXIT_GRADER_ERROR = 0, 1, 3


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # bad options are grader errors too, with the same exit code
        self.print_usage(sys.stderr)
        print(f"grader error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_GRADER_ERROR)


def build_parser() -> Parser:
    p = Parser(prog="python -m grader", description=(
        "Grade the MLP-block exercises with the graded test suites: points per task, the first thing "
        "to fix in each, and the total. The submission's code runs in a separate, sandboxed process."),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
        "examples:\n"
        "  python -m grader                         grade this checkout's exercises/\n"
        "  python -m grader path/to/submission      a folder of exercise files, or a whole checkout\n"
        "  python -m grader --json grade.json --fail-under 40\n"
        "  python -m grader --batch submissions/ --csv grades.csv --jobs 4 --resume\n"
        "  python -m grader --batch submissions/ --csv grades.csv --only alice\n"
        "  python -m grader --gradescope-bundle autograder.zip\n"
        "  python -m grader --classroom50 autograders/mlp-block --tasks mlp,glu\n"
        "  python -m grader --release ../mlp-block-student\n"
        "exit codes: 0 graded, 1 below --fail-under, 3 grader error"))
    p.add_argument("path", nargs="?", help="submission folder (default: this checkout's exercises/)")
    out = p.add_argument_group("reports")
    out.add_argument("--json", type=Path, metavar="FILE", help="write the grade as JSON (schema in the README)")
    out.add_argument("--gradescope", type=Path, metavar="FILE", help="write Gradescope's results.json")
    out.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML, one test case per test")
    out.add_argument("--fail-under", type=float, metavar="POINTS", help="exit 1 if the score is below POINTS")
    out.add_argument("--verbose", action="store_true", help="also show the graded suites' own pytest output")
    run = p.add_argument_group("how to grade")
    run.add_argument("--seed", type=int, help="seed for the tests' data (default: derived from the submission's"
                                              " files and the grader's version, so the same files get the same grade)")
    run.add_argument("--tasks", metavar="LIST", help=f"comma-separated tasks to grade (of {','.join(TASK_TITLES)})")
    run.add_argument("--sandbox", choices=SANDBOX_MODES, default=None,
                     help="bwrap: require bubblewrap, or exit 3 without a score (the default with --batch); "
                          "auto: bubblewrap where it works, else a plain child process, saying so (the default"
                          " for one local run); none: never sandbox")
    run.add_argument("--call-timeout", type=float, default=Limits.call_timeout, metavar="S",
                     help=f"seconds one call into the submission may take (default {Limits.call_timeout:.0f})")
    run.add_argument("--budget", type=float, default=Limits.budget, metavar="S",
                     help=f"seconds all calls of one task may take together (default {Limits.budget:.0f})")
    run.add_argument("--memory-mb", type=int, default=Limits.memory_mb, metavar="MB",
                     help=f"memory limit over all of the submission's processes where a cgroup can be made,"
                          f" and of each process (default {Limits.memory_mb})")
    batch = p.add_argument_group("batch grading")
    batch.add_argument("--batch", type=Path, metavar="DIR",
                       help="grade each entry of DIR (a folder, a .zip, or loose <student>_<exercise>.py files)"
                            " as one student's submission; the rest is listed as skipped, with why")
    batch.add_argument("--csv", type=Path, metavar="FILE", help="with --batch: the grades, one row per submission")
    batch.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1), metavar="N",
                       help="with --batch: submissions graded in parallel (default: one per core)")
    batch.add_argument("--resume", action="store_true",
                       help="with --batch: skip submissions already graded in the CSV (rows with status error are retried)")
    batch.add_argument("--only", metavar="NAME",
                       help="with --batch: grade this submission again (its name in the CSV) and replace its row")
    batch.add_argument("--feedback", type=Path, metavar="DIR",
                       help="with --batch: where the Markdown feedback per submission goes (default: beside the"
                            " CSV, grades.csv -> grades_feedback/)")
    p.add_argument("--gradescope-bundle", type=Path, metavar="ZIP",
                   help="write a Gradescope autograder bundle (setup.sh, run_autograder, the grader) and exit")
    p.add_argument("--release", type=Path, metavar="DIR",
                   help="write the student repository (stubs, suites with the reference's recorded answers,"
                        " notebooks, README; no reference) into the new folder DIR and exit")
    p.add_argument("--classroom50", type=Path, metavar="DIR",
                   help="write a Classroom 50 autograder folder (autograder.py and the grader) grading --tasks"
                        " (default: all) and exit")
    return p


def _tasks(value: str | None) -> list[str] | None:
    if not value:
        return None
    tasks = [t.strip().lower() for t in value.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in TASK_TITLES]
    if unknown:
        raise GraderFailure(f"--tasks: unknown task {', '.join(unknown)}; the tasks are {', '.join(TASK_TITLES)}")
    return tasks


def check_submission(path: Path) -> None:
    if not path.exists():
        raise GraderFailure(f"{path}: no such folder")
    if not path.is_dir():
        raise GraderFailure(f"{path} is a file; give the folder that holds the exercise files"
                            " (or a whole checkout)")
    if not any(exercise_folder(path).glob("*.py")):
        raise GraderFailure(f"{path} holds no exercise files: expected e.g. mlp_block.py in it, or"
                            " exercises/mlp_block.py (a whole checkout)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except GraderFailure as exc:
        print(f"grader error: {exc}", file=sys.stderr)
        return EXIT_GRADER_ERROR
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return 130


def run(args: argparse.Namespace) -> int:
    limits = Limits(call_timeout=args.call_timeout, budget=args.budget, memory_mb=args.memory_mb)
    if min(args.call_timeout, args.budget) <= 0 or args.memory_mb <= 0:
        raise GraderFailure("--call-timeout, --budget and --memory-mb must be positive")
    tasks = _tasks(args.tasks)
    if args.gradescope_bundle:
        from grader.bundle import make_bundle

        make_bundle(args.gradescope_bundle)
        print(f"wrote {args.gradescope_bundle}: upload it as the autograder in Gradescope's"
              " 'Configure Autograder' page (base image: Ubuntu 22.04 or later)")
        return EXIT_OK
    if args.release:
        from grader.release import ReleaseError, make_release

        try:
            files = make_release(args.release)
        except ReleaseError as exc:
            raise GraderFailure(f"--release: {exc}") from None
        print(f"wrote the student repository, {len(files)} files, no reference, into {args.release}")
        return EXIT_OK
    if args.classroom50:
        from grader.bundle import make_classroom50

        make_classroom50(args.classroom50, tasks)
        print(f"wrote {args.classroom50}: commit its contents to the course's classroom50 repository as"
              " CLASSROOM/autograders/ASSIGNMENT/ (see the README)")
        return EXIT_OK
    if args.batch:
        if args.path:
            raise GraderFailure("give either a submission PATH or --batch DIR, not both")
        if not args.csv:
            raise GraderFailure("--batch needs --csv FILE for the grades")
        if args.jobs < 1:
            raise GraderFailure("--jobs must be at least 1")
        if args.only and args.resume:
            raise GraderFailure("give either --only NAME or --resume, not both")
        from grader.batch import run_batch

        return run_batch(args.batch, args.csv, jobs=args.jobs, resume=args.resume, limits=limits,
                         sandbox_mode=args.sandbox or "bwrap", tasks=tasks, seed=args.seed, only=args.only,
                         feedback=args.feedback)
    if args.csv or args.resume or args.only or args.feedback:
        raise GraderFailure("--csv, --resume, --only and --feedback go with --batch DIR")

    if args.path:
        submission, display = Path(args.path), args.path
    else:
        submission, display = REPO / "exercises", "exercises/"
    check_submission(submission)
    log: list[str] = []
    result = grade(submission, display=display, seed=args.seed, limits=limits,
                   sandbox_mode=args.sandbox or "auto", tasks=tasks, log=log)
    if args.verbose:
        print(printable("".join(log), keep_newlines=True))
    print(report.text(result))
    if not result.sandboxed:
        print(f"Not sandboxed: {result.isolation}. Fine for checking your own work; a grade for credit"
              " needs --sandbox bwrap.", file=sys.stderr)
    if args.json:
        report.write_json(args.json, report.as_json(result))
    if args.gradescope:
        report.write_json(args.gradescope, report.gradescope(result))
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
