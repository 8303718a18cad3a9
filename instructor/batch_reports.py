"""What a batch writes beside its CSV, rewritten from every row at the end of each run.

For ``grades.csv``: ``grades_feedback/NAME.md`` (one per graded submission, or ``--feedback DIR``; ``.txt``
with ``--feedback-format txt``; written by ``instructor/feedback.py``),
``grades_items.csv`` (per test: how many graded submissions fail it and their most common message),
``grades_histogram.png`` and ``grades_skipped.csv`` (the entries of the batch folder that are no
submission, with why). Each graded row's whole result is kept in ``.grades_results/NAME.json``
(``report.as_json``), so the files describe all rows after ``--resume`` and ``--only`` too. Text
from submissions is escaped as everywhere else: Markdown by ``markdown_cell``, CSV by ``csv_cell``.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grader import report
from grader.results import Grade
from grader.safe_text import csv_cell, file_name
from instructor.feedback import feedback

ITEM_COLUMNS = ["test", "task", "points", "graded", "failing", "share_failing", "most_common_message",
                "message_count"]


@dataclass(frozen=True)
class Outputs:
    """Where a batch's files go: named after the CSV, beside it."""

    csv: Path
    feedback: Path
    feedback_format: str = "md"  # or "txt" (instructor/feedback.py)

    @classmethod
    def beside(cls, csv_path: Path, feedback: Path | None = None, feedback_format: str = "md") -> "Outputs":
        return cls(csv_path, feedback or csv_path.with_name(f"{csv_path.stem}_feedback"), feedback_format)

    def _named(self, suffix: str) -> Path:
        return self.csv.with_name(f"{self.csv.stem}{suffix}")

    @property
    def results(self) -> Path:
        return self.csv.with_name(f".{self.csv.stem}_results")

    @property
    def items(self) -> Path:
        return self._named("_items.csv")

    @property
    def histogram(self) -> Path:
        return self._named("_histogram.png")

    @property
    def skipped(self) -> Path:
        return self._named("_skipped.csv")

    def all(self) -> set[Path]:
        """Everything the batch writes, so that a CSV kept inside the batch folder is not graded."""
        paths = [self.csv, self.feedback, self.results, self.items, self.histogram, self.skipped]
        return {p.resolve() for p in paths} | {self.csv.with_name(self.csv.name + ".tmp").resolve()}

    def result(self, name: str) -> Path:
        return self.results / f"{name}.json"


def keep_result(outputs: Outputs, name: str, grade: Grade | None) -> None:
    """Keep a graded submission's whole result; a submission that is now an error keeps none."""
    if grade is None:
        outputs.result(name).unlink(missing_ok=True)
    else:
        report.write_json(outputs.result(name), report.as_json(grade))


def kept_result(outputs: Outputs, name: str) -> Grade | None:
    try:
        return report.from_json(json.loads(outputs.result(name).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def items(grades: list[Grade]) -> list[dict]:
    """Per test: its task and points, how many graded submissions fail it, and their most common message."""
    tests: dict[str, dict] = {}
    for grade in grades:
        for t in grade.tests:
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


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    """The whole file at once (cells as given: escape them first)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)  # whole or not at all


def histogram(path: Path, scores: list[int], max_score: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    top = max(max_score, 1)
    ax.hist(scores, bins=min(top, 25), range=(0, top), color="#4477aa", edgecolor="white")
    if scores:
        ax.axvline(statistics.median(scores), color="#cc3311", linestyle="--", label="median")
        ax.legend()
    ax.set_xlabel(f"score (of {max_score})")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{len(scores)} graded submissions")
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp")
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)
    tmp.replace(path)


def write_all(outputs: Outputs, rows: list[dict], skipped: list[tuple[str, str]]) -> str:
    """Every file beside the CSV, from all of its rows; returns the one-line summary of the batch."""
    outputs.feedback.mkdir(parents=True, exist_ok=True)
    grades, missing = [], []
    for row in rows:
        if file_name(row["submission"]) != row["submission"]:
            continue  # not a name this grader gives (a row written by hand): no file is made from it
        grade = kept_result(outputs, row["submission"]) if row["status"] == "graded" else None
        page = outputs.feedback / f"{row['submission']}.{outputs.feedback_format}"
        if grade is None:
            page.unlink(missing_ok=True)  # an error row (or one graded elsewhere) has no feedback here
            missing += [row["submission"]] if row["status"] == "graded" else []
            continue
        grades.append(grade)
        page.write_text(feedback(row["submission"], grade, outputs.feedback_format), encoding="utf-8")
    write_csv(outputs.items, ITEM_COLUMNS, [{k: csv_cell(v) for k, v in row.items()} for row in items(grades)])
    write_csv(outputs.skipped, ["entry", "reason"], [{"entry": csv_cell(e), "reason": csv_cell(r)} for e, r in skipped])
    scores = [int(r["score"]) for r in rows if r["status"] == "graded"]
    top = max((int(r["max_score"]) for r in rows if r["status"] == "graded"), default=0)
    histogram(outputs.histogram, scores, top)

    def shown(path: Path) -> str:
        return path.name if path.parent == outputs.csv.parent else str(path)

    errors = sum(r["status"] != "graded" for r in rows)
    stats = (f"median {statistics.median(scores):g}/{top}, mean {statistics.mean(scores):.1f}" if scores
             else "no scores")
    files = [str(outputs.csv), shown(outputs.items), shown(outputs.histogram), shown(outputs.feedback) + "/"]
    files += [shown(outputs.skipped)] if skipped else []
    note = (f" ({len(missing)} graded row(s) without a kept result, so without feedback: rerun them with"
            f" --only NAME, e.g. {missing[0]})") if missing else ""
    return (f"graded {len(scores)} of {len(rows) + len(skipped)} entries: {errors} error{'s' * (errors != 1)}, {len(skipped)}"
            f" skipped; {stats}; {', '.join(files)}{note}")
