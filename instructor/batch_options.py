"""The options a batch was graded and reported with, kept beside its records.

Every run of one batch (``--resume``, ``--only``, each ``--shard`` and their ``--merge``) grades with the
same grading options: a record keeps the grade it was made with, so a regrade under other ones would be
graded otherwise than the class. And the files are written from all the records with the reporting
options: a regrade that forgot ``--late-penalty`` would silently write a gradebook without the penalty.
So the first run keeps both in the store (``.grades_results/.options``), and a later run given other
ones stops before grading anything, naming each option that differs and what the batch had. Reporting
options may change on purpose (a due date moved, a policy forgotten on the first run): ``--new-reporting``
then writes the files with the run's, and keeps them.

The files an option names (``--students``, ``--submitted``) are read again at every run, so that a group
or the submission times can grow between runs: what is kept of them is whether they were given. Values are
kept as they mean, not as typed: ``--tasks glu,mlp`` is ``--tasks mlp,glu``, no ``--sandbox`` is bwrap.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader.grading import GraderFailure

# (the option, its argparse dest): those that decide a record's grade, then those that decide the files
GRADING = (("--tasks", "tasks"), ("--bonus", "bonus"), ("--bonus-cap", "bonus_cap"), ("--seed", "seed"),
           ("--sandbox", "sandbox"), ("--call-timeout", "call_timeout"), ("--budget", "budget"),
           ("--startup-timeout", "startup_timeout"), ("--memory-mb", "memory_mb"))
REPORTING = (("--canvas-assignment", "canvas_assignment"), ("--feedback", "feedback"),
             ("--feedback-format", "feedback_format"), ("--not-handed-in", "not_handed_in"),
             ("--late-penalty", "late_penalty"), ("--late-cap", "late_cap"), ("--due", "due"),
             ("--students", "students"), ("--submitted", "submitted"))
FILES = {"students", "submitted"}  # read again at each run: kept as given or not
LISTS = {"tasks", "bonus"}  # comma-separated, in any order
DOCS = "docs/platforms.md, 'Which options every run of a batch needs'"
NOT_GIVEN = "(not given)"
SANDBOX_OF_A_BATCH = "bwrap"  # what a batch grades in without --sandbox (instructor/cli.py)


def of(args: argparse.Namespace) -> dict[str, str]:
    """The kept options of a run, each as it means (``NOT_GIVEN`` where the command line did not give it)."""
    kept = {}
    for flag, dest in GRADING + REPORTING:
        value = getattr(args, dest, None)
        if dest == "sandbox":
            value = value or SANDBOX_OF_A_BATCH
        if dest in FILES:
            kept[flag] = "given" if value else NOT_GIVEN
        elif value is None:
            kept[flag] = NOT_GIVEN
        elif dest in LISTS:
            kept[flag] = ",".join(sorted(part.strip().lower() for part in str(value).split(",") if part.strip()))
        elif dest == "feedback":
            kept[flag] = str(Path(value).resolve())
        else:
            kept[flag] = str(value)
    return kept


def _path(store_folder: Path) -> Path:
    return store_folder / ".options"  # no .json: never read as a record


def kept(store_folder: Path) -> dict[str, str] | None:
    """What the batch's first run kept; None for a store without it (a new batch, or one kept before this)."""
    try:
        data = json.loads(_path(store_folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None


def keep(store_folder: Path, options: dict[str, str]) -> None:
    store_folder.mkdir(parents=True, exist_ok=True)
    _path(store_folder).write_text(json.dumps(options, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def differences(one: dict[str, str], other: dict[str, str], flags, names=("the batch", "this run")) -> list[str]:
    return [f"{flag} {one.get(flag, NOT_GIVEN)} in {names[0]}, {other.get(flag, NOT_GIVEN)} in {names[1]}"
            for flag in flags if one.get(flag, NOT_GIVEN) != other.get(flag, NOT_GIVEN)]


def check_run(store_folder: Path, run: dict[str, str] | None, again: str, new_reporting: bool = False) -> None:
    """Before a run grades anything: a new batch keeps this run's options (``again`` is ""); a run of an
    existing batch (``again``: "--resume" or "--only") has the batch's, or stops; with ``new_reporting`` its
    reporting options may differ, said, and are kept. A batch kept before options were keeps this run's."""
    if run is None:
        return
    batch = kept(store_folder)
    if batch is None or not again:
        keep(store_folder, run)
        return
    if differ := differences(batch, run, [flag for flag, _ in GRADING]):
        raise GraderFailure(f"{again}: this run's grading options are not the batch's ({'; '.join(differ)}): its new"
                            f" grades would be graded otherwise than the others'; give the batch's ({DOCS}), or"
                            " start a new batch with another --csv")
    report_anew(batch, run, again, new_reporting)
    keep(store_folder, run)


def report_anew(batch: dict[str, str], run: dict[str, str], what: str, new_reporting: bool,
                names=("the batch", "this run")) -> None:
    """The reporting options may differ from ``batch``'s only with ``--new-reporting``, and it is said."""
    differ = differences(batch, run, [flag for flag, _ in REPORTING], names)
    if differ and not new_reporting:
        raise GraderFailure(f"{what}: this run's reporting options are not the batch's ({'; '.join(differ)}): give"
                            f" the batch's ({DOCS}), or add --new-reporting to write every file with this run's")
    if differ:
        print(f"--new-reporting: every file written with this run's reporting options ({'; '.join(differ)})",
              file=sys.stderr)


def check_merge(shards: dict[Path, Path], run: dict[str, str] | None, store_folder: Path,
                new_reporting: bool = False) -> None:
    """``--merge``: the shards were graded alike, and the merge reports as they did (its grading options,
    which grade nothing, are not asked; its reporting options differ only with ``new_reporting``)."""
    if run is None:
        return
    found = {csv: options for csv, folder in shards.items() if (options := kept(folder)) is not None}
    if not found:
        return
    (first_csv, first), *others = found.items()
    for csv, options in others:
        if differ := differences(first, options, [flag for flag, _ in GRADING], (str(first_csv), str(csv))):
            raise GraderFailure(f"--merge: shards {first_csv} and {csv} were not graded with the same options"
                                f" ({'; '.join(differ)}): grade the odd one again with the others' ({DOCS})")
    report_anew(first, run, "--merge", new_reporting, ("the shards", "this run"))
    keep(store_folder, {**first, **{flag: run.get(flag, NOT_GIVEN) for flag, _ in REPORTING}})
