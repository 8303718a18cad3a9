"""The grading policy, measured: what each known mistake costs, per task.

Each exercise's panel of wrong implementations (its variants that declare ``POLICY_TODOS``:
``selfcheck/panels.py``) is graded in full, and each row of the table says how many points of each task
it loses. ``docs/grading.md`` holds the table between two markers; ``selfcheck/test_seed_stability.py``
grades every panel under two seeds and requires each to give the table's row::

    python -m selfcheck.grading_policy           # print the table as it is measured now
    python -m selfcheck.grading_policy --write   # and write it into docs/grading.md

Run ``--write`` after changing a test's points or a verdict, and commit the table with the change.
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.results import rounded, shown
from grader.tasks import TRITON_EXERCISES, exercise_suites
from selfcheck.harness import REPO, VARIANTS, Outcome, parallel, run_variant
from selfcheck.panels import PUBLIC_PREFIX, exercises, panel, todo_column
from selfcheck.sample import panel_share
from selfcheck.variant_checks import FAST
from tests.conftest import TASKS

POLICY_FILE = REPO / "docs" / "grading.md"
START, END = "<!-- policy table: start (python -m selfcheck.grading_policy --write) -->", "<!-- policy table: end -->"


def panel_this_push(exercise: str) -> list[str]:
    """The variants of ``exercise``'s panel this push grades in full (``selfcheck/sample.py``), in the panel's order."""
    return panel_share(exercise, panel(exercise))


@functools.lru_cache(maxsize=None)
def graded_points(exercise: str) -> dict[str, tuple[str, int]]:
    """Each test of ``exercise``'s suites (its id as in a report) -> (task, points), from the grader's own plugin.
    Collected once per process: a seed panel asks it for every variant, and the suites do not change
    while one runs (a collection is a pytest start, seconds). Callers must not change what it returns."""
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "collected.jsonl"
        subprocess.run([sys.executable, "-m", "pytest", *(f"tests/{name}" for name in exercise_suites(exercise)),
                        "--collect-only", "-q", "-p", "grader.plugin",
                        "--grader-results", str(records), "-p", "no:cacheprovider"],
                       cwd=REPO, capture_output=True, text=True, check=False, timeout=300)
        lines = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
    points = {r["nodeid"].split("::", 1)[1]: (r["task"], r["points"]) for r in lines if r["kind"] == "collected"}
    if not points:
        raise RuntimeError(f"no graded test collected from {', '.join(f'tests/{name}' for name in exercise_suites(exercise))}")
    return points


def points_lost(points: dict[str, tuple[str, int]], outcomes: dict[str, Outcome]) -> dict[str, int]:
    """Task -> points lost: a test that did not pass (or did not report) loses all of its points."""
    lost: dict[str, int] = {}
    for test_id, (task, worth) in points.items():
        passed = test_id in outcomes and outcomes[test_id].status == "passed"
        lost[task] = lost.get(task, 0) + (0 if passed else worth)
    return lost


def grade_panel(exercise: str) -> dict[str, dict[str, int]]:
    """Variant -> task -> points lost, each variant of ``exercise``'s panel graded in full, seed 0."""
    names = panel(exercise)
    points = graded_points(exercise)
    calls = {name: (lambda name=name: run_variant(exercise_suites(exercise), exercise, VARIANTS / exercise / f"{name}.py",
                                                  **FAST))
             for name in names}
    with parallel(calls) as futures:
        return {name: points_lost(points, futures[name].result()[1]) for name in names}


def what_it_is(exercise: str, name: str) -> str:
    first = (VARIANTS / exercise / f"{name}.py").read_text().split('"""')[1]
    return first.removeprefix("Wrong: ").rstrip(".")


