"""The policy panels: the wrong variants whose points are the rows of the table in ``docs/grading.md``.

A variant is a row where its file declares ``POLICY_TODOS``, the TODOs its one mistake is in as the
table's second column says them ("1, 3", "1-4"). Nothing else lists a panel: the table
(``selfcheck.grading_policy``), the seed panels (``selfcheck/test_seed_stability.py``) and the variant
pools (``selfcheck.variant_checks``) all read it from the files, per exercise, and an exercise's suites
from the task registry (``grader/tasks.py``). A task's variant that should be a row declares it; then
``python -m selfcheck.grading_policy --write`` measures its row.
"""

from __future__ import annotations

import functools
import re

from grader.tasks import TASKS
from selfcheck.harness import VARIANTS, expected_failures, module_constant

CONSTANT = "POLICY_TODOS"
PUBLIC_PREFIX = "public_"  # a kernel adapted from a public project: its rows are read beside its EXPERT_VERDICT


def exercises() -> list[str]:
    """Every task's exercise, once, in the registry's order."""
    return list(dict.fromkeys(task.exercise for task in TASKS))


def suites(exercise: str) -> tuple[str, ...]:
    """The suite files that grade ``exercise``: every task of it, each file once."""
    return tuple(dict.fromkeys(suite for task in TASKS if task.exercise == exercise for suite in task.suites))


def tasks_of(exercise: str) -> list[str]:
    return [task.name for task in TASKS if task.exercise == exercise]


def todos_of(exercise: str) -> set[int]:
    return {n for task in TASKS if task.exercise == exercise for n in task.todos}


@functools.lru_cache(maxsize=None)
def panel(exercise: str) -> tuple[str, ...]:
    """The variants of ``exercise`` that declare POLICY_TODOS, by their first TODO, the public kernels last."""
    folder = VARIANTS / exercise
    names = [path.stem for path in sorted(folder.glob("*.py")) if module_constant(path, CONSTANT) is not None] \
        if folder.is_dir() else []
    return tuple(sorted(names, key=lambda name: (name.startswith(PUBLIC_PREFIX), first_todo(exercise, name), name)))


def todo_column(exercise: str, name: str) -> str:
    """The variant's POLICY_TODOS, as the table prints it."""
    return module_constant(VARIANTS / exercise / f"{name}.py", CONSTANT)


def first_todo(exercise: str, name: str) -> int:
    numbers = re.findall(r"\d+", str(todo_column(exercise, name)))
    return int(numbers[0]) if numbers else 0


def declaration_problems(exercise: str) -> list[str]:
    """What is wrong with the POLICY_TODOS of ``exercise``'s variants: a row must be a wrong variant (it loses
    points) whose TODOs are TODOs of its exercise's tasks, written "n", "n, m" or "n-m"."""
    problems, known = [], todos_of(exercise)
    for name in panel(exercise):
        path = VARIANTS / exercise / f"{name}.py"
        value = todo_column(exercise, name)
        if not expected_failures(path):
            problems.append(f"{path.name}: declares {CONSTANT} but expects no failure: a row of the policy"
                            " table is a wrong variant")
        if not isinstance(value, str) or not re.fullmatch(r"\d+(-\d+)?(, \d+(-\d+)?)*", value):
            problems.append(f"{path.name}: {CONSTANT} = {value!r}; expected the TODOs as the table says them,"
                            " e.g. \"1\", \"1, 3\" or \"1-4\"")
            continue
        spans = [[int(n) for n in part.split("-")] for part in value.split(", ")]
        numbers = {n for span in spans for n in range(span[0], span[-1] + 1)}
        if not numbers <= known:
            problems.append(f"{path.name}: {CONSTANT} = {value!r} names TODO {sorted(numbers - known)}, which no"
                            f" task of exercises/{exercise}.py has (grader/tasks.py: {sorted(known)})")
    return problems
