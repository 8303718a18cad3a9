"""The task registry: every graded task, once.

A task is what a grade is split into: its name is the pytest marker its tests carry, its title is what
reports show, its exercise is the file a student edits (``exercises/<exercise>.py``) and its suites the
files that grade it (``tests/<suite>``, split by topic where one file would be too long to read).
Points live on the tests themselves (``@pytest.mark.points``, read by ``grader/points.py``);
the grading policy (in the instructor's repository) says what each known mistake costs.

Everything that grades, ships or checks a task reads it from here: a task is its declaration below and
its own files (``python -m instructor --new-task NAME`` writes both, in the instructor's repository). The
documents' table of tasks is written from it (``python -m instructor --doc-tables``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    exercise: str
    suites: tuple[str, ...]
    todos: tuple[int, ...]  # its TODOs in the exercise (``# BEGIN TODO n`` in its reference): no two tasks share one
    triton: bool = False  # its exercise is Triton kernels: Triton is a requirement, the code runs in a child


TASKS = (
    Task("mlp", "MLP", "mlp_block", ("test_mlp.py",), (1, 2)),
    Task("glu", "GLU", "mlp_block", ("test_mlp.py",), (3, 4)),
    Task("swiglu", "SwiGLU", "triton_swiglu",
         ("test_triton_swiglu.py", "test_triton_swiglu_autograd.py", "test_triton_swiglu_block.py"), (1, 2, 3, 4, 5, 6, 7),
         triton=True),
    Task("cost", "Cost", "mlp_cost", ("test_cost.py",), (1, 2, 3, 4, 5, 6, 7)),
    Task("gated", "Fused gated MLP", "triton_gated_mlp",
         ("test_triton_gated_mlp.py", "test_triton_gated_mlp_launch.py", "test_triton_gated_mlp_module.py"), (1, 2, 3, 4, 5),
         triton=True),
    # python -m instructor --new-task adds a task's declaration above this line
)
TASK_NAMES = tuple(task.name for task in TASKS)
TASK_TITLES = {task.name: task.title for task in TASKS}
TRITON_EXERCISES = frozenset(task.exercise for task in TASKS if task.triton)


def task_suites(names: Iterable[str]) -> tuple[str, ...]:
    """The suite files that grade the tasks ``names``, each once, in the registry's order (a suite may grade two)."""
    wanted = set(names)
    return tuple(dict.fromkeys(suite for task in TASKS if task.name in wanted for suite in task.suites))


SUITES = task_suites(TASK_NAMES)  # every graded suite file


def exercise_suites(exercise: str) -> tuple[str, ...]:
    """The suite files that grade ``exercise``: those of every task of it, each once, in the registry's order."""
    return tuple(dict.fromkeys(suite for task in TASKS if task.exercise == exercise for suite in task.suites))


def todo_span(todos: tuple[int, ...]) -> str:
    """(1, 2, 3) -> "TODO 1-3"; (1, 3) -> "TODO 1, 3": as the documents and messages say it."""
    runs: list[list[int]] = []
    for n in sorted(todos):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return "TODO " + ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def parse_tasks(value: str | None, option: str = "--tasks") -> list[str] | None:
    """``"mlp, glu"`` -> ["mlp", "glu"]; None or empty -> None (every task). Unknown names are refused."""
    if not value:
        return None
    tasks = [t.strip().lower() for t in value.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in TASK_TITLES]
    if unknown:
        raise ValueError(f"{option}: unknown task {', '.join(unknown)}; the tasks are {', '.join(TASK_NAMES)}")
    return tasks


def register_markers(config) -> None:
    """Register one pytest marker per task (``pytest -m glu`` runs one task), from this registry: called
    by the suites' conftest, and by the maintainers' self-checks, which import the suites."""
    for task in TASKS:
        config.addinivalue_line("markers", f"{task.name}: task {task.title} (exercises/{task.exercise}.py,"
                                           f" graded by {', '.join('tests/' + s for s in task.suites)})")
