"""The grader as a Classroom 50 autograder: what runs behind ``autograder.py`` (``--classroom50 DIR``).

Classroom 50 grades each submission in a GitHub Actions job in the student's repository. For an
assignment whose folder ``CLASSROOM/autograders/ASSIGNMENT/`` in the course's classroom50
repository holds an ``autograder.py``, its runner unpacks that folder somewhere of its own and runs
``python autograder.py`` with the student's checkout as the working directory and the submission's
identity in ``CLASSROOM``, ``ASSIGNMENT``, ``SUBMISSION_TAG``, ``COMMIT_URL``, ``RELEASE_URL`` and
``REVIEW_URL``. The autograder writes ``./result.json`` (schema ``classroom50/result/v1``) and may
write ``./release-body.md``, the Markdown of the submission's Release; it exits 0 when it graded
(whatever the score) and non-zero on an infrastructure error, which the runner reports as an error
instead of a score.

``main`` keeps that contract with the grader's own rules:

* the grader, the graded suites and the reference are this folder's; from the checkout only the
  exercise files are read, once, by the intake the batch and Gradescope use (``instructor/settle.py``:
  the checkout's ``exercises/``, names in another case, nested folders, links refused), into a private
  folder that is graded; what was found and not graded heads the student's Release;
* the grade comes from the bubblewrap sandbox or there is none: no sandbox, a missing requirement,
  a task left ungraded, or any other grader error leaves no ``result.json`` (one the checkout
  brought along is removed first) and exits 3 with the reason on one line;
* a submission that does not import, crashes or hangs is graded (0 for what it costs) like any other.
"""

from __future__ import annotations

import datetime
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader import report
from grader.submission_files import CHECKOUT_FOLDER
from instructor.exports import CPU_WHEELS, PLATFORMS
from instructor.settle import settle
from grader.cli import EXIT_GRADER_ERROR, EXIT_OK
from grader.grading import TASK_TITLES, GraderFailure, grade
from grader.results import BonusRule, Grade
from grader.probes.safe_text import markdown_cell, printable
from grader.tasks import TASKS

SCHEMA = "classroom50/result/v1"
RESULT, RELEASE_BODY = "result.json", "release-body.md"
NAME_BYTES = 100  # a test-name's limit, in UTF-8 bytes
# result.json's identity fields and the runner's variables they come from; REVIEW_URL may be empty.
IDENTITY = {"classroom": "CLASSROOM", "assignment": "ASSIGNMENT", "submission": "SUBMISSION_TAG",
            "commit": "COMMIT_URL", "release": "RELEASE_URL", "review": "REVIEW_URL"}
# Classroom 50 stops the whole grade job after 15 minutes (set-up and installs included), so a submission
# gets less than the grader's usual 300 s per task: the platform's budget split over the tasks it grades
# (instructor/exports.py), so a hang costs only its own task.
PLATFORM = PLATFORMS["classroom50"]
# Set after one install, so a failed one is not retried; its value is the install's seconds (the
# platform check reports them against what the limits leave for installs).
INSTALLED_ENV = "MLP_GRADER_INSTALLED"


def identity(env: dict[str, str]) -> dict[str, str]:
    """The submission's identity fields for result.json, from the runner's environment."""
    missing = [var for field, var in IDENTITY.items() if field != "review" and not env.get(var)]
    if missing:
        raise GraderFailure(f"{', '.join(missing)} not set: autograder.py runs under Classroom 50's runner")
    fields = {field: env.get(var, "") for field, var in IDENTITY.items()}
    fields["review"] = fields["review"] or fields["commit"]  # the runner's own fallback
    return fields


