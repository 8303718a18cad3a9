"""A batch's one store: a JSON file per submission, written whole when its grading ends.

For ``grades.csv`` the store is ``.grades_results/``; ``NAME.json`` holds what ``python -m grader
--json`` writes for that submission (``report.as_json``), with two fields more: ``status`` (``graded``)
and ``batch`` (the student, the LMS and its id for the student, how the files were found). A
submission whose grading failed has a small file of its own: ``status`` ``error``, the reason and the
seconds it ran. Beside them, ``.returned``: the fingerprint of each record and of the feedback a finished
run wrote from it for the LMS (``Store.not_returned``), so that a run returns only the feedback that changed:
a regrade's, or one a reporting change rewrote (a due date moved with ``--new-reporting``).
Nothing else is kept: the CSV, the feedback, the reports and the gradebook files are
all made from these files at the end of each run (``instructor/batch_reports.py``), so ``--resume``
(a graded file is done; an error is graded again), ``--only`` (one file replaced) and Ctrl-C (the
files written so far) all leave the same consistent set of files behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from grader import report
from grader.results import Grade
from grader.probes.safe_text import file_name
from instructor.intake import Submission

BATCH_FIELDS = ("student", "lms", "lms_id", "note", "late", "lms_prefix", "lms_shown")  # what the intake knew of the hand-in


@dataclass
class Record:
    """One submission's outcome: its grade, or the reason it has none."""

    name: str                  # unique and safe (intake): the file's stem, the CSV's submission
    grade: Grade | None = None
    error: str = ""            # why there is no grade (one line)
    seconds: float = 0.0       # how long the failed grading ran (a grade has its own)
    student: str = ""
    lms: str = ""              # "canvas", "moodle" or ""
    lms_id: str = ""           # the LMS's own id for the student, which its gradebook matches on
    note: str = ""             # how the files were found
    late: str = ""             # "late" where the LMS marked the hand-in late, else ""
    lms_prefix: str = ""       # Canvas: how its download's names start (the feedback files it takes back)
    lms_shown: str = ""        # Canvas: the student's file its comment shows the feedback file as

    @property
    def status(self) -> str:
        return "error" if self.grade is None else "graded"

    @property
    def handed_in_nothing(self) -> bool:
        """Graded, and no file of the graded tasks handed in: every test met a missing file (its fields say
        so, ``not_handed_in``), as for a student outside the group a task is for."""
        tests = self.grade.tests if self.grade is not None else []
        return bool(tests) and all(t.kind == "not_handed_in" for t in tests)

    @classmethod
    def of(cls, sub: Submission, grade: Grade | None, error: str = "", seconds: float = 0.0) -> "Record":
        return cls(sub.name, grade, error, seconds, student=sub.student, lms=sub.lms, lms_id=sub.student_id,
                   note=sub.note, late="late" if sub.late else "", lms_prefix=sub.lms_prefix,
                   lms_shown=sub.lms_shown)


def as_json(record: Record) -> dict:
    batch = {name: getattr(record, name) for name in BATCH_FIELDS}
    if record.grade is None:
        return {"schema": report.JSON_SCHEMA, "submission": record.name, "status": "error", "error": record.error,
                "seconds": round(record.seconds, 2), "batch": batch}
    return {**report.as_json(record.grade), "status": "graded", "batch": batch}


def from_json(name: str, data: dict) -> Record:
    batch = {key: str(data.get("batch", {}).get(key, "")) for key in BATCH_FIELDS}
    if data.get("status") == "error":
        return Record(name, None, str(data["error"]), float(data.get("seconds", 0.0)), **batch)
    return Record(name, report.from_json(data), **batch)


class Store:
    """The folder of one batch's records."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def keep(self, record: Record) -> None:
        """In place of the submission's earlier record, whole or not at all."""
        report.write_json(self.path(record.name), as_json(record))

    def records(self) -> list[Record]:
        """Every record, by name. A file that cannot be read counts as an error, so that its row stays
        in the CSV and ``--resume`` grades it again."""
        found = []
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            name = path.stem
            if file_name(name) != name:
                continue  # no name the intake gives: not a record of this batch
            try:
                found.append(from_json(name, json.loads(path.read_text(encoding="utf-8"))))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                found.append(Record(name, error=f"its record {path} cannot be read ({type(exc).__name__}):"
                                                f" grade it again with --resume or --only {name}"))
        return sorted(found, key=lambda record: record.name.casefold())

    @property
    def returned_file(self) -> Path:
        """Which records' feedback the files for the LMS (the feedback pages, Canvas's zip) held at the end
        of a run that finished: by each record's fingerprint, so that a regrade returns only what changed."""
        return self.folder / ".returned"  # no .json: never read as a record

    def fingerprint(self, name: str, page: str) -> str:
        """The record's bytes and the feedback ``page`` written from it: a change in either returns it again."""
        try:
            record = self.path(name).read_bytes()
        except OSError:
            return ""
        return hashlib.sha256(record + b"\0" + page.encode("utf-8", "replace")).hexdigest()

    def returned(self) -> dict[str, str]:
        """{name: fingerprint} of the feedback the last finished run returned ({} before any)."""
        try:
            returned = json.loads(self.returned_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return returned if isinstance(returned, dict) else {}

    def not_returned(self, pages: dict[str, str]) -> set[str]:
        """Of ``pages`` (name: the feedback written from its record now), those no finished run has returned as
        they are: all of them the first time; then a regraded record's, and one whose feedback a reporting
        change rewrote (its late penalty, its score after it)."""
        returned = self.returned()
        return {name for name, page in pages.items() if returned.get(name) != self.fingerprint(name, page)}

    def mark_returned(self, pages: dict[str, str]) -> None:
        report.write_json(self.returned_file, {name: self.fingerprint(name, page) for name, page in pages.items()})

    @property
    def dropped_folder(self) -> Path:
        return self.folder / "dropped"

    def drop(self, names: list[str]) -> None:
        """Records of submissions no longer in the batch folder: moved aside (``dropped/``), out of every
        report, not deleted."""
        self.dropped_folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            if self.path(name).exists():
                os.replace(self.path(name), self.dropped_folder / f"{name}.json")

    def graded(self) -> set[str]:
        """For ``--resume``: the submissions that are done."""
        return {record.name for record in self.records() if record.grade is not None}
