"""The files an LMS's gradebook imports as they are, one per LMS the hand-ins came from.

Each student is matched on the id the LMS put into the names of its download (``instructor/intake.py``
reads it; ``Record.lms_id``), and given the score as the grader counts it: every point earned, bonus
tasks' points included (``Grade.score``), less a late penalty under the batch's policy
(``instructor/late.py``); with ``--not-handed-in blank``, an empty cell for a student who handed in no
file of the graded tasks.

* Canvas (Grades > Import): the columns of Canvas's own gradebook export, ``Student, ID, SIS User ID,
  SIS Login ID, Section``, then the assignment's column, headed as that export heads it, its id in
  parentheses (``Homework 3 (12345)``: ``--canvas-assignment``), which Canvas matches on; a second row,
  ``Points Possible``, which Canvas reads as the assignment's points and no student. Canvas matches a
  student on ``ID``, the user id in its download's names (``smithalice_12345_67890_mlp_block.py``).
* Moodle: the number in its download's names (``Alice Smith_12345_assignsubmission_file_``) is the
  assignment's participant number, which no gradebook import knows (those match on the user's email,
  username or id number); the assignment's own grading worksheet does (Assignment > View all
  submissions > Upload grading worksheet, with "Offline grading worksheet" on in the assignment's
  feedback types). It reads these columns, by their English names: ``Identifier`` (``Participant
  12345``), ``Grade`` and ``Last modified (grade)``, and keeps a grade changed in Moodle after that time;
  and, where the assignment has "Feedback comments" on, ``Feedback comments`` (HTML): the feedback file's text.
* Canvas's feedback goes back through its "Re-upload Submissions" (a zip of files named as its download
  names them), which shows each under the name of the student's own file: ``canvas_feedback``.

A hand-in without an id, or a grading error, gets no row: the gradebook keeps what it has for them.
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections import Counter
from pathlib import Path

from grader.grading import GraderFailure
from grader.probes.safe_text import html_text, markdown_cell, printable
from instructor.batch_store import Record

CANVAS_STUDENT = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_ROW = "Points Possible"
CANVAS_COLUMN = re.compile(r"^\S.* \((\d+)\)$")  # "Homework 3 (12345)": the title, then the id Canvas matches on
MOODLE_COLUMNS = ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments"]
MOODLE_PARTICIPANT = "Participant "  # the Identifier's prefix before the participant number


def check_canvas_assignment(column: str | None, canvas_hand_ins: int) -> None:
    """Before anything is graded: the column Canvas's gradebook file needs, when hand-ins came from Canvas."""
    if column is None:
        if canvas_hand_ins:
            raise GraderFailure(f"--canvas-assignment: {canvas_hand_ins} hand-in(s) came from Canvas; give the"
                                " assignment's column as Canvas's gradebook export heads it (Grades > Export),"
                                " e.g. --canvas-assignment 'Homework 3 (12345)', for the file Canvas imports")
        return
    if not CANVAS_COLUMN.match(column):
        # An id there, but not as Canvas writes it (no space before it, a space inside): say that, not "no id".
        wrong = ("write it as Canvas does: the title, one space, then the id in parentheses with nothing else inside"
                 if re.search(r"\(\s*\d+\s*\)\s*$", column) else
                 "without the id Canvas would make a new assignment of that name")
        raise GraderFailure(f"--canvas-assignment {column!r}: give the column as Canvas's gradebook export heads it,"
                            f" the assignment's id in parentheses, e.g. 'Homework 3 (12345)'; {wrong}")


def students(records: list[Record], lms: str) -> tuple[list[Record], list[str]]:
    """The graded records from ``lms`` that its gradebook can match, and why each other one is left out."""
    mine = [r for r in records if r.lms == lms]
    ids = Counter(r.lms_id for r in mine if r.lms_id)
    kept, left_out = [], []
    for record in mine:
        if record.grade is None:
            continue  # an error row: nothing to import, the gradebook keeps what it has
        if not record.lms_id:
            left_out.append(f"{record.name}: no {lms} id in its file names")
        elif ids[record.lms_id] > 1:
            left_out.append(f"{record.name}: {lms} id {record.lms_id} is also another hand-in's")
        else:
            kept.append(record)
    return kept, left_out


