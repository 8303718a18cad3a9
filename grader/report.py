"""What a grade looks like: the terminal table, JSON, Gradescope, JUnit XML, Markdown.

Every format is written from a finished ``Grade`` by the grader's process, after the submission's
child processes are gone, so nothing the submission did can end up in them but its test outcomes.
Each says whether the submission ran sandboxed (``sandboxed``, decided by the grader alone). What came
from the submission (its messages, the names of files not read, the submission's name) goes out through
its format's one function (``grader/probes/safe_text.py``), here where each format is written, whatever
was escaped before: ``markdown_cell`` in Markdown, ``printable`` in the terminal's text and in the
strings of JSON and JUnit XML (whose serializers quote their own syntax).
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.results import FIELDS, Grade, TestResult, rounded, shown, task_title
from grader.probes.safe_text import markdown_cell, printable

JSON_SCHEMA = "mlp-block-grader/1"


def listed_name(task: str, name: str, bonus: bool = False) -> str:
    """A test as the course platforms list it: its task's title (and "(bonus)"), then its id."""
    return f"{task_title(task)}{' (bonus)' if bonus else ''}: {name}"


def _task_row(grade: Grade, task: str) -> tuple[str, ...]:
    tests = grade.task_tests(task)
    earned, possible = grade.task_points(task)
    title = f"{task_title(task)} (bonus)" if task in grade.bonus else task_title(task)
    row = (title, f"{sum(t.status == 'passed' for t in tests)}/{len(tests)}", f"{earned}/{possible}")
    if not grade.bonus:
        return row
    return (*row, f"{shown(grade.task_bonus(task))}/{shown(grade.bonus_worth(task))}" if task in grade.bonus else "")


def sandbox_how(grade: Grade) -> str:
    """How the code ran, in words a student may read (no uid, no cgroup, no path): the instructor's
    detail (``isolation``) stays in the JSON report and the batch CSV."""
    return grade.isolation_summary or ("" if grade.isolation else "no code was run")


def total_line(grade: Grade) -> str:
    """'58/63 points', and with bonus tasks '58/63 points + bonus 4/10 = 62'."""
    core = f"{grade.core_score}/{grade.max_score} points"
    if not grade.bonus:
        return core
    capped = f" (at most {shown(grade.bonus_max)} in all)" if grade.bonus_capped() else ""
    return f"{core} + bonus {shown(grade.bonus_score)}/{shown(grade.bonus_max)}{capped} = {shown(grade.score)}"


