"""``python -m instructor``: what a course does with the exercises besides grading one hand-in.

* ``--release DIR``: the student repository (stubs, suites with the reference's recorded answers,
  notebooks, the student's grader; no reference, nothing of ``instructor/``);
* ``--batch DIR --csv FILE``: grade every hand-in in DIR, in the sandbox, with feedback per student;
* ``--gradescope-bundle ZIP``, ``--prairielearn-grader DIR`` and ``--classroom50 DIR``: the platforms'
  autograders, or with ``--platform-check`` their platform checks (``instructor/platform_check.py``);
* ``--stubs``: write ``exercises/`` from the reference's marked regions (``instructor/stubs.py``).

Exit codes as ``python -m grader``'s: 0 done, 3 could not (bad path or option, no sandbox).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from grader.cli import EXIT_OK, Parser, add_grading_options, bonus_of, limits_of, run_command, tasks_of
from grader.grading import GraderFailure
from grader.paths import display_path
from grader.tasks import TASK_NAMES
from instructor.exports import PLATFORMS
from instructor.feedback import FORMATS


def build_parser() -> Parser:
    p = Parser(prog="python -m instructor", description=(
        "Make the student release and the platforms' autograders, and grade batches of hand-ins."),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
        "examples:\n"
        "  python -m instructor --release ../mlp-block-student\n"
        "  python -m instructor --batch submissions/ --csv grades.csv --jobs 4 --resume\n"
        "  python -m instructor --batch submissions/ --csv grades.csv --only alice\n"
        "  python -m instructor --batch submissions/ --csv honours.csv --tasks gated --students honours.txt\n"
        "  python -m instructor --batch moodle/ --csv grades.csv --late-penalty 10%/day --late-cap 30%"
        " --due 2026-03-01T23:59 --submitted worksheet.csv\n"
        "  python -m instructor --batch submissions/ --csv grades.csv --canvas-assignment 'Homework 3 (12345)'\n"
        "  python -m instructor --gradescope-bundle autograder.zip --tasks mlp,glu,cost\n"
        "  python -m instructor --classroom50 autograders/mlp-block --tasks mlp,glu\n"
        "  python -m instructor --gradescope-bundle platform-check.zip --tasks mlp,glu,cost --platform-check\n"
        "  python -m instructor --stubs\n"
        "  python -m instructor --doc-tables\n"
        "  python -m instructor --new-task rmsnorm --title RMSNorm\n"
        "exit codes: 0 done, 3 could not (the reason on one line)"))
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--release", type=Path, metavar="DIR",
                      help="write the student repository (stubs, suites with the reference's recorded answers,"
                           " notebooks, README; no reference) into the new folder DIR")
    what.add_argument("--batch", type=Path, metavar="DIR",
                      help="grade each entry of DIR, or of the LMS's download-all .zip (a folder, a .zip, or"
                           " loose <student>_<exercise>.py files) as one student's submission; the rest is listed"
                           " as skipped, with why")
    what.add_argument("--gradescope-bundle", type=Path, metavar="ZIP",
                      help="write a Gradescope autograder bundle (setup.sh, run_autograder, the grader) grading"
                           " --tasks (default: all)")
    what.add_argument("--prairielearn-grader", type=Path, metavar="DIR",
                      help="write a PrairieLearn external grader and its question into DIR (new or empty):"
                           " serverFilesCourse/ with the grader and run.sh, questions/mlp_block/ (info.json,"
                           " question.html) and the Dockerfile of its image, grading --tasks (default: all)")
    what.add_argument("--classroom50", type=Path, metavar="DIR",
                      help="write a Classroom 50 autograder folder (autograder.py and the grader) grading --tasks"
                           " (default: all)")
    what.add_argument("--stubs", action="store_true",
                      help="write the stubs in exercises/ from the reference's marked regions (solution/hidden/"
                           "reference_*.py): after changing a stub's text or the reference's scaffolding")
    what.add_argument("--new-task", metavar="NAME",
                      help="write a small working task named NAME (a stub with a TODO, its reference, a graded suite,"
                           " a wrong and a right variant, its declaration in grader/tasks.py) and record its answers:"
                           " the start of a new exercise (docs/instructors.md, 'Adding a task')")
    p.add_argument("--title", metavar="TEXT", help="with --new-task: the task's title in reports (default: NAME)")
    what.add_argument("--doc-tables", action="store_true",
                      help="write the documents' generated tables: the tasks (docs/exercises.md: TODOs, suites,"
                           " full marks, from grader/tasks.py and the tests' points), the points column of its"
                           " tables of tests (from the points markers) and the worst cases"
                           " (docs/platforms.md, from PLATFORMS in instructor/exports.py): after changing a task,"
                           " a test's points or a limit")
    p.add_argument("--platform-check", action="store_true",
                   help="with --gradescope-bundle, --prairielearn-grader or --classroom50: make the platform check"
                        " instead of the"
                        " autograder, to run once on the platform before students submit (a practice assignment):"
                        " it reads no submission, grades the bundled reference with the platform's limits, says"
                        " whether the sandbox starts there, and scores 0")
    batch = p.add_argument_group("batch grading")
    batch.add_argument("--csv", type=Path, metavar="FILE", help="with --batch: the grades, one row per submission")
    batch.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1), metavar="N",
                       help="with --batch: submissions graded in parallel (default: one per core)")
    batch.add_argument("--resume", action="store_true",
                       help="with --batch: go on with an interrupted batch: skip the submissions already graded"
                            " (those with status error are graded again)")
    batch.add_argument("--only", metavar="NAME", action="append",
                       help="with --batch: grade this submission again (its name in the CSV) and replace its record;"
                            " once per submission, for several. Only the regraded get feedback files and comments")
    batch.add_argument("--students", type=Path, metavar="FILE",
                       help="with --batch: grade only these students (one a line: the CSV's submission name, the"
                            " LMS's name or its id); only they get rows, gradebook cells and feedback, and a listed"
                            " student with no hand-in is named")
    batch.add_argument("--new-reporting", action="store_true",
                       help="with --resume, --only or --merge: write the files with this run's reporting options"
                            " (--late-penalty, --due, --canvas-assignment, ...) where they differ from the batch's"
                            " (a due date moved, a policy forgotten); without it such a run stops, naming them")
    batch.add_argument("--not-handed-in", choices=("zero", "blank"), default="zero",
                       help="with --batch: a student who handed in no file of the graded tasks gets 0 in the"
                            " gradebook files (zero, the default) or an empty cell and no feedback (blank)")
    batch.add_argument("--late-penalty", metavar="SHARE/PERIOD",
                       help="with --batch: take this share of the score off per day or hour started after --due,"
                            " e.g. 10%%/day (docs/grading.md, 'Late hand-ins')")
    batch.add_argument("--late-cap", metavar="SHARE",
                       help="with --late-penalty: the most it takes off in all, e.g. 30%% (default: no cap)")
    batch.add_argument("--due", metavar="TIME",
                       help="with --late-penalty: the due date, local time, e.g. 2026-03-01T23:59")
    batch.add_argument("--submitted", type=Path, metavar="FILE", action="append",
                       help="with --late-penalty: the submission times: Moodle's grading worksheet as downloaded,"
                            " or a CSV of student, time (for Canvas, whose download marks late but gives no time);"
                            " once per file")
    batch.add_argument("--feedback", type=Path, metavar="DIR",
                       help="with --batch: where the Markdown feedback per submission goes (default: beside the"
                            " CSV, grades.csv -> grades_feedback/)")
    batch.add_argument("--feedback-format", choices=FORMATS, default="md",
                       help="with --batch: md (Markdown, for LMS comment boxes that render it) or txt (plain text)")
    batch.add_argument("--shard", metavar="K/N",
                       help="with --batch: grade only the K-th of N equal shares of the class (K from 1), into this"
                            " --csv; run the N shards anywhere (a Slurm job array, a CI matrix), then --merge them")
    batch.add_argument("--merge", type=Path, nargs="+", metavar="CSV",
                       help="with --batch: grade nothing; gather the records of these shards' CSVs into --csv and"
                            " write its files, the same as one batch of the whole class would")
    batch.add_argument("--canvas-assignment", metavar="COLUMN",
                       help="with --batch, needed when hand-ins came from Canvas: the assignment's column as Canvas's"
                            " gradebook export heads it, e.g. 'Homework 3 (12345)', for grades_canvas.csv, which"
                            " Canvas's gradebook imports")
    add_grading_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), run, argv)


def worst_case_text(platform, tasks: list[str] | None) -> str:
    worst = platform.worst_case(len(tasks) if tasks else len(TASK_NAMES))
    return (f"Worst case per submission (hanging in every task): {worst / 60:.1f} min, within {platform.name}'s"
            f" {platform.stops_after / 60:.0f} min")


def check_requirements() -> None:
    """Every command here runs the suites or the notebooks: say so plainly when this Python lacks them."""
    missing = [name for name in ("torch", "pytest") if importlib.util.find_spec(name) is None]
    if missing:
        raise GraderFailure(f"{', '.join(missing)} not installed for {sys.executable}: install the requirements"
                            " first (pip install -r requirements-dev.txt, in a virtual environment)")


def write_stubs() -> int:
    from instructor.stubs import MarkerError, write

    try:
        written = write()
    except MarkerError as exc:
        raise GraderFailure(f"--stubs: {exc}") from None
    print(f"wrote {', '.join(display_path(p) for p in written)}: review the difference (git diff exercises/)"
          if written else "exercises/ is already what the reference makes")
    return EXIT_OK


def write_platform_check(path: Path, tasks: list[str] | None, platform: str) -> int:
    from instructor.exports import make_bundle, make_classroom50, make_prairielearn

    if platform == "gradescope":
        make_bundle(path, tasks, check=True)
        where = ("upload it as the autograder of a practice assignment in Gradescope (same base image as the"
                 " real one), submit any file to it once, and read the result")
    elif platform == "prairielearn":
        make_prairielearn(path, tasks, check=True)
        where = ("set it up as the external grader of a practice question in PrairieLearn (the same image as the"
                 " real one), submit any file to it once, and read the result")
    else:
        make_classroom50(path, tasks, check=True)
        where = ("commit it as the autograder folder of a practice assignment in Classroom 50 (same runtime as the"
                 " real one), submit to it once, and read the job's log or Release")
    print(f"wrote {path}: a PLATFORM CHECK, not an autograder (it scores 0): {where}. See docs/platforms.md,"
          " 'Before the first student submits'.")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.stubs:
        return write_stubs()
    if args.title and not args.new_task:
        raise GraderFailure("--title goes with --new-task NAME")
    if args.new_task:
        from instructor.new_task import NewTaskError, finish, make_task, next_steps

        try:
            written = make_task(args.new_task, args.title or args.new_task)
        except NewTaskError as exc:
            raise GraderFailure(str(exc)) from None
        print("wrote " + ", ".join(display_path(path) for path in written), flush=True)
        if finish(args.new_task) != 0:
            raise GraderFailure(f"--new-task {args.new_task}: its files are written, but the stub, the recorded"
                                " answers or the documents' tables could not be made (the output above says why)")
        print(next_steps(args.new_task))
        return EXIT_OK
    if args.doc_tables:
        from instructor.doc_tables import GENERATED, write_all

        changed = write_all()
        for part in GENERATED:
            print(f"{'wrote' if part.doc in changed else 'already up to date:'} the table of {part.name} in"
                  f" {display_path(part.doc)}")
        return EXIT_OK
    limits, tasks = limits_of(args), tasks_of(args)
    bonus = bonus_of(args, tasks)
    check_requirements()
    batch_only = {"--csv": args.csv, "--resume": args.resume, "--only": args.only, "--shard": args.shard,
                  "--merge": args.merge, "--feedback": args.feedback, "--canvas-assignment": args.canvas_assignment,
                  "--students": args.students, "--not-handed-in": args.not_handed_in != "zero",
                  "--late-penalty": args.late_penalty, "--late-cap": args.late_cap, "--due": args.due,
                  "--submitted": args.submitted, "--new-reporting": args.new_reporting}
    if not args.batch and any(batch_only.values()):
        raise GraderFailure(f"{', '.join(name for name, given in batch_only.items() if given)} go with --batch DIR")
    if args.platform_check and not (args.gradescope_bundle or args.prairielearn_grader or args.classroom50):
        raise GraderFailure("--platform-check goes with --gradescope-bundle ZIP, --prairielearn-grader DIR or"
                            " --classroom50 DIR")
    if args.platform_check:
        platform, path = next((name, path) for name, path in (("gradescope", args.gradescope_bundle),
                                                             ("prairielearn", args.prairielearn_grader),
                                                             ("classroom50", args.classroom50)) if path)
        return write_platform_check(path, tasks, platform)
    if args.gradescope_bundle:
        from instructor.exports import make_bundle

        make_bundle(args.gradescope_bundle, tasks, bonus)
        print(f"wrote {args.gradescope_bundle}: upload it as the autograder in Gradescope's"
              " 'Configure Autograder' page (base image: Ubuntu 22.04 or later). "
              + worst_case_text(PLATFORMS["gradescope"], tasks))
        return EXIT_OK
    if args.release:
        from instructor.release import ReleaseError, make_release

        try:
            files = make_release(args.release)
        except ReleaseError as exc:
            raise GraderFailure(f"--release: {exc}") from None
        print(f"wrote the student repository, {len(files)} files, no reference, into {args.release}")
        return EXIT_OK
    if args.prairielearn_grader:
        from instructor.exports import make_prairielearn

        make_prairielearn(args.prairielearn_grader, tasks, bonus)
        print(f"wrote {args.prairielearn_grader}: copy its serverFilesCourse/ and questions/ into the course's, build"
              " and push the image of Dockerfile.prairielearn, and put that image's name into the question's"
              " info.json (see docs/platforms.md). "
              + worst_case_text(PLATFORMS["prairielearn"], tasks))
        return EXIT_OK
    if args.classroom50:
        from instructor.exports import make_classroom50

        make_classroom50(args.classroom50, tasks, bonus)
        print(f"wrote {args.classroom50}: commit its contents to the course's classroom50 repository as"
              " CLASSROOM/autograders/ASSIGNMENT/ (see docs/platforms.md). "
              + worst_case_text(PLATFORMS["classroom50"], tasks))
        return EXIT_OK
    if not args.csv:
        raise GraderFailure("--batch needs --csv FILE for the grades")
    if args.jobs < 1:
        raise GraderFailure("--jobs must be at least 1")
    if args.only and args.resume:
        raise GraderFailure("give either --only NAME or --resume, not both")
    from instructor import batch_options
    from instructor.batch import merge_shards, parse_shard, run_batch
    from instructor.batch_reports import Reporting
    from instructor.groups import Group
    from instructor.late import Policy

    group = Group.read(args.students) if args.students else None
    how = Reporting(args.canvas_assignment, Policy.of(args.late_penalty, args.late_cap, args.due, args.submitted),
                    args.not_handed_in == "blank")
    if args.merge:
        if args.shard or args.only or args.resume:
            raise GraderFailure("--merge grades nothing: give it without --shard, --only and --resume")
        return merge_shards(args.batch, args.csv, args.merge, feedback=args.feedback,
                            feedback_format=args.feedback_format, group=group, reporting=how,
                            options=batch_options.of(args), new_reporting=args.new_reporting)
    return run_batch(args.batch, args.csv, jobs=args.jobs, resume=args.resume, limits=limits,
                     sandbox_mode=args.sandbox or "bwrap", tasks=tasks, seed=args.seed, only=args.only,
                     feedback=args.feedback, feedback_format=args.feedback_format, bonus=bonus,
                     shard=parse_shard(args.shard), group=group, reporting=how, options=batch_options.of(args),
                     new_reporting=args.new_reporting)