def cut_utf8(text: str, limit: int) -> str:
    """The longest start of ``text`` within ``limit`` UTF-8 bytes; a character is never split."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def fit_names(labels: list[str], limit: int = NAME_BYTES) -> list[str]:
    """Each label cut to ``limit`` bytes; one that its cut makes equal to an earlier one gets " ~2", " ~3"..."""
    names: list[str] = []
    taken: set[str] = set()
    for label in labels:
        name, n = cut_utf8(label, limit), 1
        while name in taken:
            n += 1
            name = cut_utf8(label, limit - len(f" ~{n}")) + f" ~{n}"
        taken.add(name)
        names.append(name)
    return names


def result_json(graded: dict, fields: dict[str, str], now: datetime.datetime | None = None) -> dict:
    """Classroom 50's result.json from the grader's JSON (``report.as_json``, schema in docs/grading.md).

    One entry per graded test, points as declared on the test; a failed one also carries its
    one-line ``message`` (escaped), which Classroom 50 keeps as an extra field of the test. The
    ``max-score`` is the core tasks' (the bonus tasks' tests are listed, marked "(bonus)"); the
    ``score`` the core points plus the bonus points in whole points, rounded down, and never above
    ``max-score``: Classroom 50 takes integers only and refuses a score above its maximum.
    """
    bonus = set(graded.get("bonus", []))
    names = fit_names([report.listed_name(t["task"], t["name"], t["task"] in bonus) for t in graded["tests"]])
    tests = []
    for test, name in zip(graded["tests"], names):
        passed = test["status"] == "passed"
        entry = {"test-name": name, "passed": passed, "score": int(test["points"]), "max-score": int(test["max"])}
        if not passed:
            entry["message"] = printable(test["message"])
        tests.append(entry)
    core = [entry for entry, test in zip(tests, graded["tests"]) if test["task"] not in bonus]
    most = sum(t["max-score"] for t in core)
    score = min(sum(t["score"] for t in core) + math.floor(graded.get("bonus_score", 0)), most)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return {"schema": SCHEMA, **fields, "datetime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "score": score, "max-score": most, "tests": tests}


def take_hand_in(checkout: Path, graded: Path, work: Path) -> str:
    """The checkout's exercise files, found as the batch and Gradescope find a hand-in (``instructor/settle.py``),
    written into ``graded``: what was found and not graded, for the student ("" when all is as expected).
    The intake looks in the checkout's ``exercises/`` where there is one (the repository's layout: the rest
    of it is the course's), else in the whole checkout; a link is never followed. Where nothing can be graded,
    ``graded`` is left empty, so every test says its file was not handed in."""
    folder = checkout / CHECKOUT_FOLDER
    if folder.is_symlink() or not folder.is_dir():
        folder = checkout
    note, why = settle(folder, graded, work)
    graded.mkdir(parents=True, exist_ok=True)
    if why:
        return f"Nothing was graded: {why}. Put the exercise files in {CHECKOUT_FOLDER}/ and push again."
    return note


def release_body(grade_: Grade, result: dict, said: str = "") -> str:
    """The Release's Markdown: what of the hand-in was not graded, points and the first failure per task,
    then every test."""
    heading = [f"**Your hand-in:** {markdown_cell(said)}", ""] if said else []
    lines = [*heading, report.markdown(grade_), "<details><summary>Every test</summary>", "",
             "| Test | Result | Points |", "| --- | --- | ---: |"]
    for t in result["tests"]:
        lines.append(f"| {markdown_cell(t['test-name'])} | {'PASS' if t['passed'] else 'FAIL'} |"
                     f" {t['score']}/{t['max-score']} |")
    return "\n".join(lines + ["", "</details>", ""])


def _module(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).replace("-", "_")


def ensure_requirements(requirements: list[str], tasks: list[str]) -> None:
    """Every requirement importable; on a GitHub Actions runner, pip installs what is missing once."""
    needed = [r for r in requirements if _module(r) != "triton" or any(t.triton for t in TASKS if t.name in tasks)]
    missing = [r for r in needed if importlib.util.find_spec(_module(r)) is None]
    if not missing:
        return
    wanted = " ".join(missing)
    if os.environ.get("GITHUB_ACTIONS") != "true" or os.environ.get(INSTALLED_ENV):
        raise GraderFailure(f"{', '.join(map(_module, missing))} not installed for {sys.executable}: install"
                            f" {wanted} (CPU torch: pip install --extra-index-url {CPU_WHEELS} ...)")
    print(f"autograder: installing {wanted} (CPU torch)", flush=True)
    started = time.monotonic()
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "--extra-index-url", CPU_WHEELS, *missing], stdin=subprocess.DEVNULL)
    if install.returncode != 0:
        raise GraderFailure(f"pip could not install {wanted} (exit {install.returncode}; its output is above)")
    # A fresh interpreter sees what was installed wherever pip put it (the user's site too).
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, INSTALLED_ENV: f"{time.monotonic() - started:.0f}"})


def ensure_bubblewrap() -> None:
    if shutil.which("bwrap") is None:
        raise GraderFailure('bubblewrap is not installed: add "bubblewrap" to the apt list of the'
                            " assignment's runtime")
    # GitHub's Ubuntu 24.04 runners forbid the unprivileged user namespaces bubblewrap needs; those
    # machines are the job's own and allow sudo. Anywhere else the setting is left alone, and if
    # the sandbox cannot start the grader says why.
    restrict = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
    if (os.environ.get("RUNNER_ENVIRONMENT") == "github-hosted" and os.geteuid() != 0
            and restrict.exists() and restrict.read_text().strip() == "1"):
        subprocess.run(["sudo", "-n", "sysctl", "-q", "-w", "kernel.apparmor_restrict_unprivileged_userns=0"],
                       stdin=subprocess.DEVNULL, check=False)


def remove_path(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def main(folder: Path, tasks: list[str], requirements: list[str], bonus: dict[str, float | None] | None = None,
         bonus_cap: float | None = None) -> int:
    """Grade the checkout in the working directory; see the module docstring for the contract. ``bonus``
    and ``bonus_cap`` as ``BonusRule``'s (``grader/results.py``); an autograder.py made before they
    existed passes neither."""
    checkout = Path.cwd()
    outputs = [checkout / RESULT, checkout / RELEASE_BODY]
    try:
        for path in outputs:  # a result.json the checkout brought along never stands as a grade
            remove_path(path)
        fields = identity(dict(os.environ))
        unknown = [t for t in tasks if t not in TASK_TITLES]
        if unknown or not tasks:
            raise GraderFailure(f"autograder.py: TASKS {tasks!r} must name tasks of {', '.join(TASK_TITLES)}")
        rule = BonusRule(dict(bonus), bonus_cap) if bonus else None
        if rule is not None:
            try:
                rule.check(tasks)
            except ValueError as exc:
                raise GraderFailure(f"autograder.py: BONUS {bonus!r}: {exc}") from None
        ensure_requirements(requirements, tasks)
        ensure_bubblewrap()
        with tempfile.TemporaryDirectory(prefix="classroom50-") as work:
            graded = Path(work) / "graded"
            said = take_hand_in(checkout, graded, Path(work) / "unpacked")
            grade_ = grade(graded, display=fields["submission"], limits=PLATFORM.limits(len(tasks)), sandbox_mode="bwrap",
                           tasks=tasks, bonus=rule)
        ungraded = [t for t in tasks if not grade_.task_tests(t)]
        if not grade_.sandboxed or ungraded:
            raise GraderFailure(f"not sandboxed ({grade_.isolation_summary})" if not grade_.sandboxed else
                                f"task {', '.join(ungraded)} not graded here: {'; '.join(grade_.not_graded)}")
        print(report.text(grade_), flush=True)
        result = result_json(report.as_json(grade_), fields)
        report.write_text(outputs[1], release_body(grade_, result, said))
        report.write_json(outputs[0], result)  # last: a result.json is a finished grade
    except (GraderFailure, OSError) as exc:
        for path in outputs:
            try:
                remove_path(path)
            except OSError:
                pass
        reason = printable(" ".join(str(exc).split()))
        print(f"::error::autograder could not grade (infrastructure error, no score): {reason}", file=sys.stderr)
        return EXIT_GRADER_ERROR
    return EXIT_OK
