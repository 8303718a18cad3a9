"""A graded test's points: written once, on the test, and read by ``worth`` alone.

A test says what it is worth with ``@pytest.mark.points(...)`` beside its task marker:

* ``@pytest.mark.points(2)``: 2 points, in whichever task the test grades;
* ``@pytest.mark.points(1.5)``: fractional points, to a hundredth (every output but Classroom 50's, which
  scores whole points, takes them: its export refuses such a test by name);
* ``@pytest.mark.points(mlp=1, glu=2)``: one value per task, for a test that grades two (``test_mlp.py``
  grades ``MLP`` and ``GLU`` with the same test function, one parameter each).

Reweighting a test is one edit of its marker (then ``python -m selfcheck.grading_policy --write`` measures
the policy table again). The suites' conftest refuses a graded test whose points ``worth`` cannot read, the
grader's plugin reports what ``worth`` says, and the documents' checks read the markers' source with it.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

MARKER = "points"
MOST = 100  # a test worth more than a task's whole marks is a typing slip


class PointsError(ValueError):
    """A ``points`` marker that does not say what a test is worth in its task."""


def worth(args: tuple, kwargs: dict, task: str) -> int | float:
    """What a test carrying ``points(*args, **kwargs)`` is worth in ``task``; PointsError otherwise."""
    if args and kwargs or len(args) > 1:
        raise PointsError(f"points{_shown(args, kwargs)}: give one value, points(2), or one per task,"
                          " points(mlp=1, glu=2)")
    if kwargs:
        if task not in kwargs:
            raise PointsError(f"points{_shown(args, kwargs)} gives no value for its task {task!r}")
        value = kwargs[task]
    elif args:
        value = args[0]
    else:
        raise PointsError("points() without a value: points(n) with n > 0")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= MOST or round(value, 2) != value:
        raise PointsError(f"points{_shown(args, kwargs)}: {value!r} is no number of points; a number above 0 and"
                          f" at most {MOST}, to a hundredth (2, 0.5)")
    return int(value) if whole(value) else value


def whole(value: int | float) -> bool:
    return float(value).is_integer()


def declared(suite: Path, task: str) -> dict[str, int | float]:
    """{test function: what it is worth in ``task``} of a suite file, read from its source (never run): for
    the documents' checks and the exports, which must not import the suites. A function marked for other
    tasks only (``@pytest.mark.glu``, or ``points(glu=2)``, in a file ``task`` shares) is left out; one
    whose task comes from its parameters (``test_mlp.py``'s blocks) counts in each."""
    from grader.tasks import TASK_NAMES

    found = {}
    for node in ast.walk(ast.parse(suite.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
            continue
        marked = {ast.unparse(m).removeprefix("pytest.mark.") for m in node.decorator_list} & set(TASK_NAMES)
        if marked and task not in marked:
            continue
        for marker in node.decorator_list:
            if isinstance(marker, ast.Call) and ast.unparse(marker.func) == f"pytest.mark.{MARKER}":
                args = tuple(ast.literal_eval(a) for a in marker.args)
                kwargs = {k.arg: ast.literal_eval(k.value) for k in marker.keywords}
                if not kwargs or task in kwargs:
                    found[node.name] = worth(args, kwargs, task)
    return found


def _shown(args: tuple, kwargs: dict) -> str:
    return "(" + ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]) + ")"
