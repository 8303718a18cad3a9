"""One hostile name through every output a grade or a batch writes, each read back as its reader would read it.

``HOSTILE`` is at once a hand-in's file name and a submission's message: an HTML tag, a Markdown link,
an entity, strikethrough, emphasis, a code span and a table's column break, a spreadsheet formula's start,
terminal escapes (a fake total in colour), a carriage return, a right-to-left override, XML's ``<`` and
``&``, and a newline. It reaches the outputs as it does in a batch: the name of a 65th ``.py`` file, which
``read_submission`` refuses (so the feedback and the reports say "not read: NAME"); the name of a file
beside a student's exercise file (so the intake's note names it); the name of an entry of the batch folder
that is no hand-in (so the skipped list names it); and a failing test's message and a note of what was not
graded, given raw here as if nothing before the output had escaped them. Each output must show it as text:
Markdown rendered by a CommonMark renderer holds no tag, link, emphasis or extra column of it; HTML parses
to no tag of it; no CSV cell that holds it starts a formula; JSON and XML parse and their strings hold no
control character; no text a terminal shows holds one, nor a line that the newline started.
"""

from __future__ import annotations

import csv
import html
import io
import json
import unicodedata
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from grader import report
from grader.paths import reference_file
from grader.probes.safe_text import printable
from grader.results import Grade
from grader.results import TestResult as Result
from grader.sandbox import MAX_SUBMISSION_FILES
from grader.submission_files import read_submission
from instructor import classroom50, gradebooks, intake, settle
from instructor.batch_reports import Outputs, write_all
from instructor.batch_store import Record
from instructor.feedback import feedback

# What the markup in it would do, if it were not quoted, and the text each reader must see instead.
MARKUP = "<img src=x onerror=alert(1)> [Regrade approved](https:\\\\evil.example\\regrade) &amp; ~~x~~ *b* `c` |"
HOSTILE = f"=1+2 {MARKUP} \x1b[2J\x1b[32mTotal: 98 of 98\x1b[0m\r\u202e\nsecond line"
CONTROLS = ("\x1b", "\r", "\u202e", "\x07")
MOODLE, CANVAS = "Mallory Evil_1001_assignsubmission_file_", "evilmallory_1002_5001_"
ASSIGNMENT = "Homework 3 (12345)"


def plain(text: str, where: str, lines: bool = False) -> None:
    """Text a terminal or a plain-text reader shows: no control character acts, and the newline starts no
    line (``lines``: a text of many lines, a test's whole output, whose lines are the submission's own)."""
    assert not [ch for ch in CONTROLS if ch in text], (where, text)
    assert lines or not [line for line in text.splitlines() if line.startswith("second line")], (where, text)
    assert not [ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\n\t"], (where, text)


def markdown(text: str, where: str) -> None:
    """Markdown, rendered as GitHub and the LMSs render it (CommonMark, tables, strikethrough)."""
    plain(text, where)
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert html.escape(MARKUP, quote=False) in rendered, (where, text, rendered)
    assert "<img" not in rendered and "<a " not in rendered and "<s>" not in rendered, (where, rendered)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)


def as_html(text: str, where: str) -> None:
    """HTML (Moodle's feedback comments): its lines' breaks are its only tags."""
    plain(text, where)
    tags = Tags()
    tags.feed(text)
    assert tags.tags <= {"br"}, (where, tags.tags, text)
    assert html.escape(MARKUP, quote=False) in text, (where, text)


