"""Run a graded suite on one implementation and read back each test's outcome and message.

A variant is one file standing in for an exercise file (``mlp_block.py``, ``triton_swiglu.py``).
It declares what the suite must say about it in a module-level dict::

    EXPECT_FAILURES = {"test_parity_with_reference[default-GLU]": "gate path"}

mapping a failing test id to a phrase its message must contain. Tests it does not name may pass or
fail. A correct variant declares ``EXPECT_FAILURES = {}`` and must pass every test.

Every run is a fresh pytest process, so nothing a variant does can leak into another run. Two
options make many runs cheaper without sharing anything between them:

* ``preloaded=True`` forks each run from a server process that has already imported torch and pytest,
  instead of starting Python from scratch: the same pytest command in its own process, about a
  second sooner. Where there is no os.fork (Windows) it runs as a subprocess.
* ``parallel`` starts many runs at once, a few side by side (``SELFCHECK_WORKERS``, default one per
  core); ``threads`` caps torch's threads in each run so runs side by side don't fight for cores.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable, Iterator, Sequence, TypeVar

REPO = Path(__file__).resolve().parents[1]
VARIANTS = Path(__file__).resolve().parent / "variants"
WORKERS_ENV = "SELFCHECK_WORKERS"
PRELOAD = ["torch", "pytest"]  # what every run imports first; the slow part of starting one

R = TypeVar("R")


@dataclass
class Outcome:
    status: str  # passed / failed / error / skipped
    message: str


def expected_failures(variant: Path) -> dict[str, str]:
    """Read EXPECT_FAILURES without importing the variant (it is code under test)."""
    for node in ast.parse(variant.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXPECT_FAILURES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise ValueError(f"{variant} declares no EXPECT_FAILURES")


def run_suite(suite: str, target: str, *extra: str, timeout: float = 300, threads: int | None = None,
              preloaded: bool = False, only: Sequence[str] = ()) -> tuple[int, dict[str, Outcome]]:
    """Run ``tests/<suite>`` with ``--target target``; returns (exit code, outcomes by test id).

    ``only``: run just these test ids (``test_x[param]``) of the suite, not all of it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        selection = [f"tests/{suite}::{test_id}" for test_id in only] or [f"tests/{suite}"]
        # No cache: runs side by side would write the same .pytest_cache files at once.
        argv = [*selection, "--target", target, "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                *extra]
        env = {k: v for k, v in os.environ.items() if k != "EXERCISE_TARGET"}
        if preloaded and hasattr(os, "fork"):
            code, output = _run_forked(argv, env, threads, Path(tmp) / "output.txt", timeout)
        else:
            if threads:
                env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
            proc = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=REPO, capture_output=True,
                                  text=True, timeout=timeout, env=env)
            code, output = proc.returncode, f"{proc.stdout}\n{proc.stderr}"
        if not report.exists():
            raise RuntimeError(f"pytest wrote no report (exit {code}):\n{output}")
        return code, read_report(report)


def read_report(report: Path) -> dict[str, Outcome]:
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        status, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                status = {"failure": "failed"}.get(tag, tag)
                message = (node.get("message") or node.text or "").removeprefix("Failed: ")
                break
        outcomes[name] = Outcome(status, message)
    return outcomes


