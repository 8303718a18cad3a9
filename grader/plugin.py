"""The grader's pytest plugin: what each graded test is worth and how it ended, written as it happens.

Loaded by ``python -m grader`` with ``-p grader.plugin --grader-results FILE`` in the trusted pytest
process (never in the child that runs the submission). It writes JSON lines to FILE:

* ``{"kind": "collected", "nodeid", "task", "points"}``: one per selected graded test, from its markers;
* ``{"kind": "result", "nodeid", "status", "message", "detail", "grader_error", "sandbox_required",
  "fields"}``: as each test ends (status ``passed``/``failed``/``skipped``; ``message`` is one line for
  people, ``detail`` the full text; ``fields`` the structured fields the test set, ``grader/results.py``,
  from its report's ``user_properties``; ``grader_error``: the grader could not run the child at all,
  ``sandbox_required`` because a required sandbox cannot start);
* ``{"kind": "collect_error", "nodeid", "message"}``: a suite that could not be collected;
* ``{"kind": "collect_skip", "nodeid", "message"}``: a suite skipped as a whole on this machine;
* ``{"kind": "session", "exitstatus", "isolation", "isolation_summary", "sandboxed", "grader_peak_mb"}``: at the
  end (how the child ran, as this trusted process started it: nothing the child says goes into it;
  ``isolation_summary`` in words a student may read, ``isolation`` with the instructor's detail).

Lines are flushed one by one, so a run stopped half way still says which tests ended and how.
"""

from __future__ import annotations

import json
import os

import pytest

from grader import points
from grader.backend import StartedChildren
from grader.results import FIELDS
from grader.probes.safe_text import shorten
from grader.tasks import TASK_NAMES

RESULTS_OPTION = "--grader-results"
# Where the suites' conftest puts its backend's record of the children it started (how they were run).
STARTED_CHILDREN = pytest.StashKey[StartedChildren]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("grader").addoption(RESULTS_OPTION, default=None,
                                        help="file to write each test's task, points and outcome to (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption(RESULTS_OPTION)
    if path:
        config.pluginmanager.register(Recorder(path), "grader-recorder")


def _text(report) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        text = str(longrepr[2]).removeprefix("Skipped: ")
    elif isinstance(longrepr, str):
        text = longrepr
    else:
        crash = getattr(longrepr, "reprcrash", None)
        text = crash.message if crash is not None and getattr(crash, "message", None) else str(longrepr)
    # pytest.fail(..., pytrace=False) puts its own "Failed: " in front; the message is the hint.
    return text.removeprefix("Failed: ")


def _one_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return shorten(line.strip(), 500)  # a reader's stop: a word's end, outside a code span
    return ""


class Recorder:
    """Registered per test session (one run of pytest.main), so a warm process can run many."""

    def __init__(self, path: str) -> None:
        # Readable by the grader alone: the submission's processes run as other users.
        self.file = open(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8")
        self.outcomes: dict[str, dict] = {}

    def write(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        tasks = TASK_NAMES
        for item in session.items:
            task = next((m.name for m in item.iter_markers() if m.name in tasks), None)
            marker = item.get_closest_marker(points.MARKER)
            try:  # the suites' conftest refuses a graded test whose points cannot be read: 0 is a test not graded
                worth = points.worth(marker.args, marker.kwargs, task) if marker and task else 0
            except points.PointsError:
                worth = 0
            self.write({"kind": "collected", "nodeid": item.nodeid, "task": task, "points": worth})

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.write({"kind": "collect_error", "nodeid": report.nodeid, "message": _text(report)[:4000]})
        elif report.skipped:  # a whole suite that cannot run here (Triton not installed)
            self.write({"kind": "collect_skip", "nodeid": report.nodeid, "message": _one_line(_text(report))})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        from grader.sandbox import GraderError

        # The grader could not run the child at all: a problem of the grading machine, not a 0.
        report.grader_error = bool(call.excinfo and call.excinfo.errisinstance(GraderError))
        report.sandbox_required = report.grader_error and bool(getattr(call.excinfo.value, "sandbox_required", False))
        if report.grader_error:
            report.grader_message = _one_line(str(call.excinfo.value))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.outcomes.setdefault(report.nodeid, {"status": "passed", "message": "", "detail": "",
                                                          "grader_error": False, "sandbox_required": False,
                                                          "fields": {}})
        fields = {k: v for k, v in report.user_properties if k in FIELDS and isinstance(v, str)}
        if state["status"] == "passed" and (report.failed or report.skipped):
            text = _text(report)
            state.update(status="skipped" if report.skipped else "failed", detail=text[:4000],
                         message=_one_line(text) or ("skipped" if report.skipped else f"failed in {report.when}"),
                         fields=fields)
            if report.when != "call" and report.failed:
                state["message"] = f"error in test {report.when}: {state['message']}"
        elif state["status"] == "passed" and report.when == "call":
            state["fields"] = fields
        if getattr(report, "grader_error", False) and not state["grader_error"]:
            state.update(grader_error=True, sandbox_required=report.sandbox_required, message=report.grader_message)
        if report.when == "teardown":
            self.write({"kind": "result", "nodeid": report.nodeid, **self.outcomes.pop(report.nodeid)})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from grader.sandbox import close_all

        close_all()  # the submission's processes end with its test session, not at interpreter exit
        import resource

        # The trusted process's own peak memory: what a submission's evidence cost the grader.
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        started = session.config.stash.get(STARTED_CHILDREN, None) or StartedChildren()
        self.write({"kind": "session", "exitstatus": int(exitstatus), "isolation": started.isolation(),
                    "isolation_summary": started.isolation_summary(), "sandboxed": started.sandboxed(),
                    "grader_peak_mb": int(peak)})
        self.file.close()
