"""What a batch writes beside its CSV, all of it from the store (``instructor/batch_store.py``), once, at
the end of each run (an interrupted one too).

For ``grades.csv``: the CSV itself, a row per record; ``grades_feedback/NAME.md`` (one per graded
submission, or ``--feedback DIR``; ``.txt`` with ``--feedback-format txt``; written by
``instructor/feedback.py``); ``grades_items.csv`` (per test: how many graded submissions fail it and
their most common message); ``grades_histogram.png``; ``grades_skipped.csv`` (the entries of the batch
folder that are no submission, with why); and, per LMS the hand-ins came from, the file its gradebook
imports (``grades_canvas.csv``, ``grades_moodle.csv``: ``instructor/gradebooks.py``), with the scores after
a late penalty where the batch has a policy (``instructor/late.py``). The feedback pages and Canvas's zip
hold the feedback not yet returned (``Reporting.fresh``); everything else holds every record. Each file is
written whole (``report.write_text``). Text from submissions is escaped as everywhere else: Markdown by
``markdown_cell``, HTML by ``html_text``, CSV by ``csv_cell``.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grader import report
from grader.grading import TASK_TITLES
from grader.results import Grade
from grader.probes.safe_text import csv_cell
from instructor import gradebooks
from instructor.batch_store import Record, Store
from instructor.feedback import feedback
from instructor.late import Late, Policy, assess

ITEM_COLUMNS = ["test", "task", "points", "graded", "failing", "share_failing", "most_common_message",
                "message_count"]
LMS_FILES = {"canvas": "_canvas.csv", "moodle": "_moodle.csv"}  # the gradebook file of each LMS, named after the CSV


def columns() -> list[str]:
    # score = core_score + bonus_score: with bonus tasks a score may pass max_score, and "63" of 63 may be
    # 53 core points and 10 bonus points, which only these columns tell apart.
    cols = ["submission", "score", "max_score", "core_score", "bonus_score", "bonus_max"]
    for task in TASK_TITLES:
        cols += [task, f"{task}_max"]
    # handed_in: false where no file of the graded tasks came (--not-handed-in blank leaves its gradebook
    # cell empty); late_penalty and final_score: under --late-penalty (instructor/late.py), beside the score.
    return cols + ["status", "first_failure", "sandboxed", "isolation", "seed", "seconds", "grader_peak_mb",
                   "lms", "lms_id", "handed_in", "late", "submitted", "late_penalty", "final_score", "note"]


@dataclass(frozen=True)
class Outputs:
    """Where a batch's files go: named after the CSV, beside it."""

    csv: Path
    feedback: Path
    feedback_format: str = "md"  # or "txt" (instructor/feedback.py)

    @classmethod
    def beside(cls, csv_path: Path, feedback: Path | None = None, feedback_format: str = "md") -> "Outputs":
        return cls(csv_path, feedback or csv_path.with_name(f"{csv_path.stem}_feedback"), feedback_format)

    def named(self, suffix: str) -> Path:
        return self.csv.with_name(f"{self.csv.stem}{suffix}")

    @property
    def store(self) -> Store:
        return Store(self.csv.with_name(f".{self.csv.stem}_results"))

    @property
    def lock(self) -> Path:
        """Held by the batch that writes these files (instructor/batch.py's BatchLock)."""
        return self.store.folder / ".lock"  # inside the store: nothing new beside the CSV

    @property
    def items(self) -> Path:
        return self.named("_items.csv")

    @property
    def histogram(self) -> Path:
        return self.named("_histogram.png")

    @property
    def skipped(self) -> Path:
        return self.named("_skipped.csv")

    def gradebook(self, lms: str) -> Path:
        return self.named(LMS_FILES[lms])

    @property
    def canvas_feedback(self) -> Path:
        """The feedback files for Canvas's re-upload of submissions (instructor/gradebooks.py)."""
        return self.named("_canvas_feedback.zip")

    def page(self, name: str) -> Path:
        return self.feedback / f"{name}.{self.feedback_format}"

    def all(self) -> set[Path]:
        """Everything the batch writes, so that a CSV kept inside the batch folder is not graded."""
        paths = [self.csv, self.feedback, self.store.folder, self.items, self.histogram, self.skipped]
        return {p.resolve() for p in paths + [self.gradebook(lms) for lms in LMS_FILES] + [self.canvas_feedback]}