def run_variant(suite: str, exercise: str, variant: Path, *extra: str,
                **options) -> tuple[int, dict[str, Outcome]]:
    """Grade ``variant`` as if it were the student's ``exercise``.py; ``options`` go to run_suite."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(variant, Path(folder) / f"{exercise}.py")
        return run_suite(suite, folder, *extra, **options)


def verdict(variant: Path, code: int, outcomes: dict[str, Outcome]) -> list[str]:
    """What is wrong with how the suite treated ``variant``; empty when all is as declared."""
    expected = expected_failures(variant)
    problems = []
    if not outcomes:
        return [f"{variant.name}: the suite ran no test (exit {code})"]
    if not expected:
        bad = {k: v for k, v in outcomes.items() if v.status != "passed"}
        problems += [f"{variant.name} is correct but {k} {v.status}: {v.message[:300]}" for k, v in bad.items()]
        if code != 0 and not bad:
            problems.append(f"{variant.name} is correct but pytest exited {code}")
        return problems
    if code == 0:
        problems.append(f"{variant.name} is wrong but the suite passed")
    for test_id, phrase in expected.items():
        got = outcomes.get(test_id)
        if got is None:
            problems.append(f"{variant.name}: expected {test_id} to fail, but no such test ran")
        elif got.status != "failed":
            problems.append(f"{variant.name}: expected {test_id} to fail, it {got.status}")
        elif phrase.lower() not in got.message.lower():
            problems.append(f"{variant.name}: {test_id} failed without saying {phrase!r}: {got.message[:300]}")
    return problems


# ------------------------------------------------------------------------- many runs, sooner

def default_workers() -> int:
    """``SELFCHECK_WORKERS`` if set, else one run per core, at most 4 (each run holds a torch process)."""
    if os.environ.get(WORKERS_ENV):
        return max(1, int(os.environ[WORKERS_ENV]))
    return max(1, min(4, os.cpu_count() or 1))


@contextmanager
def parallel(calls: dict[Hashable, Callable[[], R]],
             workers: int | None = None) -> Iterator[dict[Hashable, Future[R]]]:
    """Start every call now, ``workers`` at a time, in the given order; yields their futures by key.

    Threads are enough: each call waits on a pytest child process. On leaving, calls not yet started
    are dropped and running ones are waited for, so no child outlives the caller.
    """
    pool = ThreadPoolExecutor(max_workers=workers or default_workers(), thread_name_prefix="selfcheck")
    try:
        yield {key: pool.submit(call) for key, call in calls.items()}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Preloaded:
    """A server process that imports PRELOAD once, then forks one fresh pytest run per request.

    Protocol: one JSON job per line on its stdin, one JSON answer per line on its stdout. It ends
    when its stdin closes, which also happens when the process that started it dies.
    """

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "EXERCISE_TARGET"}
        self.proc = subprocess.Popen([sys.executable, "-c", "from selfcheck.harness import _serve; _serve()"],
                                     cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, job: dict) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the preloaded run server ended (exit {self.proc.wait()})")
        return json.loads(answer)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


_local = threading.local()  # one server per thread, so runs side by side never queue on each other
_servers: list[_Preloaded] = []
_servers_lock = threading.Lock()


def _server() -> _Preloaded:
    server = getattr(_local, "server", None)
    if server is None or server.proc.poll() is not None:
        server = _local.server = _Preloaded()
        with _servers_lock:
            _servers.append(server)
    return server


@atexit.register
def _close_servers() -> None:
    with _servers_lock:
        for server in _servers:
            server.close()
        _servers.clear()


def _run_forked(argv: list[str], env: dict[str, str], threads: int | None, output: Path,
                timeout: float) -> tuple[int, str]:
    job = {"argv": argv, "env": env, "threads": threads, "output": str(output), "timeout": timeout}
    answer = _server().run(job)
    if answer["timed_out"]:
        raise subprocess.TimeoutExpired(["pytest", *argv], timeout)
    return answer["code"], output.read_text(errors="replace") if output.exists() else ""


def _serve() -> None:
    """The server's loop (see _Preloaded)."""
    import pytest  # noqa: F401  the preload: every run forked below starts with these imported
    import torch  # noqa: F401

    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(job)  # never returns
        code, timed_out = _wait(pid, job["timeout"])
        sys.stdout.write(json.dumps({"code": code, "timed_out": timed_out}) + "\n")
        sys.stdout.flush()


def _wait(pid: int, timeout: float) -> tuple[int, bool]:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), False
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -signal.SIGKILL, True
        time.sleep(0.005)


def _run_child(job: dict) -> None:
    """A forked run: what ``python -m pytest ARGV`` in REPO with the job's environment would do."""
    code = 70  # the run itself broke, not the suite
    try:
        # pytest's own output goes to a file, like the subprocess's captured stdout and stderr;
        # stdin is the server's, so the run gets none.
        sink = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(sink, 1)
        os.dup2(sink, 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.chdir(REPO)
        os.environ.clear()
        os.environ.update(job["env"])
        sys.path.insert(0, str(REPO))  # as `python -m` puts the working directory first
        import pytest
        import torch

        if job["threads"]:
            torch.set_num_threads(job["threads"])  # OMP_NUM_THREADS is read at import, already done
        code = int(pytest.main(job["argv"]))
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
    finally:
        os._exit(code)
