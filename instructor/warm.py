"""A runner for the trusted pytest sessions of a batch: each one a fork of a warm server.

``multiprocessing``'s fork server imports ``instructor/preload.py`` once; every submission's session is
a fresh fork of it (never a reused process, so nothing carries over from one submission to the
next), in a session of its own so that it and everything it started can be killed as a group.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from pathlib import Path

from grader.paths import REPO


def _session(args: list[str], env: dict[str, str], log_path: str) -> None:
    """The body of one forked trusted process: a pytest session, then exit with its status."""
    os.setsid()
    from grader.sandbox import die_with_parent

    die_with_parent()
    os.environ.clear()
    os.environ.update(env)
    import tempfile

    tempfile.tempdir = None  # the server may have looked it up already: use this session's TMPDIR
    os.chdir(REPO)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    import pytest
    import torch

    torch.set_num_threads(int(env.get("OMP_NUM_THREADS", "1")))
    code = pytest.main(args)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


class ForkServerRunner:
    """Same interface as ``grading.SubprocessRunner``: (args, env, log_path, timeout) -> (code, timed_out)."""

    def __init__(self) -> None:
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(["instructor.preload"])
        # Start it now, from this (the main) thread: it is told to die with the thread that started
        # it, and a worker thread of the batch may end before the batch does.
        from multiprocessing import forkserver

        forkserver.ensure_running()
        self._server_pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
        self._running: set[int] = set()
        self._aborted = False
        self._lock = threading.Lock()

    def abort(self) -> None:
        """Kill every session now running, and start no more (Ctrl-C on a batch)."""
        with self._lock:
            self._aborted = True
            running = list(self._running)
        for pid in running:
            self._kill_session(pid)
        # A session may still be waiting for the server to finish importing torch before it can be
        # forked (seconds on a busy machine): ending the server ends that wait at once.
        if self._server_pid:
            try:
                os.kill(self._server_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    @staticmethod
    def _kill_session(pid: int) -> None:
        for kill in (os.killpg, os.kill):  # its group, and itself should it not have made one yet
            try:
                kill(pid, signal.SIGKILL)  # its children die with it
            except (ProcessLookupError, PermissionError):
                pass

    def __call__(self, args: list[str], env: dict[str, str], log_path: Path, timeout: float):
        process = self.context.Process(target=_session, args=(args, env, str(log_path)), daemon=True)
        with self._lock:
            if self._aborted:
                return None, True
        process.start()  # not under the lock, which abort() takes: the server may not be ready yet
        with self._lock:
            self._running.add(process.pid)
            aborted = self._aborted
        if aborted:  # started just as abort() ran
            self._kill_session(process.pid)
        try:
            process.join(timeout)
        finally:
            with self._lock:
                self._running.discard(process.pid)
        timed_out = process.is_alive()
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the session and anything left in its group
        except (ProcessLookupError, PermissionError):
            pass
        process.join(10)
        code = None if timed_out else process.exitcode
        process.close()
        return code, timed_out
