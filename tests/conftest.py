"""Fixtures and rules shared by the graded suites.

* ``target``: the code under test, chosen by the seam (``grader/judge/seam.py``); ``reference``: the
  instructor's code, always in this process.
* ``gen``: a torch.Generator seeded from ``--seed`` and the test's id, so every test draws the same
  data on every run, and the grader can draw fresh data with another seed.
* ``kernels``: for a Triton exercise's tests, the student's kernels alone under the given launch code, in
  a process of their own (``grader/judge/kernel_target.py``), one per exercise and session.
* Every graded test must carry one task marker and points ``grader/points.py`` reads: a test worth nothing,
  or points a grader cannot find, is a collection error rather than a silent gap.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from grader.kernels.pictures import clear_pictures
from grader.kernels.source import KERNEL_EXERCISES
from grader.paths import reference_present
from grader.plugin import STARTED_CHILDREN
from grader.probes.safe_text import shorten
from grader.results import Kind
from grader.judge.checks import verdict_fields
from grader.judge.kernel_target import drawn
from grader import points
from grader.tasks import TASK_NAMES as TASKS
from grader.tasks import TASKS as TASK_LIST
from grader.tasks import register_markers
from grader.judge.seam import Reference, Target, handed_in, make_backend, not_handed_in, target_name
from grader.judge.snapshot import (AUDIT_PREFIX, RECORD_PREFIX, REFERENCE_MODES, check_reference_available,
                                   make_reference)

EXERCISE_OF = {task.name: task.exercise for task in TASK_LIST}
SUITES_OF = {task.name: task.suites for task in TASK_LIST}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("exercise")
    group.addoption("--target", default=None,
                    help="code to grade: exercises (default), reference, a folder, or sandbox:FOLDER "
                         "(also EXERCISE_TARGET)")
    group.addoption("--seed", type=int, default=0, help="base seed for the tests' data (default 0)")
    group.addoption("--reference", default="auto", metavar="MODE",
                    help=f"what the tests compare with: {', '.join(REFERENCE_MODES)} (default auto: solution/hidden/"
                         f" where present, else its snapshot), or {RECORD_PREFIX}FILE to record a snapshot")


def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
    mode = config.getoption("reference")
    if mode not in REFERENCE_MODES and not mode.startswith((RECORD_PREFIX, AUDIT_PREFIX)):
        raise pytest.UsageError(f"--reference {mode}: expected one of {', '.join(REFERENCE_MODES)} or {RECORD_PREFIX}FILE")
    check_reference_available(mode, config.getoption("seed"))  # before any test: one clear line, not one per test
    from grader.judge.kernel_target import remember_session_seed  # what drawn() draws from

    remember_session_seed(config.getoption("seed"))


def pytest_report_header(config: pytest.Config) -> str:
    # Only where the reference is here (the instructor's repository) is there another target to offer.
    switch = "  (switch with --target reference or EXERCISE_TARGET)" if reference_present() else ""
    return f"grading: {target_name(config)}{switch}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    problems = []
    for item in items:
        tasks = [m.name for m in item.iter_markers() if m.name in TASKS]
        if len(tasks) != 1:
            problems.append(f"{item.nodeid}: needs exactly one task marker of {TASKS}, has {tasks}")
            continue
        if item.path.name not in SUITES_OF[tasks[0]]:  # the grader collects only a task's own suites
            problems.append(f"{item.nodeid}: marked {tasks[0]}, whose suites in grader/tasks.py are"
                            f" {', '.join(SUITES_OF[tasks[0]])}: move the test there, or add its file to the task's suites")
            continue
        marker = item.get_closest_marker(points.MARKER)
        try:
            if marker is None:
                raise points.PointsError("no points marker: @pytest.mark.points(n) with n > 0")
            points.worth(marker.args, marker.kwargs, tasks[0])
        except points.PointsError as error:
            problems.append(f"{item.nodeid}: {error}")
    if problems:
        raise pytest.UsageError("graded tests the grader cannot count (a task, its suites, points):\n" + "\n".join(problems))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The kernel maps' pictures of the tests about to run are an earlier run's: removed, so that after
    this run each has one exactly when it failed (grader/kernels/pictures.py). A collection alone runs none of
    them: it leaves every picture as it is (it once removed one that a run beside it had just saved)."""
    if not session.config.option.collectonly:
        clear_pictures(item.nodeid for item in session.items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Each test's structured fields (grader/judge/checks.py's fail sets them) on its report, as
    ``user_properties``: what the grader records and the summary below groups by."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or report.failed or report.skipped:
        fields = verdict_fields(call.excinfo, report.passed, report.skipped)
        exercise = next((EXERCISE_OF[m.name] for m in item.iter_markers() if m.name in EXERCISE_OF), "")
        if report.failed and exercise and not handed_in(target_name(item.config), exercise):
            # Whichever way a test met the missing file (an import, the kernels read from the file, a
            # premise that waits on them), a task not handed in is that one cause: a bonus task, optional.
            fields = not_handed_in(f"{exercise}.py")
            # and its message says so, not what a premise or a stand-in made of the missing file
            report.longrepr = f"not handed in: no file {exercise}.py in the submission"
        report.user_properties = [*report.user_properties, *fields.items()]  # a list of its own: not the item's


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config):
    """The failures grouped by cause, the first to fix on top, and the tests that wait on them: one
    mistake is one line, however many tests it fails. Written last, after pytest's own list of FAILED
    lines (this wraps pytest's summary), so that with many failures it is what the student sees."""
    yield
    lines = summary_by_cause(terminalreporter.stats.get("failed", []))
    if lines:
        terminalreporter.section("failures by cause (fix the first first)")
        for line in lines:
            terminalreporter.line(line)