def csv_rows(path: Path) -> list[list[str]]:
    """A CSV file: every cell that holds the name starts no formula, and no cell holds a control character."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    for cell in (cell for row in rows for cell in row):
        plain(cell, path.name)
        assert "onerror" not in cell or not cell.startswith(("=", "+", "-", "@")), (path.name, cell)
    return rows


def strings(data) -> list[str]:
    if isinstance(data, dict):
        return [s for value in data.values() for s in strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in strings(value)]
    return [data] if isinstance(data, str) else []


def as_json(data: dict, where: str) -> None:
    """JSON as written and read back: each string is text a reader may show."""
    for text in strings(json.loads(json.dumps(data))):
        plain(text, where, lines=True)
    assert any("onerror" in text for text in strings(data)), where


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict:
    """A batch folder holding the name three ways, its intake, a grade refusing it, and what the batch writes."""
    tmp = tmp_path_factory.mktemp("hostile")
    export = tmp / "export"
    (export / MOODLE).mkdir(parents=True)
    (export / MOODLE / "mlp_block.py").write_bytes(reference_file("mlp_block").read_bytes())
    (export / MOODLE / f"{HOSTILE}.pdf").write_bytes(b"%PDF-1.4\n")
    (export / f"{CANVAS}mlp_block.py").write_bytes(reference_file("mlp_block").read_bytes())
    (export / f"{HOSTILE}.pdf").write_bytes(b"%PDF-1.4\n")  # no student's: skipped, and named
    hand_in = tmp / "hand_in"  # the 65th .py file is refused, by its name
    hand_in.mkdir()
    for i in range(MAX_SUBMISSION_FILES):
        (hand_in / f"!{i:02d}.py").write_text("")
    (hand_in / f"{HOSTILE}.py").write_text("")
    refused = [str(r) for r in read_submission(hand_in).refused]
    assert len(refused) == 1 and "onerror" in refused[0], refused
    (tmp / "work").mkdir()
    found = intake.scan(export, tmp / "work")
    assert [entry for entry, _ in found.skipped] == [printable(f"{HOSTILE}.pdf")], found.skipped
    tests = [Result("test_mlp.py::test_gradients[MLP]", "mlp", 0, 2, "failed", HOSTILE, detail=HOSTILE,
                        kind="failed", cause="x")]
    grades = {sub.name: Grade(sub.name, seed=7, tests=tests, sandboxed=True, refused=refused, not_graded=[HOSTILE])
              for sub in found.submissions}
    records = [Record.of(sub, grades[sub.name]) for sub in found.submissions]
    assert sorted((r.lms, r.note != "") for r in records) == [("canvas", False), ("moodle", True)], records
    outputs = Outputs.beside(tmp / "out" / "grades.csv")
    write_all(outputs, records, found.skipped, ASSIGNMENT)
    return {"found": found, "records": records, "grade": grades[records[0].name], "outputs": outputs,
            "note": next(r.note for r in records if r.note)}


def test_markdown_feedback_and_the_canvas_zip_show_it_as_text(batch):
    pages = sorted(batch["outputs"].feedback.glob("*.md"))
    assert len(pages) == 2
    for page in pages:
        markdown(page.read_text(encoding="utf-8"), page.name)
    with zipfile.ZipFile(batch["outputs"].canvas_feedback) as zipped:
        assert zipped.namelist() == [f"{CANVAS[:-1]}_feedback.py"]  # shown as the student's mlp_block.py
        raw = zipped.read(zipped.namelist()[0])
        assert not compile(raw, "the Canvas feedback zip", "exec").co_names  # comments alone, whatever the names held
        markdown("\n".join(line[2:] for line in raw.decode("utf-8").splitlines()[4:]), "the Canvas feedback zip")


def test_plain_text_and_the_terminal_show_it_inert(batch):
    record = next(r for r in batch["records"] if r.note)
    plain(feedback(record.name, record.grade, "txt", hand_in=record.note), "feedback.txt")
    plain(report.text(batch["grade"]), "the terminal's table")
    plain(report.gradescope(batch["grade"])["output"], "Gradescope's output")
    for entry, reason in batch["found"].skipped + batch["found"].renamed:
        plain(f"skipped {entry}: {reason}", "the batch's stderr")


def test_csv_files_and_the_moodle_worksheet_start_no_formula_and_its_html_has_no_tag(batch):
    outputs = batch["outputs"]
    held = {}
    for path in (outputs.csv, outputs.items, outputs.skipped, outputs.gradebook("moodle"), outputs.gradebook("canvas")):
        held[path.name] = [cell for row in csv_rows(path) for cell in row if "onerror" in cell]
    assert held["grades_skipped.csv"] == ["'" + printable(f"{HOSTILE}.pdf")], held
    assert held["grades_items.csv"] and all(cell.startswith("'=1+2") for cell in held["grades_items.csv"]), held
    assert held["grades.csv"] and held["grades_moodle.csv"], held
    header, *rows = csv_rows(outputs.gradebook("moodle"))
    as_html(rows[0][header.index("Feedback comments")], "Moodle's feedback comments")
    as_html(gradebooks.as_html(HOSTILE), "as_html")


def test_reports_json_and_xml_show_it_as_text(batch):
    grade = batch["grade"]
    markdown(report.markdown(grade), "report.markdown")
    for name, data in (("--json", report.as_json(grade)), ("Gradescope", report.gradescope(grade)),
                       ("PrairieLearn", report.prairielearn(grade))):
        as_json(data, name)
    fields = {field: "x" for field in classroom50.IDENTITY}
    result = classroom50.result_json(report.as_json(grade), fields)
    as_json(result, "Classroom 50's result.json")
    markdown(classroom50.release_body(grade, result, HOSTILE), "Classroom 50's release body")
    written = ET.tostring(report.junit(grade).getroot(), encoding="unicode")
    assert "&lt;img" in written
    root = ET.fromstring(written)  # well-formed: XML 1.0 holds no control character but tab and newline
    for text in [e.text or "" for e in root.iter()] + [v for e in root.iter() for v in e.attrib.values()]:
        plain(text, "JUnit XML", lines=True)


def test_settle_json_names_it_as_text(batch, tmp_path):
    """Gradescope's and PrairieLearn's intake (``instructor/settle.py``): its note goes into their JSON."""
    note, why = settle.settle(batch["outputs"].csv.parent.parent / "export" / MOODLE, tmp_path / "out", tmp_path / "w")
    assert not why and "onerror" in note
    as_json({"note": note, "skipped": why}, "settle's JSON")
