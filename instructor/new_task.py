"""``python -m instructor --new-task NAME``: a small, complete, working task, to make into a real exercise.

It writes the task's own files from ``instructor/templates/new_task/`` (``__NAME__`` and ``__TITLE__``
filled in), and one line more, its declaration in ``grader/tasks.py``; then the stub from the reference
(``instructor/stubs.py``) and the reference's recorded answers to the new suite, for the student release
(``grader/judge/snapshot.py``), and the documents' generated tables (``instructor/doc_tables.py``).
Everything else (the grader, the release, the platform exports, the self-checks) reads the task from its
declaration. ``docs/instructors.md``, "Adding a task", walks through
making the example into the exercise.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from grader.paths import EXERCISES, HINTS_NAME, REPO, TESTS, display_path, reference_file
from grader.tasks import TASK_NAMES, TASKS

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new_task"
VARIANTS = REPO / "selfcheck" / "variants"
TASKS_FILE = REPO / "grader" / "tasks.py"
DECLARATIONS_END = "    # python -m instructor --new-task adds a task's declaration above this line\n"
NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
# pytest's own markers, and the grader's: a task's name is its marker, so it may not be one of these.
TAKEN_MARKERS = frozenset({"points", "parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings",
                           "tryfirst", "trylast"})


class NewTaskError(ValueError):
    """A name that cannot be a task's, or a file the new task would overwrite."""


def task_files(name: str) -> dict[Path, str]:
    """Each file the task is made of, and the template it is written from."""
    return {reference_file(name): "reference.py.tmpl",
            TESTS / f"test_{name}.py": "suite.py.tmpl",
            VARIANTS / name / "not_squared.py": "wrong_variant.py.tmpl",
            VARIANTS / name / "correct_clamp_square.py": "correct_variant.py.tmpl"}


def check_name(name: str, title: str) -> None:
    if not NAME.match(name) or keyword.iskeyword(name):
        raise NewTaskError(f"--new-task {name!r}: a task's name is its pytest marker and its file's name: lowercase"
                           " letters, digits and _, starting with a letter, at most 31 characters")
    if name in TASK_NAMES or name in TAKEN_MARKERS:
        raise NewTaskError(f"--new-task {name!r}: taken ({'a task' if name in TASK_NAMES else 'a pytest marker'});"
                           f" the tasks are {', '.join(TASK_NAMES)}")
    if name == HINTS_NAME:
        raise NewTaskError(f"--new-task {name!r}: taken (tests/snapshots/{HINTS_NAME}.json holds the recorded hints)")
    if name in {task.exercise for task in TASKS}:
        raise NewTaskError(f"--new-task {name!r}: exercises/{name}.py is another task's exercise")
    if not title.strip() or any(c in title for c in "\"\\\n|`"):
        raise NewTaskError(f"--title {title!r}: a title is one line of text, without quotes, backslashes, | or `"
                           " (it goes into a Python string and a Markdown table)")
    present = [display_path(path) for path in [EXERCISES / f"{name}.py", *task_files(name)] if path.exists()]
    if present:
        raise NewTaskError(f"--new-task {name!r}: {', '.join(present)} already there; nothing was written")


def declaration(name: str, title: str) -> str:
    return f'    Task("{name}", "{title}", "{name}", ("test_{name}.py",), (1,)),\n'


def make_task(name: str, title: str) -> list[Path]:
    """Write the task's files and its declaration; the paths written, the declaration's file last."""
    check_name(name, title)
    registry = TASKS_FILE.read_text()
    if registry.count(DECLARATIONS_END) != 1:
        raise NewTaskError(f"{display_path(TASKS_FILE)}: the line {DECLARATIONS_END.strip()!r} is not there once")
    written = []
    for path, template in task_files(name).items():
        text = (TEMPLATES / template).read_text().replace("__NAME__", name).replace("__TITLE__", title)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    TASKS_FILE.write_text(registry.replace(DECLARATIONS_END, declaration(name, title) + DECLARATIONS_END))
    return [*written, TASKS_FILE]


def finish(name: str) -> int:
    """In fresh processes (the registry now holds the task): the stub, the recorded answers, and the documents'
    generated tables (the tasks, and the worst cases: each task's share of a platform's budget)."""
    import subprocess
    import sys

    for command in (["-m", "instructor", "--stubs"], ["-m", "grader.judge.snapshot", "--task", name],
                    ["-m", "instructor", "--doc-tables"]):
        code = subprocess.call([sys.executable, *command], cwd=REPO)
        if code != 0:
            return code
    return 0


def next_steps(name: str) -> str:
    return (f"Next: python -m grader exercises --tasks {name} (the stub: 0 points); python -m selfcheck --task {name};"
            f" then make the example into the exercise: docs/instructors.md, 'Adding a task'. The reference is"
            f" {display_path(reference_file(name))}.")