def text(grade: Grade) -> str:
    how = f" ({sandbox_how(grade)})" if sandbox_how(grade) else ""
    lines = [f"Grade for {printable(grade.submission)}   (seed {grade.seed})",
             f"Sandboxed: {'yes' if grade.sandboxed else 'NO'}{how}", ""]
    header = ("Task", "Tests passed", "Points", "Bonus")[:4 if grade.bonus else 3]
    rows = [header] + [_task_row(grade, task) for task in grade.tasks()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for i, row in enumerate(rows):
        cells = [f"{row[0]:<{widths[0]}}"] + [f"{cell:>{width}}" for cell, width in zip(row[1:], widths[1:])]
        lines.append("  " + "   ".join(cells))
        if i == 0:
            lines.append("  " + "-" * (sum(widths) + 3 * (len(widths) - 1)))
    optional = [task for task in grade.tasks() if grade.optional_not_handed_in(task)]
    failures = [(task, grade.first_failure(task)) for task in grade.tasks() if task not in optional]
    failures = [(task, t) for task, t in failures if t is not None]
    if failures:
        lines += ["", "First failure per task (fix this one first):"]
        for task, t in failures:
            lines.append(f"  {task_title(task)}: {t.name}")
            lines.append(f"      {printable(t.message)}")
    if optional:
        lines += ["", f"Not handed in (optional, bonus): {', '.join(task_title(t) for t in optional)}"]
    if grade.refused:
        lines += ["", "Not read from the hand-in (graded as not handed in):"]
        lines += [f"  {printable(why)}" for why in grade.refused]
    if grade.not_graded:
        lines += ["", "Not graded on this machine (not counted in the total):"]
        lines += [f"  {printable(why)}" for why in grade.not_graded]
    lines += ["", f"Total: {total_line(grade)}"]
    return "\n".join(lines)


def as_json(grade: Grade) -> dict:
    tasks = []
    for task in grade.tasks():
        tests = grade.task_tests(task)
        first = grade.first_failure(task)
        bonus = task in grade.bonus
        tasks.append({"task": task, "title": task_title(task), "tests": len(tests),
                      "passed": sum(t.status == "passed" for t in tests),
                      **dict(zip(("points", "max_points"), grade.task_points(task))),
                      "bonus": bonus, "bonus_points": grade.task_bonus(task) if bonus else None,
                      "bonus_max": grade.bonus_worth(task) if bonus else None,
                      "first_failure": None if first is None else {"name": first.name,
                                                                   "message": printable(first.message)}})
    return {
        "schema": JSON_SCHEMA,
        "submission": printable(grade.submission),
        "seed": grade.seed,
        "sandboxed": grade.sandboxed,
        "isolation": grade.isolation,
        "isolation_summary": grade.isolation_summary,
        "score": grade.score,
        "max_score": grade.max_score,
        "core_score": grade.core_score,
        "bonus": list(grade.bonus),
        "bonus_weights": {task: grade.bonus_worth(task) for task in grade.graded_bonus()},
        "bonus_cap": grade.bonus_cap,
        "bonus_score": grade.bonus_score,
        "bonus_max": grade.bonus_max,
        "seconds": round(grade.seconds, 2),
        "grader_peak_mb": grade.grader_peak_mb,
        "not_graded": [printable(why) for why in grade.not_graded],
        "refused": [printable(why) for why in grade.refused],
        "files_digest": grade.files_digest,
        "tasks": tasks,
        "tests": [{"name": t.name, "task": t.task, "points": t.points, "max": t.max_points,
                   "status": t.status, "message": printable(t.message),
                   **{name: getattr(t, name) for name in FIELDS}} for t in grade.tests],
    }


def gradescope(grade: Grade) -> dict:
    """Gradescope's results.json: one entry per test, points as declared on the test; the top-level
    ``score`` (which Gradescope takes over the tests' sum) is the core points plus the bonus points.

    The tests' maxima add up to the assignment's (``max_score``): a bonus task's tests are worth 0 there
    and each earns its share of the task's bonus points (Gradescope shows a score over a test's maximum
    as extra credit). A bonus task not handed in is one line, not a failure per test."""
    tests = []
    for task in grade.tasks():
        bonus = task in grade.bonus
        if grade.optional_not_handed_in(task):
            tests.append({"name": f"{task_title(task)} (bonus): not handed in (optional)", "score": 0,
                          "max_score": 0, "status": "passed", "output": "Optional: nothing to fix.",
                          "visibility": "visible"})
            continue
        possible = grade.task_points(task)[1]
        for t in grade.task_tests(task):
            output = "passed" if t.status == "passed" else printable(t.detail or t.message, keep_newlines=True)
            score = rounded(grade.bonus_worth(task) * t.points / possible) if bonus and possible else t.points
            tests.append({"name": listed_name(t.task, t.name, bonus), "score": score,
                          "max_score": 0 if bonus else t.max_points,
                          "status": "passed" if t.status == "passed" else "failed",
                          "output": output, "visibility": "visible"})
    return {"score": grade.score, "output": text(grade), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests,
            # Stored for the instructor, never shown to students: the isolation's every detail.
            "extra_data": {"sandboxed": grade.sandboxed, "isolation": grade.isolation, "seed": grade.seed,
                           "max_score": grade.max_score, "core_score": grade.core_score,
                           "bonus_score": grade.bonus_score, "bonus_max": grade.bonus_max}}


def prairielearn(grade: Grade) -> dict:
    """PrairieLearn's external grader results.json: ``score`` is a share in [0, 1] (the core points of the
    maximum; bonus points raise it, up to 1), the tests as its ``<pl-external-grader-results>`` shows them,
    a bonus task's tests worth 0 of the maximum as on Gradescope, and a bonus task not handed in one line."""
    tests = []
    for entry in gradescope(grade)["tests"]:
        tests.append({"name": entry["name"], "points": entry["score"], "max_points": entry["max_score"],
                      "message": "" if entry["status"] == "passed" else entry["output"].splitlines()[0][:500],
                      "output": entry["output"]})
    share = min(1.0, grade.score / grade.max_score) if grade.max_score else 0.0
    return {"gradable": True, "score": round(share, 4), "message": total_line(grade), "output": text(grade),
            "tests": tests}


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
        earned, possible = grade.task_points(task)
        ET.SubElement(props, "property", name="points", value=str(earned))
        ET.SubElement(props, "property", name="max_points", value=str(possible))
        for t in tests:
            case = ET.SubElement(suite, "testcase", classname=task_title(task), name=t.name)
            if t.status == "failed":
                failure = ET.SubElement(case, "failure", message=printable(t.message))
                failure.text = printable(t.detail or t.message, keep_newlines=True)
            elif t.status == "skipped":
                ET.SubElement(case, "skipped", message=printable(t.message))
            ET.SubElement(case, "system-out").text = f"points: {t.points}/{t.max_points}"
    ET.indent(root)
    return ET.ElementTree(root)


def markdown(grade: Grade) -> str:
    bonus = " Bonus |" if grade.bonus else ""
    lines = [f"### Grade: {total_line(grade)}", "",
             f"| Task | Tests passed | Points |{bonus} First failure |",
             f"| --- | ---: | ---: |{' ---: |' if bonus else ''} --- |"]
    for task in grade.tasks():
        cells = " | ".join(_task_row(grade, task))
        first = grade.first_failure(task)
        why = "" if first is None else f"{markdown_cell(first.name)}: {markdown_cell(first.message)}"
        lines.append(f"| {cells} | {why} |")
    how = f" ({markdown_cell(sandbox_how(grade))})" if sandbox_how(grade) else ""
    lines += ["", f"Seed {grade.seed}. Sandboxed: {'yes' if grade.sandboxed else '**no**'}{how}."]
    for why in grade.refused:
        lines.append(f"Not read from the hand-in: {markdown_cell(why)}")
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
    """The ``Grade`` that ``as_json`` wrote (messages, no details): a batch keeps one per submission.
    A report of an earlier version (bonus tasks as a list, no weights, no isolation summary) reads too."""
    tests = [TestResult(name=t["name"], task=t["task"], points=t["points"], max_points=t["max"],
                        status=t["status"], message=t["message"], **{name: t.get(name, "") for name in FIELDS})
             for t in data["tests"]]
    weights = data.get("bonus_weights") or {}
    return Grade(submission=data["submission"], seed=data["seed"], tests=tests, isolation=data["isolation"],
                 isolation_summary=data.get("isolation_summary", ""), sandboxed=data["sandboxed"],
                 seconds=data["seconds"], grader_peak_mb=data["grader_peak_mb"], not_graded=data["not_graded"],
                 refused=[str(r) for r in data.get("refused", [])], files_digest=str(data.get("files_digest", "")),
                 bonus={task: weights.get(task) for task in data.get("bonus", [])}, bonus_cap=data.get("bonus_cap"))
