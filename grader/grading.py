"""Grade one submission: run the grader's own graded suites on it and read back the points.

The suites, their conftest, the pytest configuration and the reference all come from the grader's
checkout (``REPO``): pytest runs from there with ``--rootdir``/``-c``/``--confcutdir`` pointing at it,
so nothing in the submission (a conftest.py, a pytest.ini, a rewritten tests/) is ever read. The
submission's code runs only in the sandboxed child behind ``--target sandbox:PATH``. Points come from
the markers of the collected tests, written by ``grader/plugin.py`` into a file the child cannot see.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.sandbox import REPO, Limits, SANDBOX_ENV, kill_group, spawn, kill_strays, become_subreaper

TASK_TITLES = {"mlp": "MLP", "glu": "GLU", "swiglu": "SwiGLU", "cost": "Cost"}


class GraderFailure(Exception):
    """The grader itself could not grade (bad path, broken suites, no way to run a child)."""


@dataclass
class TestResult:
    name: str        # the test id without the tests/ folder, e.g. test_mlp.py::test_gradients[GLU]
    task: str
    points: int      # earned
    max_points: int
    status: str      # passed | failed | skipped
    message: str = ""
    detail: str = ""


@dataclass
class Grade:
    submission: str
    seed: int
    tests: list[TestResult] = field(default_factory=list)
    isolation: str = ""
    seconds: float = 0.0
    note: str = ""   # a problem with this submission's run as a whole (stopped after too long, ...)
    not_graded: list[str] = field(default_factory=list)  # suites skipped on this machine, with why

    @property
    def score(self) -> int:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> int:
        return sum(t.max_points for t in self.tests)

    def tasks(self) -> list[str]:
        seen = []
        for task in [*TASK_TITLES, *(t.task for t in self.tests)]:
            if task not in seen and any(t.task == task for t in self.tests):
                seen.append(task)
        return seen

    def task_tests(self, task: str) -> list[TestResult]:
        return [t for t in self.tests if t.task == task]


def task_title(task: str) -> str:
    return TASK_TITLES.get(task, task)


def fresh_seed() -> int:
    return secrets.randbelow(2**31 - 1) + 1


def suite_paths() -> list[Path]:
    tests = REPO / "tests"
    suites = sorted(tests.glob("test_*.py"))
    if not suites:
        raise GraderFailure(f"the grader's graded suites are missing: no tests/test_*.py in {REPO}")
    return suites


def pytest_args(submission: Path, results: Path, seed: int, tasks: list[str] | None) -> list[str]:
    """Arguments of the trusted pytest session: the grader's suites and config, never the submission's."""
    cmd = [*map(str, suite_paths()),
           "-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), "--confcutdir", str(REPO),
           "-p", "grader.plugin", "-p", "no:cacheprovider", "-p", "no:stepwise",
           # Not needed to grade, and not free: unraisableexception alone runs gc.collect() five times
           # at the end of a session (over half a CPU second with torch loaded).
           "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:logging",
           f"--grader-results={results}", f"--target=sandbox:{submission}", f"--seed={seed}",
           "-q", "--no-header", "-rN", "--tb=short", "-W", "ignore"]
    if tasks:
        cmd += ["-m", " or ".join(tasks)]
    return cmd


def pytest_env(limits: Limits, sandbox_mode: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "EXERCISE_TARGET", "PYTHONSTARTUP")}
    env.update(limits.to_env())
    env[SANDBOX_ENV] = sandbox_mode
    # Third-party plugins are not part of grading (and cost start-up time).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The trusted side compares small tensors: one thread each keeps parallel jobs out of each
    # other's way.
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return env


def overall_timeout(limits: Limits) -> float:
    """Wall clock for one submission's whole run: the child's budget plus start-ups and slack."""
    return limits.budget + 3 * limits.startup_timeout + 120


class SubprocessRunner:
    """Runs the trusted pytest session as a fresh ``python -m pytest`` process."""

    def __call__(self, args: list[str], env: dict[str, str], log_path: Path, timeout: float) -> tuple[int | None, bool]:
        become_subreaper()
        with open(log_path, "wb") as log:
            proc = spawn([sys.executable, "-m", "pytest", *args], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                kill_group(proc)  # whatever it left in its group goes with it
                kill_strays()
        return (None if timed_out else proc.returncode), timed_out


def grade(submission: Path, *, display: str | None = None, seed: int | None = None,
          limits: Limits | None = None, sandbox_mode: str = "auto", tasks: list[str] | None = None,
          log: list[str] | None = None, runner=None) -> Grade:
    """Grade the exercise files in ``submission`` (a folder of them, or a whole checkout).

    ``runner`` runs the pytest session (default: a fresh process; the batch passes a warm one).
    """
    limits = limits or Limits()
    runner = runner or SubprocessRunner()
    seed = fresh_seed() if seed is None else seed
    grade_ = Grade(submission=display or str(submission), seed=seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        results, log_path = Path(tmp) / "results.jsonl", Path(tmp) / "pytest.log"
        timeout = overall_timeout(limits)
        env = pytest_env(limits, sandbox_mode)
        # The session makes its temporary files (the child's copies) in here, so they go when this
        # does, even if the session was killed. Traversable, not listable: a child that runs as
        # nobody reaches its own copy inside.
        env["TMPDIR"] = tmp
        os.chmod(tmp, 0o711)
        returncode, timed_out = runner(pytest_args(submission.resolve(), results, seed, tasks), env,
                                       log_path, timeout)
        if timed_out:
            grade_.note = f"grading stopped after {timeout:.0f} s; tests that had not finished count as failed"
        text = log_path.read_text("utf-8", "replace") if log_path.exists() else ""
        if log is not None:
            log.append(text)
        records = _read_records(results)
    grade_.seconds = time.monotonic() - started
    _fill(grade_, records, returncode, text)
    return grade_


def _read_records(path: Path) -> list[dict]:
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # the last line of a run that was stopped mid-write
    return records


def _fill(grade_: Grade, records: list[dict], returncode: int | None, output: str) -> None:
    collected = [r for r in records if r["kind"] == "collected"]
    errors = [r for r in records if r["kind"] == "collect_error"]
    results = {r["nodeid"]: r for r in records if r["kind"] == "result"}
    session = next((r for r in records if r["kind"] == "session"), {})
    if errors:
        raise GraderFailure("the grader's own suites could not be collected:\n"
                            + "\n".join(f"{e['nodeid']}: {e['message']}" for e in errors))
    if not collected and not grade_.note:
        tail = "\n".join(output.strip().splitlines()[-15:])
        raise GraderFailure(f"pytest collected no graded test (exit {returncode}):\n{tail}")
    broken = [r for r in results.values() if r.get("grader_error")]
    if broken:
        why = (broken[0]["detail"] or broken[0]["message"]).removeprefix("grader.sandbox.GraderError: ")
        raise GraderFailure(f"could not run the submission's code: {why}")
    grade_.isolation = session.get("isolation", "")
    grade_.not_graded = [f"{r['nodeid'].removeprefix('tests/')}: {r['message']}"
                         for r in records if r["kind"] == "collect_skip"]
    for record in collected:
        result = results.get(record["nodeid"])
        if result is None:
            result = {"status": "failed", "message": f"not graded: {grade_.note or 'the grading run stopped early'}",
                      "detail": ""}
        passed = result["status"] == "passed"
        name = record["nodeid"].removeprefix("tests/")
        grade_.tests.append(TestResult(
            name=name, task=record["task"] or "other", points=record["points"] if passed else 0,
            max_points=record["points"], status=result["status"], message=result["message"],
            detail=result.get("detail", "")))
