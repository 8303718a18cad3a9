"""The variant checks of every task whose exercise has no variant module of its own: a task made by
``python -m instructor --new-task`` is checked here from its declaration alone (its suites, its exercise,
its marker), with the checks every exercise's variants get (``selfcheck.variant_checks``). A task whose
variants need checks of their own moves into a ``test_<exercise>_variants.py`` of its own, and leaves this.
"""

from __future__ import annotations

import ast

import pytest

from grader.paths import REPO
from grader.tasks import TASKS
from selfcheck.harness import VARIANTS
from selfcheck.variant_checks import GradedAlikeInTheRelease, VariantChecks


def exercises_with_their_own_checks() -> set[str]:
    """The exercises a ``selfcheck/test_*_variants.py`` class checks (its ``exercise`` attribute), read
    from the modules' source, so that no list of them is kept here."""
    claimed = set()
    for module in sorted((REPO / "selfcheck").glob("test_*_variants.py")):
        if module.name == "test_task_variants.py":
            continue
        for node in ast.walk(ast.parse(module.read_text())):
            if not (isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "VariantChecks" for b in node.bases)):
                continue
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    names = [t for target in statement.targets
                             for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
                    values = statement.value.elts if isinstance(statement.value, ast.Tuple) else [statement.value]
                    claimed |= {v.value for t, v in zip(names, values)
                                if getattr(t, "id", "") == "exercise" and isinstance(v, ast.Constant)}
    return claimed


def checks_for(task) -> type:
    """A test class of the shared checks for ``task``, marked with the task (``python -m selfcheck --task``)."""
    return type(f"TestVariantsOf_{task.name}", (VariantChecks, GradedAlikeInTheRelease), {
        "suite": task.suites, "exercise": task.exercise, "min_wrong": 1, "min_correct": 1,
        "pytestmark": [getattr(pytest.mark, task.name)], "__module__": __name__})


_OWN = exercises_with_their_own_checks()
for _task in TASKS:
    if _task.exercise not in _OWN and (VARIANTS / _task.exercise).is_dir():
        globals()[f"TestVariantsOf_{_task.name}"] = checks_for(_task)


def test_every_task_has_its_variants_checked():
    """A task's wrong and correct variants are checked somewhere: in a module of its own or here."""
    unchecked = [task.name for task in TASKS if task.exercise not in _OWN and not (VARIANTS / task.exercise).is_dir()]
    assert not unchecked, (f"tasks with no variants (selfcheck/variants/<exercise>/, at least one wrong and one"
                           f" correct): {', '.join(unchecked)}")


def test_every_module_of_its_own_checks_a_task():
    """A variant module of its own names a task's exercise (not one since renamed or removed)."""
    assert _OWN, "no selfcheck/test_*_variants.py class was found: the source reader above no longer finds them"
    assert _OWN <= {task.exercise for task in TASKS}, sorted(_OWN - {task.exercise for task in TASKS})