def canvas(records: list[Record], assignment: str, cells: dict[str, object] | None = None) -> list[list]:
    """Canvas's gradebook import: the header, the Points Possible row, a row per student; ``cells``: each
    record's cell by name (the score after a late penalty, or "" for no grade), by default its score."""
    most = max((r.grade.max_score for r in records), default=0)
    rows = [[*CANVAS_STUDENT, assignment], [CANVAS_POINTS_ROW, "", "", "", "", most]]
    return rows + [[r.student, r.lms_id, "", "", "", cell(r, cells)] for r in records]


def cell(record: Record, cells: dict[str, object] | None) -> object:
    return record.grade.score if cells is None else cells[record.name]


def moodle(records: list[Record], feedback: dict[str, str], now: float | None = None,
           cells: dict[str, object] | None = None) -> list[list]:
    """Moodle's grading worksheet: the header and a row per student, modified now (this batch's end), with
    the student's feedback (plain text, ``feedback`` by record name) as the HTML Moodle shows."""
    modified = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    return [MOODLE_COLUMNS] + [[f"{MOODLE_PARTICIPANT}{r.lms_id}", r.student, cell(r, cells), r.grade.max_score,
                                modified, as_html(feedback.get(r.name, ""))] for r in records]


def as_html(text: str) -> str:
    """Plain text as Moodle's feedback comments show it: escaped, its lines kept."""
    return "<br>".join(html_text(line) for line in text.rstrip("\n").split("\n"))


def canvas_feedback(records: list[Record], feedback: dict[str, str], extension: str) -> dict[str, bytes]:
    """For Canvas's "Re-upload Submissions" (SpeedGrader's bulk feedback): one file per student, its name
    starting as Canvas's download named one of that student's files (``smithalice_12345_67890``), by which
    Canvas attaches it to the student's submission as a comment. Canvas shows it under that file's name
    (``mlp_block.py``), so it is written in that file's form (``in_the_form_of``)."""
    files = {}
    for r in records:
        if r.lms_prefix and r.name in feedback:
            suffix, body = in_the_form_of(r.lms_shown, feedback[r.name], extension)
            files[f"{r.lms_prefix}_feedback{suffix}"] = body
    return files


def in_the_form_of(shown: str, text: str, extension: str) -> tuple[str, bytes]:
    """(the suffix, the bytes) of feedback ``text`` (Markdown or plain, ``extension``) that a student opens as
    the file Canvas names it, ``shown``: Python comments for a ``.py``, a notebook of one cell for a
    ``.ipynb``, a zip holding the feedback for a ``.zip``, and the text itself for any other file. The
    student chose ``shown``: it never reaches the first two lines of the Python form (where an encoding
    declaration would be read) and never renders as markup in the notebook."""
    suffix = Path(shown).suffix.lower()
    heading = "Feedback on your hand-in: Canvas shows it under the name of the file you handed in"
    if suffix == ".py":
        # Comments, every line of them: any character that ends a line in Python (or elsewhere) starts
        # a new comment line, so nothing the feedback quotes can become code.
        lines = ["-*- coding: utf-8 -*-", f"{heading}; it is not that file.", f"(Your file: {printable(shown)})", "",
                 *text.rstrip("\n").splitlines()]
        return suffix, "".join(f"# {line}".rstrip() + "\n" for line in lines).encode("utf-8")
    if suffix == ".ipynb":
        named = markdown_cell(shown) if extension == "md" else printable(shown)
        cell = {"cell_type": "markdown" if extension == "md" else "raw", "metadata": {},
                "source": f"{heading} ({named}); it is not that file.\n\n{text}".splitlines(keepends=True)}
        notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}  # 4.4: cells need no id
        return suffix, (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    if suffix == ".zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(zipfile.ZipInfo(f"feedback.{extension}", date_time=(1980, 1, 1, 0, 0, 0)),
                             text.encode("utf-8"), compress_type=zipfile.ZIP_DEFLATED)
        return suffix, buffer.getvalue()
    return f".{extension}", text.encode("utf-8")
