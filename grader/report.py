"""What a grade looks like: the terminal table, JSON, Gradescope, JUnit XML, Markdown.

Every format is written from a finished ``Grade`` by the grader's process, after the submission's
child processes are gone, so nothing the submission did can end up in them but its test outcomes.
Each says whether the submission ran sandboxed (``sandboxed``, decided by the grader alone). Messages
arrive with their control characters escaped (``grader/grading.py``); Markdown and CSV escape what is
special to them.
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.results import FIELDS, Grade, TestResult, task_title
from grader.safe_text import markdown_cell

JSON_SCHEMA = "mlp-block-grader/1"


def listed_name(task: str, name: str) -> str:
    """A test as the course platforms list it: its task's title, then its id."""
    return f"{task_title(task)}: {name}"


def _task_row(grade: Grade, task: str) -> tuple[str, str, str]:
    tests = grade.task_tests(task)
    passed = sum(t.status == "passed" for t in tests)
    return (task_title(task), f"{passed}/{len(tests)}",
            f"{sum(t.points for t in tests)}/{sum(t.max_points for t in tests)}")


def text(grade: Grade) -> str:
    lines = [f"Grade for {grade.submission}   (seed {grade.seed})",
             f"Sandboxed: {'yes' if grade.sandboxed else 'NO'} ({grade.isolation or 'no code was run'})", ""]
    rows = [("Task", "Tests passed", "Points")] + [_task_row(grade, task) for task in grade.tasks()]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for i, row in enumerate(rows):
        lines.append(f"  {row[0]:<{widths[0]}}   {row[1]:>{widths[1]}}   {row[2]:>{widths[2]}}")
        if i == 0:
            lines.append("  " + "-" * (sum(widths) + 6))
    optional = [task for task in grade.tasks() if grade.optional_not_handed_in(task)]
    failures = [(task, grade.first_failure(task)) for task in grade.tasks() if task not in optional]
    failures = [(task, t) for task, t in failures if t is not None]
    if failures:
        lines += ["", "First failure per task (fix this one first):"]
        for task, t in failures:
            lines.append(f"  {task_title(task)}: {t.name}")
            lines.append(f"      {t.message}")
    if optional:
        lines += ["", f"Not handed in (optional, bonus): {', '.join(task_title(t) for t in optional)}"]
    if grade.not_graded:
        lines += ["", "Not graded on this machine (not counted in the total):"]
        lines += [f"  {why}" for why in grade.not_graded]
    lines += ["", f"Total: {grade.score}/{grade.max_score} points{bonus_note(grade)}"]
    return "\n".join(lines)


def bonus_note(grade: Grade) -> str:
    if not grade.bonus:
        return ""
    titles = ", ".join(task_title(t) for t in grade.bonus)
    return f" ({titles}: bonus, its points count but not in the maximum)"


def as_json(grade: Grade) -> dict:
    tasks = []
    for task in grade.tasks():
        tests = grade.task_tests(task)
        first = grade.first_failure(task)
        tasks.append({"task": task, "title": task_title(task), "tests": len(tests),
                      "passed": sum(t.status == "passed" for t in tests),
                      "points": sum(t.points for t in tests), "max_points": sum(t.max_points for t in tests),
                      "bonus": task in grade.bonus,
                      "first_failure": None if first is None else {"name": first.name, "message": first.message}})
    return {
        "schema": JSON_SCHEMA,
        "submission": grade.submission,
        "seed": grade.seed,
        "sandboxed": grade.sandboxed,
        "isolation": grade.isolation,
        "score": grade.score,
        "max_score": grade.max_score,
        "bonus": grade.bonus,
        "seconds": round(grade.seconds, 2),
        "grader_peak_mb": grade.grader_peak_mb,
        "not_graded": grade.not_graded,
        "tasks": tasks,
        "tests": [{"name": t.name, "task": t.task, "points": t.points, "max": t.max_points,
                   "status": t.status, "message": t.message,
                   **{name: getattr(t, name) for name in FIELDS}} for t in grade.tests],
    }