def row_for(record: Record, late: Late | None = None) -> dict:
    """The record's CSV row (cells as they are: ``write_csv`` escapes them); ``late``: its standing under the
    batch's late policy, if it has one."""
    row = {c: "" for c in columns()}
    row.update(submission=record.name, lms=record.lms, lms_id=record.lms_id, late=record.late, note=record.note)
    result = record.grade
    if result is None:
        row.update(status="error", first_failure=record.error, seconds=f"{record.seconds:.1f}")
        return row
    if result.refused:  # files of the hand-in not read (a link, a FIFO, too large): graded as not handed in
        row["note"] = "; ".join([record.note] * bool(record.note) + [f"not read: {r}" for r in result.refused])
    row.update(score=result.score, max_score=result.max_score, core_score=result.core_score,
               bonus_score=result.bonus_score, bonus_max=result.bonus_max, isolation=result.isolation,
               sandboxed="true" if result.sandboxed else "false",  # as in the JSON report
               seed=result.seed, seconds=f"{result.seconds:.1f}", status="graded",
               grader_peak_mb=result.grader_peak_mb, handed_in="false" if record.handed_in_nothing else "true",
               final_score=result.score)
    if late is not None:
        row.update(final_score=late.final, late_penalty=late.points if late.periods else "",
                   submitted=late.submitted.strftime("%Y-%m-%d %H:%M:%S") if late.submitted else "")
        if late.unknown:
            row["note"] = "; ".join([row["note"]] * bool(row["note"]) + ["marked late, submission time not known:"
                                                                       " no late penalty applied"])
    for task in TASK_TITLES:
        row[task], row[f"{task}_max"] = result.task_points(task)
    first = result.first_failure()
    if first is not None:
        row["first_failure"] = f"{first.name}: {first.message}"
    return row


def items(grades: list[Grade]) -> list[dict]:
    """Per test: its task and points, how many graded submissions fail it, and their most common message."""
    tests: dict[str, dict] = {}
    for grade in grades:
        # A bonus task not handed in is no attempt at its tests: not counted as failing them.
        for t in (t for t in grade.tests if not grade.optional_not_handed_in(t.task)):
            item = tests.setdefault(t.name, {"test": t.name, "task": t.task, "points": t.max_points,
                                             "graded": 0, "failing": 0, "messages": Counter()})
            item["graded"] += 1
            if t.status != "passed":
                item["failing"] += 1
                item["messages"][t.message] += 1
    rows = []
    for item in tests.values():
        message, count = (item.pop("messages").most_common(1) or [("", 0)])[0]
        rows.append({**item, "share_failing": f"{item['failing'] / item['graded']:.3f}",
                     "most_common_message": message, "message_count": count})
    return rows


def write_csv(path: Path, header: list[str], rows: list[dict] | list[list]) -> None:
    """The whole file at once; every cell from a submission (names, messages) may act as no formula."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in (row if isinstance(row, list) else [row[c] for c in header])])
    report.write_text(path, text.getvalue())


def histogram_range(scores: list[float], max_score: int) -> tuple[float, int]:
    """The histogram's upper end and its number of bins: up to the highest score, since bonus points go
    past the maximum and a score outside the range would not be drawn at all."""
    top = max([max_score, *scores, 1])
    return top, min(math.ceil(top), 25)


def histogram(scores: list[int], max_score: int) -> bytes:
    """The scores as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    top, bins = histogram_range(scores, max_score)
    ax.hist(scores, bins=bins, range=(0, top), color="#4477aa", edgecolor="white")
    if scores:
        ax.axvline(statistics.median(scores), color="#cc3311", linestyle="--", label="median")
        ax.legend()
    ax.set_xlabel(f"score (of {max_score})")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{len(scores)} graded submissions")
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    plt.close(fig)
    return png.getvalue()


def write_gradebooks(outputs: Outputs, records: list[Record], canvas_assignment: str | None,
                     pages: dict[str, str], plain: dict[str, str], cells: dict[str, object] | None = None) -> list[Path]:
    """Per LMS the records came from, the file its gradebook imports, and the feedback in the form the LMS
    takes it back (``pages``: the feedback files returned this run; ``plain``: each graded record's as plain
    text, for Moodle's column; ``cells``: each graded record's gradebook cell, by default its score); a file
    that no record needs now is removed (it would import an earlier batch's grades)."""
    cells = cells if cells is not None else {r.name: r.grade.score for r in records if r.grade is not None}
    written = []
    for lms in LMS_FILES:
        path = outputs.gradebook(lms)
        if not any(record.lms == lms for record in records) or (lms == "canvas" and canvas_assignment is None):
            path.unlink(missing_ok=True)  # canvas without its column: the batch refused to start (batch.py)
            continue
        kept, left_out = gradebooks.students(records, lms)
        rows = (gradebooks.canvas(kept, canvas_assignment, cells) if lms == "canvas"
                else gradebooks.moodle(kept, plain, cells=cells))
        write_csv(path, rows[0], rows[1:])
        written.append(path)
        for why in left_out:
            print(f"not in {path.name}: {why}", file=sys.stderr)
        over = [cells[r.name] for r in kept if cells[r.name] != "" and cells[r.name] > r.grade.max_score]
        if lms == "moodle" and over:
            print(f"{path.name}: {len(over)} grade(s) above the maximum, with bonus points: Moodle's worksheet skips"
                  f" them unless the assignment's maximum grade is at least {max(over)}", file=sys.stderr)
    zipped = outputs.canvas_feedback
    canvas_pages = gradebooks.canvas_feedback(gradebooks.students(records, "canvas")[0], pages, outputs.feedback_format)
    if canvas_pages and canvas_assignment is not None:
        report.write_bytes(zipped, zip_of(canvas_pages))
        written.append(zipped)
    else:
        zipped.unlink(missing_ok=True)
    return written