def table() -> str:
    """The policy table, measured now: every exercise's panel, with the suites' default data (seed 0)."""
    rows = []
    for exercise in exercises():
        names = panel(exercise)
        if not names:
            continue
        points = graded_points(exercise)
        tasks = [task for task in TASKS if any(t == task for t, _ in points.values())]
        totals = {t: sum(p for task, p in points.values() if task == t) for t in tasks}
        lost = grade_panel(exercise)
        rows.append(f"\n{', '.join(f'`tests/{name}`' for name in exercise_suites(exercise))} (`exercises/{exercise}.py`)\n")
        rows.append("| mistake | TODO | variant | " + " | ".join(f"{t} (of {shown(totals[t])})" for t in tasks) + " |")
        rows.append("|---|---|---|" + "---:|" * len(tasks))
        for name in names:
            cells = " | ".join(f"-{shown(lost[name][t])}" if lost[name][t] else "0" for t in tasks)
            rows.append(f"| {what_it_is(exercise, name)} | {todo_column(exercise, name)} | `{name}` | {cells} |")
        rows.extend(per_todo(exercise, names, lost, tasks, totals))
    return "\n".join(rows).lstrip("\n") + "\n"


BONUS = 5  # the bonus the Triton tasks are often worth (--bonus swiglu=5): what a mistake leaves of it


def per_todo(exercise: str, names: tuple[str, ...], lost: dict[str, dict[str, int]], tasks: list[str],
             totals: dict[str, int]) -> list[str]:
    """Under a task's table: what one mistake in each TODO costs, from the rows whose mistake is in one
    TODO (public kernels aside), as points of the suite's tasks and, for a Triton task, of a bonus."""
    single: dict[str, list[str]] = {}
    for name in names:
        if not name.startswith(PUBLIC_PREFIX) and todo_column(exercise, name).isdigit():
            single.setdefault(todo_column(exercise, name), []).append(name)
    if not single:
        return []
    total = sum(totals.values())
    lines = ["", f"One mistake in one TODO (the rows above with one TODO) costs, of {shown(total)}:"]
    for todo in sorted(single, key=int):
        costs = sorted(sum(lost[name][t] for t in tasks) for name in single[todo])
        span = shown(costs[0]) if costs[0] == costs[-1] else f"{shown(costs[0])}-{shown(costs[-1])}"
        line = f"- TODO {todo}: {span} ({len(costs)} mistake{'s' if len(costs) > 1 else ''})"
        if exercise in TRITON_EXERCISES:
            keeps = [BONUS * (total - c) / total for c in (costs[-1], costs[0])]
            line += f"; as a {BONUS}-point bonus, keeps {keeps[0]:.2f}" + (
                f"-{keeps[1]:.2f}" if costs[0] != costs[-1] else "")
        lines.append(line)
    return lines


def written_table() -> str:
    text = POLICY_FILE.read_text()
    return text[text.index(START) + len(START):text.index(END)].strip("\n") + "\n"


def written_lines(exercise: str) -> list[list[str]]:
    """The cells of each row of docs/grading.md's table for ``exercise``'s panel, its header first; [] where
    the table has no section for it."""
    table, heading = written_table(), f"`tests/{exercise_suites(exercise)[0]}`"
    if heading not in table:
        return []
    section = table.split(heading, 1)[1].split("\n`tests/", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[:1] + lines[2:]]


def written_rows(exercise: str) -> dict[str, dict[str, int | float]]:
    """The table in docs/grading.md for ``exercise``'s panel, as variant -> task -> points lost ({}: none)."""
    lines = written_lines(exercise)
    if not lines:
        return {}
    tasks = [cell.split(" ")[0] for cell in lines[0][3:]]
    return {cells[2].strip("`"): {task: rounded(-float(value)) if value != "0" else 0 for task, value in zip(tasks, cells[3:])}
            for cells in lines[1:]}


def written_todos(exercise: str) -> dict[str, str]:
    """The table's TODO column for ``exercise``'s panel: variant -> its TODOs as written."""
    return {cells[2].strip("`"): cells[1] for cells in written_lines(exercise)[1:]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m selfcheck.grading_policy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the measured table into docs/grading.md")
    write = parser.parse_args(argv).write
    measured = table()
    print(measured)
    if write:
        text = POLICY_FILE.read_text()
        head, tail = text.split(START, 1)[0], text.split(END, 1)[1]
        POLICY_FILE.write_text(f"{head}{START}\n{measured}{END}{tail}")
        print(f"wrote {POLICY_FILE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
