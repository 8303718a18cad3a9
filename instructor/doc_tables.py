"""The documents' generated parts: what the task registry and the platforms' limits decide, written
between two markers by ``python -m instructor --doc-tables`` and compared with the code by
``selfcheck/test_docs.py``. A task added (``--new-task``) or reweighted changes these tables, never the
prose around them, so the prose never lists the tasks itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from grader.paths import REPO, display_path
from grader.grading import GraderFailure
from grader.tasks import TASKS, todo_span
from instructor.exports import LIMITS_DOC, limits_table


@dataclass(frozen=True)
class Generated:
    doc: Path
    name: str  # the markers' words: <!-- NAME: start --> ... <!-- NAME: end -->
    make: Callable[[], str]

    @property
    def start(self) -> str:
        return f"<!-- {self.name}: start (generated: edit the code, not this table) -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}: end -->"

    def shown(self) -> str | None:
        """What the document holds between the markers now; None where they are not both there."""
        text = self.doc.read_text()
        if self.start not in text or self.end not in text.split(self.start, 1)[1]:
            return None
        return text.split(self.start, 1)[1].split(self.end, 1)[0].strip()

    def write(self) -> bool:
        """Write ``make()`` between the markers; True when that changed the document."""
        text = self.doc.read_text()
        if self.shown() is None:
            raise GraderFailure(f"{display_path(self.doc)}: the markers {self.start} and {self.end} are not both there")
        head, rest = text.split(self.start, 1)
        new = f"{head}{self.start}\n{self.make()}\n{self.end}{rest.split(self.end, 1)[1]}"
        self.doc.write_text(new)
        return new != text


@lru_cache(maxsize=1)
def full_marks() -> dict[str, int | float]:
    """{task: its full marks}: the points the grader's own plugin collects for its tests (each case of a
    parametrized test adds its points), in one collection of every suite, without running any."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}  # a selection there would drop tests
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "collected.jsonl"
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "tests", "--collect-only", "-q", "-p", "grader.plugin",
                                   "--grader-results", str(records), "-p", "no:cacheprovider"],
                                  cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            raise GraderFailure("the suites' collection took over 300 s: no full marks were written") from None
        lines = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
    # A suite that does not collect, or skips whole (a Triton suite where Triton is not installed), would
    # be written as fewer points: refused, with the suite named.
    missing = [f"{r['nodeid']} ({r['message'][:200]})" for r in lines if r["kind"] in ("collect_error", "collect_skip")]
    if done.returncode != 0 or missing:
        raise GraderFailure(f"the full marks need every suite collected (exit {done.returncode}); not collected here:"
                            f" {'; '.join(missing) or done.stdout[-1500:]}")
    marks: dict[str, int | float] = {task.name: 0 for task in TASKS}
    for record in (r for r in lines if r["kind"] == "collected"):
        marks[record["task"]] = round(marks[record["task"]] + record["points"], 2)
    empty = [name for name, total in marks.items() if not total]
    if empty:
        raise GraderFailure(f"no graded test collected for {', '.join(empty)}: no full marks were written")
    return marks


def tasks_table() -> str:
    marks = full_marks()
    rows = ["| task | `--tasks` | exercise | TODOs | graded by | full marks |", "|---|---|---|---|---|---|"]
    for task in TASKS:
        suites = ", ".join(f"`tests/{suite}`" for suite in task.suites)
        rows.append(f"| {task.title}{' (Triton)' if task.triton else ''} | `{task.name}` | `exercises/{task.exercise}.py`"
                    f" | {todo_span(task.todos)} | {suites} | {marks[task.name]:g} |")
    return "\n".join(rows)


GENERATED = (
    Generated(REPO / "docs" / "exercises.md", "tasks", tasks_table),
    Generated(LIMITS_DOC, "worst cases", limits_table),
)


def write_all() -> list[Path]:
    """Every generated part written again; the documents that changed."""
    return [part.doc for part in GENERATED if part.write()]
