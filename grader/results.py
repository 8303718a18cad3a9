"""The grade's model: what every report reads (terminal, JSON, JUnit, Gradescope, Classroom 50, feedback,
the batch CSV), apart from the code that runs the tests (``grading``).

A test's verdict is two things: a message for people (``message``, ``detail``), and fields for
machines (``kind``, ``cause``, ``todo``, ``waits_on``), which the test itself sets
(``tests/checks.py``'s ``fail``). Nothing here or downstream reads a message to decide anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.tasks import TASK_TITLES

# What became of a test: it passed; it failed on its own property; it waits for another test whose
# failure is its premise; the code it needs is still a stub; a file it needs was not handed in; it
# was not run because earlier calls used up the task's time; or it was skipped on this machine.
KINDS = ("passed", "failed", "waits", "not_implemented", "not_handed_in", "out_of_time", "skipped")
FIELDS = ("kind", "cause", "todo", "waits_on")  # the structured fields of a result, all strings


@dataclass
class TestResult:
    name: str        # the test id without the tests/ folder, e.g. test_mlp.py::test_gradients[GLU]
    task: str
    points: int      # earned
    max_points: int
    status: str      # passed | failed | skipped
    message: str = ""  # for people: one line, as the student's pytest printed it
    detail: str = ""
    # For machines, set by the test itself (tests/checks.py fail, recorded by tests/conftest.py):
    kind: str = "passed"  # one of KINDS
    cause: str = ""       # a stable id of what went wrong ("" when passed; "unexplained" when no test knows)
    todo: str = ""        # the TODO it points at, where the test knows it
    waits_on: str = ""    # for kind "waits": the test whose failure this one waits for


@dataclass
class Grade:
    submission: str
    seed: int
    tests: list[TestResult] = field(default_factory=list)
    isolation: str = ""
    sandboxed: bool = False  # as the grader's trusted process started the child; the child has no say
    seconds: float = 0.0
    grader_peak_mb: int = 0  # peak memory of the trusted pytest process that judged the evidence
    not_graded: list[str] = field(default_factory=list)  # suites skipped on this machine, with why
    bonus: list[str] = field(default_factory=list)  # tasks whose points count but whose maximum does not

    @property
    def score(self) -> int:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> int:
        """The points of every task graded, bonus tasks left out: a bonus raises the score only."""
        return sum(t.max_points for t in self.tests if t.task not in self.bonus)

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


def waits_for_another(test: TestResult) -> bool:
    return test.kind == "waits"


def after_a_hang(test: TestResult) -> bool:
    """A test not run because earlier calls hung: the hang, reported by its own test, is the cause."""
    return test.kind == "out_of_time"


def task_title(task: str) -> str:
    return TASK_TITLES.get(task, task)
