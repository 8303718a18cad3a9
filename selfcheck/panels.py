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
from pathlib import Path

from grader.tasks import TASKS
from selfcheck.harness import VARIANTS, expected_failures, module_constant

CONSTANT = "POLICY_TODOS"
PUBLIC_PREFIX = "public_"  # a kernel adapted from a public project: its rows are read beside its EXPERT_VERDICT


class NotLiteral(str):
    """A declaration whose value is no literal (``"1, " + "3"``): refused by the check."""

    def __repr__(self) -> str:
        return "a value that is no literal"


def exercises() -> list[str]:
    """Every task's exercise, once, in the registry's order."""
    return list(dict.fromkeys(task.exercise for task in TASKS))


def tasks_of(exercise: str) -> list[str]:
    return [task.name for task in TASKS if task.exercise == exercise]


def marks_of(exercise: str) -> list:
    """The markers of ``exercise``'s tasks, for a self-check's case (``python -m selfcheck --task NAME`` selects it)."""
    import pytest

    return [getattr(pytest.mark, task) for task in tasks_of(exercise)]


def todos_of(exercise: str) -> set[int]:
    return {n for task in TASKS if task.exercise == exercise for n in task.todos}


def declared(path: Path) -> tuple[bool, object]:
    """(whether the file assigns POLICY_TODOS, its value), read from the source as EXPECT_FAILURES is (never
    imported: it is code under test); a value that is no literal is returned as ``NotLiteral``, for the check."""
    try:
        value = module_constant(path, CONSTANT)
    except ValueError:
        return True, NotLiteral()
    return value is not None, value


@functools.lru_cache(maxsize=None)
def panel(exercise: str) -> tuple[str, ...]:
    """The variants of ``exercise`` that declare POLICY_TODOS, by their first TODO, the public kernels last."""
    folder = VARIANTS / exercise
    names = [path.stem for path in sorted(folder.glob("*.py")) if declared(path)[0]] if folder.is_dir() else []
    return tuple(sorted(names, key=lambda name: (name.startswith(PUBLIC_PREFIX), first_todo(exercise, name), name)))


def todo_column(exercise: str, name: str) -> str:
    """The variant's POLICY_TODOS, as the table prints it."""
    return str(declared(VARIANTS / exercise / f"{name}.py")[1])


def first_todo(exercise: str, name: str) -> int:
    numbers = re.findall(r"\d+", todo_column(exercise, name))
    return int(numbers[0]) if numbers else 0


def todo_numbers(value: str) -> list[int] | None:
    """"1, 3-4" -> [1, 3, 4]; None unless written as the table says TODOs: spans "n" or "n-m" (n < m), ", "
    between them, every number above the last."""
    if not re.fullmatch(r"\d+(-\d+)?(, \d+(-\d+)?)*", value):
        return None
    numbers: list[int] = []
    for part in value.split(", "):
        first, _, last = part.partition("-")
        span = list(range(int(first), int(last or first) + 1))
        if (last and int(last) <= int(first)) or (numbers and span[0] <= numbers[-1]):
            return None
        numbers += span
    return numbers


def declaration_problems(exercise: str) -> list[str]:
    """What is wrong with the POLICY_TODOS of ``exercise``'s variants: a row must be a wrong variant (it loses
    points) whose TODOs are TODOs of its exercise's tasks, written "n", "n, m" or "n-m"."""
    problems, known = [], todos_of(exercise)
    for name in panel(exercise):
        path = VARIANTS / exercise / f"{name}.py"
        value = declared(path)[1]
        if not expected_failures(path):
            problems.append(f"{path.name}: declares {CONSTANT} but expects no failure: a row of the policy"
                            " table is a wrong variant")
        numbers = todo_numbers(value) if isinstance(value, str) and not isinstance(value, NotLiteral) else None
        if numbers is None:
            problems.append(f"{path.name}: {CONSTANT} = {value!r}; expected the TODOs as the table says them, in"
                            " increasing order: \"1\", \"1, 3\" or \"1-4\"")
        elif not set(numbers) <= known:
            problems.append(f"{path.name}: {CONSTANT} = {value!r} names TODO {sorted(set(numbers) - known)}, which"
                            f" no task of exercises/{exercise}.py has (grader/tasks.py: {sorted(known)})")
    return problems
