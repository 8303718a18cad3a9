"""The grade's model: what every report reads (terminal, JSON, JUnit, Gradescope, Classroom 50, feedback,
the batch CSV), apart from the code that runs the tests (``grading``).

A test's verdict is two things: a message for people (``message``, ``detail``), and fields for
machines (``kind``, ``cause``, ``todo``, ``waits_on``), which the test itself sets
(``grader/judge/checks.py``'s ``fail``). Nothing here or downstream reads a message to decide anything.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from enum import Enum

from grader.tasks import TASK_TITLES


class Kind(str, Enum):
    """What became of a test: it passed; it failed on its own property; it waits for another test whose
    failure is its premise; the code it needs is still a stub; a file it needs was not handed in; it
    was not run because earlier calls used up the task's time; or it was skipped on this machine."""
    PASSED = "passed"
    FAILED = "failed"
    WAITS = "waits"
    NOT_IMPLEMENTED = "not_implemented"
    NOT_HANDED_IN = "not_handed_in"
    OUT_OF_TIME = "out_of_time"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Fields:
    """A test's verdict for machines, as the test itself sets it (``grader/judge/checks.py``'s ``fail``): the one
    definition the suites, the plugin, the grade and every report share. A kind that is not a ``Kind``
    is an error here, never a silent "failed"."""
    kind: Kind
    cause: str = ""     # a stable id of what went wrong ("unexplained" when no test knows): no numbers in it
    todo: str = ""      # the TODO it points at, where the test knows it
    waits_on: str = ""  # for kind "waits": the test whose failure this one waits for

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))  # ValueError for a kind that is not one

    def as_dict(self) -> dict[str, str]:
        """As a test's report and the results file carry it: strings only."""
        return {**asdict(self), "kind": self.kind.value}


KINDS = tuple(kind.value for kind in Kind)
FIELDS = tuple(f.name for f in fields(Fields))  # the structured fields of a result, all strings


@dataclass
class TestResult:
    name: str        # the test id without the tests/ folder, e.g. test_mlp.py::test_gradients[GLU]
    task: str
    points: int | float      # earned (grader/points.py: to a hundredth)
    max_points: int | float
    status: str      # passed | failed | skipped
    message: str = ""  # for people: one line, as the student's pytest printed it
    detail: str = ""
    # For machines, set by the test itself (grader/judge/checks.py fail, recorded by tests/conftest.py):
    kind: str = "passed"  # one of KINDS
    cause: str = ""       # a stable id of what went wrong ("" when passed; "unexplained" when no test knows)
    todo: str = ""        # the TODO it points at, where the test knows it
    waits_on: str = ""    # for kind "waits": the test whose failure this one waits for


@dataclass(frozen=True)
class BonusRule:
    """Which of the tasks graded are a bonus, and what they are worth (``--bonus``, ``--bonus-cap``).

    A bonus task's full marks are worth ``weights[task]`` bonus points (None: its own points), a part of
    them the same part of that; ``cap``: the most bonus points a grade can get in all (None: no cap)."""
    weights: dict[str, float | None] = field(default_factory=dict)
    cap: float | None = None

    def check(self, graded: list[str]) -> None:
        """Raise ValueError unless every bonus task is graded and some graded task is not a bonus."""
        if any(t not in graded for t in self.weights):
            raise ValueError(f"a bonus task must be one of the tasks graded ({','.join(graded)})")
        if self.weights and set(self.weights) >= set(graded):
            raise ValueError("every task graded is a bonus, so the grade has no maximum")


