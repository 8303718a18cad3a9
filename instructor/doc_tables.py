"""The documents' generated parts: what the task registry, the tests' points and the platforms' limits decide,
written by ``python -m instructor --doc-tables`` (between two markers, or in the points cells of a table of tests)
and compared with the code by ``selfcheck/test_docs.py``. A task added (``--new-task``) or reweighted changes
these, never the prose around them, so the prose never lists the tasks or quotes a test's points itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from grader import points
from grader.paths import REPO, display_path
from grader.grading import GraderFailure
from grader.results import shown
from grader.tasks import TASK_TITLES, TASKS, todo_span
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

    @property
    def missing(self) -> str:
        """What ``shown`` found no trace of, where it returns None."""
        return f"the markers {self.start} and {self.end} are not both there"

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
            raise GraderFailure(f"{display_path(self.doc)}: {self.missing}")
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


# A row of a points table: | `test_x[case/case]`, `test_y` | 2 each | what it checks |
POINTS_ROW = re.compile(r"^(?P<head>\| (?P<tests>`test_[^|]+)\| )(?P<points>[^|]+?)(?P<each> each)?(?P<tail> \|.*)$")


def declared_points() -> dict[str, dict[str, int | float]]:
    """Task -> test function -> its points, read from the suites' source by the grader's one reader (not run)."""
    return {task.name: {name: value for suite in task.suites
                        for name, value in points.declared(REPO / "tests" / suite, task.name).items()}
            for task in TASKS}


def _names(tests: str) -> list[str]:
    return [re.sub(r"\[.*", "", name) for name in re.findall(r"`(test_[^`]+)`", tests)]


def _matches(name: str, test: str) -> bool:
    return bool(re.fullmatch(re.escape(name).replace(r"\*", ".*"), test))


@dataclass(frozen=True)
class PointsColumn:
    """The points column of a document's tables of tests: what each row's tests are worth, from their markers
    (one number where every task the table's tests grade agrees, else one per task: ``MLP 2, GLU 4``). The rest
    of each row is prose; ``write`` changes the points cells alone, so a reweighted test is its marker's edit."""

    doc: Path
    name: str = "points"
    missing: str = "no table of tests with a points column (| `test_...` | 2 | ... |)"

    def rows(self) -> list[tuple[int, re.Match]]:
        return [(n, row) for n, line in enumerate(self.doc.read_text().splitlines(), 1) if (row := POINTS_ROW.match(line))]

    def cells(self) -> dict[int, str]:
        """{line: the cell the markers give it}. A table's tasks are those whose suites hold every test it names."""
        declared, tables, lines = declared_points(), [], self.doc.read_text().splitlines()
        for number, row in self.rows():
            if not tables or not all(line.startswith("|") for line in lines[tables[-1][-1][0]:number - 1]):
                tables.append([])
            tables[-1].append((number, _names(row["tests"])))
        cells, where = {}, display_path(self.doc)
        for table in tables:
            tasks = [task for task, tests in declared.items()
                     if all(any(_matches(name, test) for test in tests) for _, names in table for name in names)]
            if not tasks:
                raise GraderFailure(f"{where}:{table[0][0]}: a points table naming tests no task's suites hold")
            for number, names in table:
                worth = {}
                for task in tasks:
                    values = {v for name in names for test, v in declared[task].items() if _matches(name, test)}
                    if len(values) != 1:
                        raise GraderFailure(f"{where}:{number}: the row's tests are worth {sorted(values)} in {task}:"
                                            " one row per value")
                    worth[task] = values.pop()
                cells[number] = (shown(worth[tasks[0]]) if len(set(worth.values())) == 1
                                 else ", ".join(f"{TASK_TITLES[task]} {shown(value)}" for task, value in worth.items()))
        return cells

    def shown(self) -> str | None:
        """Each row's points cell as the document has it, a line each (``docs/exercises.md:54: 2``); None where
        the document has no such row, so that a check of it cannot pass on nothing."""
        rows = self.rows()
        return "\n".join(f"{display_path(self.doc)}:{number}: {row['points']}" for number, row in rows) if rows else None

    def make(self) -> str:
        return "\n".join(f"{display_path(self.doc)}:{number}: {cell}" for number, cell in self.cells().items())

    def write(self) -> bool:
        cells, lines = self.cells(), self.doc.read_text().splitlines(keepends=True)
        for number, row in self.rows():
            end = lines[number - 1][len(lines[number - 1].rstrip("\n")):]
            lines[number - 1] = f"{row['head']}{cells[number]}{row['each'] or ''}{row['tail']}{end}"
        new = "".join(lines)
        changed = new != self.doc.read_text()
        self.doc.write_text(new)
        return changed


GENERATED = (
    Generated(REPO / "docs" / "exercises.md", "tasks", tasks_table),
    Generated(LIMITS_DOC, "worst cases", limits_table),
    PointsColumn(REPO / "docs" / "exercises.md"),
)


def write_all() -> list[Path]:
    """Every generated part written again; the documents that changed."""
    return [part.doc for part in GENERATED if part.write()]
