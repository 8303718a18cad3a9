"""Grade one submission: run the grader's own graded suites on it and read back the points.

The suites, their conftest, the pytest configuration and the reference all come from the grader's
checkout (``REPO``): pytest runs from there with ``--rootdir``/``-c``/``--confcutdir`` pointing at it,
so nothing in the submission (a conftest.py, a pytest.ini, a rewritten tests/) is ever read. The
submission's code runs only in the sandboxed child behind ``--target sandbox:PATH``. Points come from
the markers of the collected tests, written by ``grader/plugin.py`` into a file the child cannot see.

A grade is complete or it is an error: every collected test has exactly one result in that file, or
``GraderFailure`` is raised (exit 3, status ``error``), never a smaller total. The same files get the
same grade: the tests' seed is derived from the submission's content and the grader's version
unless ``--seed`` is given.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grader.paths import KERNEL_MAPS_ENV, REFERENCE, REPO, SNAPSHOT_SEED, reference_present
from grader.probes.safe_text import printable
from grader.results import FIELDS, KINDS, BonusRule, Fields, Grade, Kind, TestResult
from grader.sandbox import SANDBOX_ENV, SANDBOX_STARTED_ENV, Limits, become_subreaper, kill_group, kill_strays, spawn
from grader.submission_files import SubmissionFiles, read_submission
from grader.tasks import TASK_NAMES, TASK_TITLES, task_suites


class GraderFailure(Exception):
    """The grader itself could not grade (bad path, broken suites, no way to run a child)."""


class SandboxUnavailable(GraderFailure):
    """The sandbox was required and could not start: nothing may be graded on this machine."""


def grader_version() -> str:
    """A digest of everything that decides a grade: the grader, the graded suites, the reference."""
    digest = hashlib.sha256()
    for pattern in ("grader/**/*.py", "tests/*.py", f"{REFERENCE.relative_to(REPO).as_posix()}/*.py", "pyproject.toml"):
        for path in sorted(REPO.glob(pattern)):
            digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def content_seed(files: SubmissionFiles) -> int:
    """The seed for a submission: the same files and the same grader give the same grade.

    It covers exactly what was read of the hand-in (``grader/submission_files.py``: its top-level .py
    files), so renaming the folder or adding a README does not change the data.
    """
    digest = hashlib.sha256(grader_version().encode() + files.digest().encode())
    return int.from_bytes(digest.digest()[:4], "big") % (2**31 - 1) + 1


def suite_paths(tasks: list[str] | None = None) -> list[Path]:
    """The registry's suites (grader/tasks.py) of ``tasks`` (None: every task): a test file it does not name is
    never part of a grade. Only the tasks' own files are collected: the others' would be imported (Triton with
    them) only for ``-m`` to deselect all of their tests."""
    suites = [REPO / "tests" / name for name in task_suites(tasks or TASK_NAMES)]
    missing = [path.name for path in suites if not path.is_file()]
    if missing:
        raise GraderFailure(f"the grader's graded suites are missing: no {', '.join(missing)} in {REPO / 'tests'}")
    return suites


def pytest_args(submission: Path, results: Path, seed: int, tasks: list[str] | None) -> list[str]:
    """Arguments of the trusted pytest session: the grader's suites and config, never the submission's."""
    cmd = [*map(str, suite_paths(tasks)),
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
           if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "EXERCISE_TARGET", "PYTHONSTARTUP", SANDBOX_STARTED_ENV)}
    env.update(limits.to_env())
    env[SANDBOX_ENV] = sandbox_mode
    if sandbox_mode == "bwrap" and _start_checks.get((limits, sandbox_mode), ("?", False))[0] == "":
        env[SANDBOX_STARTED_ENV] = "1"  # the start check started one: see SANDBOX_STARTED_ENV
    # Third-party plugins are not part of grading (and cost start-up time).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[KERNEL_MAPS_ENV] = "0"  # the kernel maps' words reach the report; their pictures would reach nobody
    # The trusted side compares small tensors: one thread each keeps parallel jobs out of each
    # other's way.
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return env


def overall_timeout(limits: Limits, tasks: int = len(TASK_TITLES)) -> float:
    """Wall clock for one submission's whole run: every task's budget, plus start-ups and slack."""
    return limits.budget * tasks + 3 * limits.startup_timeout + 120


class SubprocessRunner:
    """Runs the trusted pytest session as a fresh ``python -m pytest`` process."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def __call__(self, args: list[str], env: dict[str, str], log_path: Path, timeout: float) -> tuple[int | None, bool]:
        become_subreaper()
        with open(log_path, "wb") as log:
            proc = spawn([sys.executable, "-m", "pytest", *args], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            with self._lock:
                self._running.add(proc)
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                kill_group(proc)  # whatever it left in its group goes with it
                kill_strays()
                with self._lock:
                    self._running.discard(proc)
        return (None if timed_out else proc.returncode), timed_out

    def abort(self) -> None:
        """Kill every session now running (Ctrl-C on a batch); their children die with them."""
        with self._lock:
            running = list(self._running)
        for proc in running:
            kill_group(proc)


# (limits, sandbox mode) -> ("" or why no child starts, whether that is a required sandbox that cannot)
_start_checks: dict[tuple[Limits, str], tuple[str, bool]] = {}
_start_checks_lock = threading.Lock()
# Run in a process of its own: stopping a child also kills whatever else its process started (in a
# batch: the warm fork server), and makes that process a subreaper.
# It prints one JSON object: {"why": "" or the reason, "sandbox_required": bool}.
START_CHECK = ("import json, sys; from grader.sandbox import GraderError, SandboxBackend\n"
               "backend = SandboxBackend(sys.argv[1])\nbackend.start_check = True\n"
               "try:\n    backend.start()\n    print(json.dumps({'why': '', 'sandbox_required': False}))\n"
               "except GraderError as exc:\n"
               "    print(json.dumps({'why': str(exc), 'sandbox_required': exc.sandbox_required}))\n"
               "finally:\n    backend.close()\n")


def check_child_can_start(limits: Limits, sandbox_mode: str) -> None:
    """Start one child the way the graded suites would, then stop it; raise what grading would have. It
    answers once it is up and finds torch, without importing it (``START_CHECK_FLAG``, grader/probes/child.py).

    Once per grader process and sandbox mode (a batch asks once for all its submissions). Where no
    child can start (a required sandbox that cannot, a Python the submission's user may not run),
    the grader says so in a second or two, instead of after a whole test session per submission.
    """
    key = (limits, sandbox_mode)
    with _start_checks_lock:
        if key not in _start_checks:
            with tempfile.TemporaryDirectory(prefix="grader-start-check-") as tmp:
                os.chmod(tmp, 0o711)
                empty = Path(tmp) / "submission"  # a submission with no files: nothing is imported
                empty.mkdir()
                env = {**pytest_env(limits, sandbox_mode), "TMPDIR": tmp}
                try:
                    proc = subprocess.run([sys.executable, "-c", START_CHECK, str(empty)], cwd=REPO, env=env,
                                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                          timeout=limits.startup_timeout + 30)
                except subprocess.TimeoutExpired:
                    raise child_cannot_start(f"a child process did not start within {limits.startup_timeout:.0f} s"
                                              ) from None
                if proc.returncode != 0:
                    raise child_cannot_start(f"starting a child failed: {printable(proc.stderr.strip()[-300:])}")
                _start_checks[key] = start_check_answer(proc.stdout)
        why, required = _start_checks[key]
    if why:
        raise child_cannot_start(why, required)


def start_check_answer(stdout: str) -> tuple[str, bool]:
    """The start check's JSON line (the last line: the sandbox's own start may print before it)."""
    try:
        answer = json.loads(stdout.strip().splitlines()[-1])
        return printable(" ".join(str(answer["why"]).split())), bool(answer["sandbox_required"])
    except (IndexError, ValueError, KeyError, TypeError, AttributeError):
        return f"the start check answered no JSON: {printable(stdout.strip()[-300:])}", False


def child_cannot_start(why: str, sandbox_required: bool = False) -> GraderFailure:
    """The error for a child that could not be started: a required sandbox that cannot start stops
    all grading on this machine (``SandboxUnavailable``); anything else is this grade's error."""
    if sandbox_required:
        return SandboxUnavailable(why)
    return GraderFailure(f"could not run the submission's code: {why}")


def grade(submission: Path, *, display: str | None = None, seed: int | None = None,
          limits: Limits | None = None, sandbox_mode: str = "auto", tasks: list[str] | None = None,
          log: list[str] | None = None, runner=None, bonus: BonusRule | None = None,
          files: SubmissionFiles | None = None) -> Grade:
    """Grade the exercise files in ``submission`` (a folder of them, or a whole checkout).

    The hand-in is read once, here (``read_submission``), unless ``files`` is what was already read of
    it (the batch reads each hand-in once, to compare it with its record); the grading run works on a
    private copy of those bytes, never on the submission's folder.
    ``runner`` runs the pytest session (default: a fresh process; the batch passes a warm one);
    ``bonus``: which of the tasks are a bonus, and their worth (``grader/results.py``).
    """
    files = read_submission(submission) if files is None else files
    limits = limits or Limits()
    runner = runner or SubprocessRunner()
    if sandbox_mode != "auto":  # grading for credit, or a sandbox turned off on purpose: fail fast
        check_child_can_start(limits, sandbox_mode)
    if not reference_present():
        # The student release: the suites compare with the reference's recorded answers, which hold
        # the data of seed 0 only. Fresh data per submission needs the reference (the instructor's side).
        if seed not in (None, SNAPSHOT_SEED):
            raise GraderFailure(f"--seed {seed} needs the reference (solution/hidden/), which this repository does"
                                f" not have: here the tests' data is that of seed {SNAPSHOT_SEED}")
        seed = SNAPSHOT_SEED
    seed = content_seed(files) if seed is None else seed
    grade_ = Grade(submission=display or str(submission), seed=seed, bonus=dict(bonus.weights) if bonus else {},
                   bonus_cap=bonus.cap if bonus else None, refused=[str(r) for r in files.refused],
                   files_digest=files.digest())
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        results, log_path = Path(tmp) / "results.jsonl", Path(tmp) / "pytest.log"
        timeout = overall_timeout(limits, len(tasks) if tasks else len(TASK_TITLES))
        env = pytest_env(limits, sandbox_mode)
        # The session makes its temporary files (the child's copies) in here, so they go when this
        # does, even if the session was killed. Traversable, not listable: a child that runs as
        # nobody reaches its own copy inside.
        env["TMPDIR"] = tmp
        os.chmod(tmp, 0o711)
        copy = files.write_copy(Path(tmp) / "submission")  # what the session grades: never the hand-in itself
        returncode, timed_out = runner(pytest_args(copy, results, seed, tasks), env,
                                       log_path, timeout)
        text = log_path.read_text("utf-8", "replace") if log_path.exists() else ""
        if log is not None:
            log.append(text)
        if timed_out:
            raise GraderFailure(f"grading did not finish within {timeout:.0f} s (the per-task budgets"
                                " should have stopped it sooner): not graded")
        records = _read_records(results)
    grade_.seconds = time.monotonic() - started
    fill_results(grade_, records, returncode, text)
    return grade_


# What each kind of line in the results file must hold (grader/plugin.py writes them).
RECORD_FIELDS = {
    "collected": {"nodeid": str, "task": (str, type(None)), "points": (int, float)},  # grader/points.py
    "result": {"nodeid": str, "status": str, "message": str, "detail": str, "grader_error": bool,
               "sandbox_required": bool, "fields": dict},
    "collect_error": {"nodeid": str, "message": str},
    "collect_skip": {"nodeid": str, "message": str},
    "session": {"exitstatus": int, "isolation": str, "isolation_summary": str, "sandboxed": bool,
                "grader_peak_mb": int},
}


def _read_records(path: Path) -> list[dict]:
    """Every line of the results file, each checked; any line that is not a record is an error."""
    if not path.exists():
        raise GraderFailure("the grading run wrote no results: not graded")
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise GraderFailure(f"line {number} of the grading run's results is not JSON: not graded") from None
        fields = RECORD_FIELDS.get(record.get("kind")) if isinstance(record, dict) else None
        if fields is None or any(not isinstance(record.get(k), t) for k, t in fields.items()):
            raise GraderFailure(f"line {number} of the grading run's results is not a valid record: not graded")
        records.append(record)
    return records


def fill_results(grade_: Grade, records: list[dict], returncode: int | None, output: str) -> None:
    collected = [r for r in records if r["kind"] == "collected"]
    errors = [r for r in records if r["kind"] == "collect_error"]
    results: dict[str, dict] = {}
    for r in records:
        if r["kind"] == "result":
            if r["nodeid"] in results:
                raise GraderFailure(f"two results for {r['nodeid']}: not graded")
            results[r["nodeid"]] = r
    sessions = [r for r in records if r["kind"] == "session"]
    if errors:
        raise GraderFailure("the grader's own suites could not be collected:\n"
                            + "\n".join(f"{e['nodeid']}: {e['message']}" for e in errors))
    if not collected:
        tail = "\n".join(output.strip().splitlines()[-15:])
        raise GraderFailure(f"pytest collected no graded test (exit {returncode}):\n{tail}")
    broken = [r for r in results.values() if r.get("grader_error")]
    if broken:
        raise child_cannot_start(printable(broken[0]["message"]), broken[0]["sandbox_required"])
    ids = [r["nodeid"] for r in collected]
    missing = [i for i in ids if i not in results]
    if len(set(ids)) != len(ids) or missing or set(results) - set(ids) or len(sessions) != 1:
        first = missing[0] if missing else "the session"
        raise GraderFailure(f"the grading run ended without a result for every test ({len(missing)} missing,"
                            f" e.g. {first}; exit {returncode}): not graded")
    grade_.isolation = sessions[0]["isolation"]
    grade_.isolation_summary = sessions[0]["isolation_summary"]
    grade_.sandboxed = sessions[0]["sandboxed"]
    grade_.grader_peak_mb = sessions[0]["grader_peak_mb"]
    grade_.not_graded = [printable(f"{r['nodeid'].removeprefix('tests/')}: {r['message']}")
                         for r in records if r["kind"] == "collect_skip"]
    for record in collected:
        result = results[record["nodeid"]]
        if result["status"] not in ("passed", "failed", "skipped"):
            raise GraderFailure(f"{record['nodeid']}: unknown outcome {result['status']!r}: not graded")
        passed = result["status"] == "passed"
        name = record["nodeid"].removeprefix("tests/")
        grade_.tests.append(TestResult(
            name=name, task=record["task"] or "other", points=record["points"] if passed else 0,
            max_points=record["points"], status=result["status"], message=printable(result["message"]),
            detail=printable(result["detail"], keep_newlines=True), **_fields(result)))


def _fields(result: dict) -> dict[str, str]:
    """A result's structured fields (grader/results.py), as the suites set them; a kind that does not go
    with the outcome (a failed test said to have passed) is the outcome's plain kind."""
    fields = {name: printable(str(result["fields"].get(name, ""))) for name in FIELDS}
    plain = {"passed": Kind.PASSED, "skipped": Kind.SKIPPED}.get(result["status"], Kind.FAILED)
    # What the run reports is untrusted: a kind that is not one, or does not go with the outcome, is the
    # outcome's plain kind (the suites' own fail() cannot make a bad kind: Fields refuses it).
    if fields["kind"] not in KINDS or (fields["kind"] in (Kind.PASSED, Kind.SKIPPED)) != (plain != Kind.FAILED) or (
            plain != Kind.FAILED and fields["kind"] != plain):
        fields["kind"] = plain.value
    if fields["kind"] == Kind.FAILED and not fields["cause"]:
        fields["cause"] = "unexplained"
    return Fields(**fields).as_dict()