def zip_of(files: dict[str, bytes]) -> bytes:
    """A zip of ``files`` (name -> bytes), the same bytes for the same files: members sorted, dated alike."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), files[name])
    return buffer.getvalue()


@dataclass(frozen=True)
class Reporting:
    """What a batch's reports follow besides its records: the options of the run that writes them, which
    every run of one batch (``--resume``, ``--only``, ``--merge``) is given alike."""

    canvas_assignment: str | None = None
    late: Policy | None = None         # --late-penalty, --late-cap, --due, --submitted
    blank_not_handed_in: bool = False  # --not-handed-in blank: no gradebook cell, no feedback, for no file at all
    fresh: frozenset[str] | None = None  # whose feedback goes back to the LMS this run (None: everyone's)


def feedback_pages(outputs: Outputs, records: list[Record], how: Reporting,
                   lates: dict[str, Late | None] | None = None) -> tuple[dict[str, str], dict[str, str], dict]:
    """(the feedback page of each record that has one, in the batch's format; the same in plain text, for a
    gradebook's comment column; each record's gradebook cell: its score after any late penalty, "" for none).
    An error has no feedback, nor, with ``--not-handed-in blank``, a student who handed in nothing."""
    lates = lates if lates is not None else {record.name: assess(how.late, record) for record in records}
    pages, plain, cells = {}, {}, {}
    for record in records:
        silent = how.blank_not_handed_in and record.handed_in_nothing  # nothing handed in: nothing to say
        if record.grade is None or silent:
            if silent:
                cells[record.name] = ""
            continue
        late = lates[record.name]
        cells[record.name] = late.final if late is not None else record.grade.score
        said = {"late": bool(record.late), "hand_in": row_for(record)["note"],
                "penalty": late.line(how.late) if late is not None and (late.periods or late.unknown or record.late)
                           else ""}
        plain[record.name] = feedback(record.student or record.name, record.grade, "txt", **said)
        pages[record.name] = feedback(record.student or record.name, record.grade, outputs.feedback_format, **said)
    return pages, plain, cells


def write_all(outputs: Outputs, records: list[Record], skipped: list[tuple[str, str]],
              canvas_assignment: str | None = None, how: Reporting | None = None) -> str:
    """Every file beside the CSV, and the CSV, from every record; returns the one-line summary of the batch.
    The feedback folder and Canvas's zip hold ``how.fresh``'s feedback alone (the others' pages are removed):
    a run comments once, on the students whose feedback changed."""
    how = how or Reporting(canvas_assignment)
    lates = {record.name: assess(how.late, record) for record in records}
    if unknown := sorted(name for name, late in lates.items() if late is not None and late.unknown):
        print(f"marked late, submission time not known (not in --submitted): no late penalty for"
              f" {', '.join(unknown)}", file=sys.stderr)
    write_csv(outputs.csv, columns(), [row_for(record, lates[record.name]) for record in records])
    graded = [record for record in records if record.grade is not None]
    outputs.feedback.mkdir(parents=True, exist_ok=True)
    every_page, plain, cells = feedback_pages(outputs, records, how, lates)
    pages = {name: page for name, page in every_page.items() if how.fresh is None or name in how.fresh}
    for record in records:
        if record.name in pages:
            report.write_text(outputs.page(record.name), pages[record.name])
        else:  # an error, a blank, or feedback already returned: none in the folder this run returns
            outputs.page(record.name).unlink(missing_ok=True)
    write_csv(outputs.items, ITEM_COLUMNS, items([record.grade for record in graded]))
    write_csv(outputs.skipped, ["entry", "reason"], [list(entry) for entry in skipped])
    scores = [record.grade.score for record in graded]
    top = max((record.grade.max_score for record in graded), default=0)
    report.write_bytes(outputs.histogram, histogram(scores, top))
    lms_files = write_gradebooks(outputs, records, how.canvas_assignment, pages, plain, cells)

    def shown(path: Path) -> str:
        return path.name if path.parent == outputs.csv.parent else str(path)

    errors = len(records) - len(graded)
    stats = (f"median {statistics.median(scores):g}/{top}, mean {statistics.mean(scores):.1f}" if scores
             else "no scores")
    files = [str(outputs.csv), shown(outputs.items), shown(outputs.histogram), shown(outputs.feedback) + "/"]
    files += [shown(outputs.skipped)] + [shown(path) for path in lms_files]  # written every run, if empty
    return (f"graded {len(scores)} of {len(records) + len(skipped)} entries: {errors} error{'s' * (errors != 1)},"
            f" {len(skipped)} skipped; {stats}; {', '.join(files)}")