def summary_by_cause(reports: list) -> list[str]:
    causes: dict[str, list] = {}
    waiting = []
    for report in reports:
        fields = dict(report.user_properties)
        if fields.get("kind") == Kind.WAITS:
            waiting.append((report, fields))
            continue
        cause = fields.get("cause") or "unexplained"
        causes.setdefault(report.nodeid if cause == "unexplained" else cause, []).append(report)
    order = sorted(causes.values(), key=lambda group: dict(group[0].user_properties).get("kind") == Kind.OUT_OF_TIME)
    lines = []
    for number, group in enumerate(order, 1):
        message = " ".join(str(getattr(group[0], "longreprtext", "")).removeprefix("Failed: ").split())
        names = ", ".join(r.nodeid.split("::", 1)[-1] for r in group[:4]) + (f" and {len(group) - 4} more" * (len(group) > 4))
        shown = shorten(message, 200)
        # One mistake made in several places (both blocks' forward) is one cause: say where else it is.
        todos = list(dict.fromkeys(dict(r.user_properties).get("todo") or "" for r in group))
        also = f" (also {', '.join(t for t in todos[1:] if t)})" if len([t for t in todos if t]) > 1 else ""
        lines.append(f"{number}. {shown}{also}  [{len(group)} test{'s' * (len(group) != 1)}: {names}]")
    if waiting:
        on = sorted({fields["waits_on"] for _, fields in waiting})
        one = len(waiting) == 1
        lines.append(f"then {len(waiting)} test{'s' * (not one)} that count{'s' * one} once {', '.join(on)}"
                     f" pass{'es' * (len(on) == 1)}: {', '.join(r.nodeid.split('::', 1)[-1] for r, _ in waiting[:6])}"
                     + (f" and {len(waiting) - 6} more" if len(waiting) > 6 else ""))
    return lines


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    backend = make_backend(target_name(pytestconfig))
    if backend.started is not None:  # for the grader's report: how the code under test was run
        pytestconfig.stash[STARTED_CHILDREN] = backend.started
    return Target(backend)


@pytest.fixture(autouse=True)
def _time_counts_against_the_task(request: pytest.FixtureRequest, target: Target, reference: Reference) -> None:
    """Each task has a time budget of its own where the code runs in a child, and its own file of the
    reference's recorded answers: say whose test this is."""
    target.task = task_of(request)
    reference.backend.task, reference.backend.asking = target.task, request.node.nodeid


def task_of(request: pytest.FixtureRequest) -> str:
    """The task a test grades, by its marker ("" for none)."""
    return next((m.name for m in request.node.iter_markers() if m.name in TASKS), "")


def kernel_exercise(request: pytest.FixtureRequest) -> str | None:
    """The Triton exercise a test grades (by its task's marker), or None."""
    exercise = EXERCISE_OF.get(task_of(request))
    return exercise if exercise in KERNEL_EXERCISES else None


_KERNELS = pytest.StashKey[dict]()


@pytest.fixture
def kernels(request: pytest.FixtureRequest, pytestconfig: pytest.Config, target: Target,
            tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The student's kernels alone, in a process of their own, launched by the exercise's given launch
    code (the reference's; in the student release the stub's, the same code, checked when the release is
    made) on the tensors the test picks: what the kernel tests judge, where no Python of the student's
    runs. One per exercise and session, however many files its suite is split into."""
    exercise = kernel_exercise(request)
    made = pytestconfig.stash.setdefault(_KERNELS, {})
    if exercise not in made:
        from grader.judge.kernel_target import student_kernels
        from grader.judge.snapshot import triton_launch_code

        made[exercise] = student_kernels(pytestconfig, target, tmp_path_factory.mktemp(f"{exercise}_kernels"),
                                         KERNEL_EXERCISES[exercise], triton_launch_code(exercise))
    return made[exercise]


@pytest.fixture(autouse=True)
def _start_both_processes(request: pytest.FixtureRequest, target: Target) -> None:
    """A Triton exercise's two processes (the student's file, the student's kernels) started side by side
    before its first test needs one: each start imports torch and triton (seconds)."""
    exercise = kernel_exercise(request)
    if exercise is not None:
        from grader.judge.kernel_target import start_side_by_side

        start_side_by_side([target, request.getfixturevalue("kernels")], exercise, task_of(request))


@pytest.fixture(scope="session")
def reference(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> Reference:
    mode = pytestconfig.getoption("reference")
    reference = make_reference(mode, pytestconfig.getoption("seed"))
    yield reference
    if mode.startswith(RECORD_PREFIX):  # every task this run graded, each file whole
        ran = {m.name for item in request.session.items for m in item.iter_markers() if m.name in TASKS}
        reference.backend.save(Path(mode[len(RECORD_PREFIX):]), [task for task in TASKS if task in ran])
    elif mode.startswith(AUDIT_PREFIX):
        reference.backend.save_report()


@pytest.fixture(scope="session")
def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture
def gen(request: pytest.FixtureRequest) -> torch.Generator:
    return drawn(request.node.nodeid)