@dataclass
class Grade:
    submission: str
    seed: int
    tests: list[TestResult] = field(default_factory=list)
    isolation: str = ""  # how the submission's code ran, every detail (uid, cgroups): for the instructor
    isolation_summary: str = ""  # the same in a line a student may read: no uid, no cgroup, no path
    sandboxed: bool = False  # as the grader's trusted process started the child; the child has no say
    seconds: float = 0.0
    grader_peak_mb: int = 0  # peak memory of the trusted pytest process that judged the evidence
    not_graded: list[str] = field(default_factory=list)  # suites skipped on this machine, with why
    refused: list[str] = field(default_factory=list)  # entries of the hand-in not read ("NAME: why"), as not handed in
    files_digest: str = ""  # the fingerprint of the files read (grader/submission_files.py): a changed hand-in differs
    # Bonus tasks -> what each one's full marks are worth in bonus points (None: its own points); their
    # points count as bonus points, never in the maximum. ``bonus_cap``: the most bonus points in all.
    bonus: dict[str, float | None] = field(default_factory=dict)
    bonus_cap: float | None = None

    # The grade, computed here once; every report reads these.

    @property
    def score(self) -> int | float:
        """What the grade counts: the core tasks' points plus the bonus points."""
        return rounded(self.core_score + self.bonus_score)

    @property
    def core_score(self) -> int | float:
        return rounded(sum(t.points for t in self.tests if t.task not in self.bonus))

    @property
    def max_score(self) -> int | float:
        """The points of every task graded, bonus tasks left out: a bonus raises the score only."""
        return rounded(sum(t.max_points for t in self.tests if t.task not in self.bonus))

    def task_points(self, task: str) -> tuple[int | float, int | float]:
        """(points earned, points possible) of ``task``'s tests (to a hundredth: tests may be worth 0.5)."""
        tests = self.task_tests(task)
        return rounded(sum(t.points for t in tests)), rounded(sum(t.max_points for t in tests))

    def bonus_worth(self, task: str) -> int | float:
        """What a bonus task's full marks are worth in bonus points."""
        weight = self.bonus[task]
        return self.task_points(task)[1] if weight is None else rounded(weight)

    def task_bonus(self, task: str) -> int | float:
        """A bonus task's bonus points: its worth, times the part of its points earned."""
        earned, possible = self.task_points(task)
        return rounded(self.bonus_worth(task) * earned / possible) if possible else 0

    def bonus_capped(self) -> bool:
        """Whether ``bonus_cap`` is below what the bonus tasks are worth together."""
        return self.bonus_cap is not None and self.bonus_cap < sum(self.bonus_worth(t) for t in self.graded_bonus())

    @property
    def bonus_max(self) -> int | float:
        worth = sum(self.bonus_worth(t) for t in self.graded_bonus())
        return rounded(min(worth, self.bonus_cap) if self.bonus_cap is not None else worth)

    @property
    def bonus_score(self) -> int | float:
        return rounded(min(sum(self.task_bonus(t) for t in self.graded_bonus()), self.bonus_max))

    def graded_bonus(self) -> list[str]:
        """The bonus tasks that have tests in this grade, in the order students work in."""
        return [t for t in self.tasks() if t in self.bonus]

    def tasks(self) -> list[str]:
        seen = []
        for task in [*TASK_TITLES, *(t.task for t in self.tests)]:
            if task not in seen and any(t.task == task for t in self.tests):
                seen.append(task)
        return seen

    def task_tests(self, task: str) -> list[TestResult]:
        return [t for t in self.tests if t.task == task]

    def failures(self, task: str) -> list[TestResult]:
        """``task``'s tests not passed, causes first: a test that only waits for another (kind "waits")
        comes after the tests that say why."""
        failing = [t for t in self.task_tests(task) if t.status != "passed"]
        return sorted(failing, key=lambda t: (waits_for_another(t), after_a_hang(t)))

    def optional_not_handed_in(self, task: str) -> bool:
        """A bonus task whose file was not handed in: optional, so nothing to fix."""
        tests = self.task_tests(task)
        return task in self.bonus and bool(tests) and all(t.kind == "not_handed_in" for t in tests)

    def first_failure(self, task: str | None = None) -> TestResult | None:
        """The first failure to fix in ``task``; without one, in the first task that has one (MLP
        before GLU before ...: the order students work in, not the suites' file order)."""
        tasks = [t for t in self.tasks() if not self.optional_not_handed_in(t)] if task is None else [task]
        return next((t for name in tasks for t in self.failures(name)), None)


def rounded(points: float) -> int | float:
    """Points as reports show them: to a hundredth, and a whole number as an int (58, not 58.0)."""
    value = round(points, 2)
    return int(value) if math.isclose(value, round(value)) else value


def shown(points: float) -> str:
    return f"{rounded(points):g}"


def waits_for_another(test: TestResult) -> bool:
    return test.kind == "waits"


def after_a_hang(test: TestResult) -> bool:
    """A test not run because earlier calls hung: the hang, reported by its own test, is the cause."""
    return test.kind == "out_of_time"


def task_title(task: str) -> str:
    return TASK_TITLES.get(task, task)
