"""The options a batch was graded and reported with, kept beside its records.

Every run of one batch (``--resume``, ``--only``, each ``--shard`` and their ``--merge``) must be given the
same grading and reporting options: a record keeps the grade it was made with, and the files are written
from all the records. A run given other ones would, silently, grade a regrade otherwise than the class or
write a gradebook without the late penalty the first run took. So the first run keeps them in the store
(``.grades_results/.options``), and a later run given other ones stops before grading anything, naming
each option that differs and what the batch had.

The files an option names (``--students``, ``--submitted``) are read again at every run, so that a group
or the submission times can grow between runs: what is kept of them is whether they were given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grader.grading import GraderFailure

# (the option, its argparse dest): those that decide a record's grade, then those that decide the files
GRADING = (("--tasks", "tasks"), ("--bonus", "bonus"), ("--bonus-cap", "bonus_cap"), ("--seed", "seed"),
           ("--sandbox", "sandbox"), ("--call-timeout", "call_timeout"), ("--budget", "budget"),
           ("--startup-timeout", "startup_timeout"), ("--memory-mb", "memory_mb"))
REPORTING = (("--canvas-assignment", "canvas_assignment"), ("--feedback-format", "feedback_format"),
             ("--not-handed-in", "not_handed_in"), ("--late-penalty", "late_penalty"), ("--late-cap", "late_cap"),
             ("--due", "due"), ("--students", "students"), ("--submitted", "submitted"))
FILES = {"students", "submitted"}  # read again at each run: kept as given or not
DOCS = "docs/platforms.md, 'Which options every run of a batch needs'"
NOT_GIVEN = "(not given)"


def of(args: argparse.Namespace) -> dict[str, str]:
    """The kept options of a run, each as the command line gave it (``NOT_GIVEN`` where it did not)."""
    kept = {}
    for flag, dest in GRADING + REPORTING:
        value = getattr(args, dest, None)
        if dest in FILES:
            kept[flag] = "given" if value else NOT_GIVEN
        else:
            kept[flag] = NOT_GIVEN if value is None else str(value)
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


def check_run(store_folder: Path, run: dict[str, str] | None, again: str) -> None:
    """Before a run grades anything: a new batch keeps this run's options (``again`` is ""); a run of an
    existing batch (``again``: "--resume" or "--only") has the batch's, or it stops. A batch kept before
    options were keeps this run's."""
    if run is None:
        return
    batch = kept(store_folder)
    if batch is None or not again:
        keep(store_folder, run)
        return
    if differ := differences(batch, run, [flag for flag, _ in GRADING + REPORTING]):
        raise GraderFailure(f"{again}: this run's options are not the batch's ({'; '.join(differ)}): give every run"
                            f" of a batch the same options ({DOCS}), or start a new batch with another --csv")


def check_merge(shards: dict[Path, Path], run: dict[str, str] | None, store_folder: Path) -> None:
    """``--merge``: the shards were graded alike, and the merge reports as they would (its grading options,
    which grade nothing, are not asked); the merged batch keeps the shards' options."""
    if run is None:
        return
    found = {csv: options for csv, folder in shards.items() if (options := kept(folder)) is not None}
    if not found:
        return
    (first_csv, first), *others = found.items()
    for csv, options in others:
        if differ := differences(first, options, [flag for flag, _ in GRADING + REPORTING], (str(first_csv), str(csv))):
            raise GraderFailure(f"--merge: shards {first_csv} and {csv} were not run with the same options"
                                f" ({'; '.join(differ)}): grade the odd one again with the others' ({DOCS})")
    if differ := differences(first, run, [flag for flag, _ in REPORTING], ("the shards", "this run")):
        raise GraderFailure(f"--merge: this run's reporting options are not its shards' ({'; '.join(differ)}):"
                            f" give it the shards' ({DOCS})")
    keep(store_folder, first)