def gradescope(grade: Grade) -> dict:
    """Gradescope's results.json: one entry per test, points as declared on the test."""
    tests = []
    for t in grade.tests:
        output = "passed" if t.status == "passed" else (t.detail or t.message)
        tests.append({"name": listed_name(t.task, t.name), "score": t.points, "max_score": t.max_points,
                      "status": "passed" if t.status == "passed" else "failed", "output": output,
                      "visibility": "visible"})
    return {"score": grade.score, "output": text(grade), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"sandboxed": grade.sandboxed, "isolation": grade.isolation, "seed": grade.seed}}


def junit(grade: Grade) -> ET.ElementTree:
    root = ET.Element("testsuites", name="grader", tests=str(len(grade.tests)))
    props = ET.SubElement(root, "properties")
    ET.SubElement(props, "property", name="sandboxed", value="true" if grade.sandboxed else "false")
    ET.SubElement(props, "property", name="isolation", value=grade.isolation)
    for task in grade.tasks():
        tests = grade.task_tests(task)
        suite = ET.SubElement(root, "testsuite", name=task_title(task), tests=str(len(tests)),
                              failures=str(sum(t.status == "failed" for t in tests)),
                              skipped=str(sum(t.status == "skipped" for t in tests)))
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="points", value=str(sum(t.points for t in tests)))
        ET.SubElement(props, "property", name="max_points", value=str(sum(t.max_points for t in tests)))
        for t in tests:
            case = ET.SubElement(suite, "testcase", classname=task_title(task), name=t.name)
            if t.status == "failed":
                failure = ET.SubElement(case, "failure", message=t.message)
                failure.text = t.detail or t.message
            elif t.status == "skipped":
                ET.SubElement(case, "skipped", message=t.message)
            ET.SubElement(case, "system-out").text = f"points: {t.points}/{t.max_points}"
    ET.indent(root)
    return ET.ElementTree(root)


def markdown(grade: Grade) -> str:
    lines = [f"### Grade: {grade.score}/{grade.max_score} points{bonus_note(grade)}", "",
             "| Task | Tests passed | Points | First failure |", "| --- | ---: | ---: | --- |"]
    for task in grade.tasks():
        title, passed, points = _task_row(grade, task)
        first = grade.first_failure(task)
        why = "" if first is None else f"{markdown_cell(first.name)}: {markdown_cell(first.message)}"
        lines.append(f"| {title} | {passed} | {points} | {why} |")
    lines += ["", f"Seed {grade.seed}. Sandboxed: {'yes' if grade.sandboxed else '**no**'}"
                  f" ({markdown_cell(grade.isolation or 'no code was run')})."]
    for why in grade.not_graded:
        lines.append(f"Not graded here: {markdown_cell(why)}")
    return "\n".join(lines) + "\n"


def write_json(path: Path, data: dict) -> None:
    write_text(path, json.dumps(data, indent=2) + "\n")


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """Write a report whole: readers never see half a file.

    The data goes to a new file of a fresh name beside ``path`` (created, never opened through a link
    someone left there), which then replaces ``path``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def from_json(data: dict) -> Grade:
    """The ``Grade`` that ``as_json`` wrote (messages, no details): a batch keeps one per submission."""
    tests = [TestResult(name=t["name"], task=t["task"], points=t["points"], max_points=t["max"],
                        status=t["status"], message=t["message"], **{name: t.get(name, "") for name in FIELDS})
             for t in data["tests"]]
    return Grade(submission=data["submission"], seed=data["seed"], tests=tests, isolation=data["isolation"],
                 sandboxed=data["sandboxed"], seconds=data["seconds"], grader_peak_mb=data["grader_peak_mb"],
                 not_graded=data["not_graded"], bonus=data.get("bonus", []))
