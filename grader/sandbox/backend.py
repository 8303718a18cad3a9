"""The seam backend whose probes run in a child process (``ChildBackend``) and its sandboxed form."""

from __future__ import annotations

import atexit
import functools
import io
import json
import os
import shutil
import threading
import time
import weakref
from pathlib import Path
from typing import Callable

from grader import confinement
from grader.backend import Backend, StartedChildren
from grader.probes.errors import error_evidence
from grader.probes.safe_text import printable
from grader.sandbox.processes import kill_strays
from grader.sandbox.limits import GraderError, Limits, SANDBOX_ENV, SANDBOX_MODES
from grader.sandbox.launch import ChildFailure, ChildProcess, Plan
from grader.sandbox.starting import ChildStarter
from grader.sandbox.submission import ChildCgroups, Submission, end_submissions, shared_submission
from grader.probes.stages import import_stage


# --------------------------------------------------------------------------------- the backend

def exercise_folder(folder: Path) -> Path:
    """A whole checkout holds its exercise files in exercises/; otherwise the folder itself."""
    return folder / "exercises" if (folder / "exercises").is_dir() else folder


def _your(exercise: str) -> str:
    """What a failure before any of the student's methods started is told against (not a probe's name)."""
    return f"your {exercise}.py"


def _error(stage: str, kind: str, message: str, out_of_time: bool = False) -> dict:
    """``out_of_time``: not run, the task's budget being used up (a field the tests read, not the words)."""
    # Parts of the message (its stderr, the stage it announced) came from the child.
    return {"error": error_evidence(printable(stage), kind, printable(message), out_of_time=out_of_time)}


_live_backends: "weakref.WeakSet[ChildBackend]" = weakref.WeakSet()


def close_all() -> None:
    """Stop every child of this process and remove their copies and the submission's cgroups (end of a
    test session, or exit): the next backend made belongs to the next submission."""
    for backend in list(_live_backends):
        backend.close()
    end_submissions()


@functools.cache
def _close_all_at_exit() -> None:
    """Registered once, when the first backend is made (not when this module is imported)."""
    atexit.register(close_all)


class ChildBackend(ChildStarter, Backend):
    """Seam backend whose probes run in a child process (see the module docstring).

    ``folder`` is the submission (a folder of exercise files or a whole checkout). For local runs
    ``locate``/``describe``/``module_name`` say where an exercise's file is, how to name it in
    messages and which module name to import it under (the seam passes its own rules).

    ``task`` is the task of the test now running (set by the suites' conftest): each task has a
    time budget of its own, so an endless loop in ``MLP.forward`` cannot cost the GLU tests. The budget
    and the cgroups are the submission's (``submission``, by default this process's: see
    ``grader/sandbox/submission.py``), shared by every child it has, whichever backend started it.
    """

    def __init__(self, folder: str | Path, *, sandbox: bool, limits: Limits | None = None,
                 mode: str | None = None, locate: Callable[[str], Path] | None = None,
                 describe: Callable[[str], str] | None = None,
                 module_name: Callable[[str], str] | None = None, submission: Submission | None = None) -> None:
        self.folder = Path(folder)
        self.sandbox = sandbox
        self.limits = limits or Limits.from_env()
        self.submission = submission or shared_submission(self.limits)
        self.mode = mode or os.environ.get(SANDBOX_ENV, "auto")
        if self.mode not in SANDBOX_MODES:
            raise GraderError(f"{SANDBOX_ENV}={self.mode!r}: expected one of {', '.join(SANDBOX_MODES)}")
        self.exercises = exercise_folder(self.folder)
        in_checkout = self.exercises != self.folder
        self._locate = locate or (lambda ex: self.exercises / f"{ex}.py")
        self._describe = describe or (lambda ex: f"{'exercises/' if in_checkout else ''}{ex}.py")
        self._module_name = module_name or (lambda ex: f"_target_exercise_{ex}")
        self.task = ""
        self.started = StartedChildren()
        self._restart_task = ""
        self._child: ChildProcess | None = None
        self._loaded: set[str] = set()
        self._import_failures: dict[str, dict] = {}  # exercise -> error evidence, once it hung/crashed
        self._runtime: Path | None = None
        self._job_user: confinement.JobUser | None = None
        self._cgroups: ChildCgroups | None = None  # this child's, beneath the submission's
        self._plan: Plan | None = None
        self._starts = 0
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, ChildBackend._cleanup, self.__dict__)
        _live_backends.add(self)
        _close_all_at_exit()

    # -- the seam interface

    def describe(self, exercise: str) -> str:
        return self._describe(exercise)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        with self._lock:
            if exercise in self._import_failures:
                return self._import_failures[exercise]
            if self._budget_left() <= 0:
                return _error(_your(exercise), "Timeout", self._budget_text(), out_of_time=True)
            import torch  # the trusted side speaks torch.save/torch.load with the child
            from grader import evidence as evidence_checks
            from grader.stand_in_server import LOG_KEY, StandInServer

            request = {"exercise": exercise, "probe": probe_name, "kwargs": kwargs}
            buffer = io.BytesIO()
            torch.save(request, buffer)
            allowance = evidence_checks.element_allowance(kwargs)
            # Launches of the exercise's kernels are served here, never computed in the child (stand_in_server).
            server = StandInServer() if kwargs.get("stand_ins") or kwargs.get("stand_in_function") == "served" else None
            answer = None if server is None else functools.partial(
                server.answer, max_bytes=self.limits.max_reply_mb << 20, max_elements=allowance)
            try:
                loaded = self._ensure_loaded(exercise)
                if loaded is not None:
                    return loaded
                payload = self._exchange(b"C", buffer.getvalue(), probe_name, answer=answer)
            except ChildFailure as failure:
                self._discard_child()
                return _error(failure.stage or _your(exercise), failure.kind, failure.message, failure.out_of_time)
            evidence = self._judge_reply(payload, probe_name, allowance)
            evidence.pop(LOG_KEY, None)  # the log is this process's alone
            return evidence if server is None else server.log_into(evidence)

    def warm(self, exercise: str, task: str) -> None:
        """Start the child and import ``exercise`` now, its time counted for ``task``: a suite may do
        this in a thread ahead of its first probe, so that two children start side by side. Whatever
        goes wrong is left for that probe to report, as it would have without this. The thread must
        outlive the child: a child is killed when the thread that started it ends (PR_SET_PDEATHSIG)."""
        with self._lock:
            self.task = task
            if exercise in self._import_failures or self._budget_left() <= 0:
                return
            try:
                self._ensure_loaded(exercise)
            except ChildFailure:
                self._discard_child()
            except Exception:  # noqa: BLE001 - a GraderError is raised again by the probe that needs the child
                pass

    def _judge_reply(self, payload: bytes, stage: str, max_elements: int) -> dict:
        """The child's reply as evidence, or error evidence; the time it takes is the submission's."""
        from grader import evidence as evidence_checks

        started = time.monotonic()
        try:
            evidence = evidence_checks.load(payload, max_bytes=self.limits.max_reply_mb << 20,
                                            max_elements=max_elements)
        except evidence_checks.BadEvidence as exc:
            self._discard_child()
            return _error(stage, "BadEvidence", f"the process running your code sent back something that"
                          f" is not evidence the grader accepts: {exc}")
        finally:
            self._charge(time.monotonic() - started)
        if not isinstance(evidence, dict):
            return _error(stage, "BadEvidence", "the process running your code sent back"
                          f" a {type(evidence).__name__}, not evidence")
        return evidence

    def start(self) -> None:
        """Start the child now, importing no exercise; raises ``GraderError`` where none can start."""
        with self._lock:
            self._start_child()

    def close(self) -> None:
        with self._lock:
            self._discard_child()
            self._cleanup(self.__dict__)

    # -- the child's life

    @staticmethod
    def _cleanup(state: dict) -> None:
        child = state.get("_child")
        if child is not None:
            child.kill()
            state["_child"] = None
        if state.get("_cgroups") is not None:
            state["_cgroups"].remove()
            state["_cgroups"] = None
        if state.get("_job_user") is not None:  # kills what still runs as its uid, then frees it
            state["_job_user"].release()
            state["_job_user"] = None
        runtime = state.get("_runtime")
        if runtime is not None:
            shutil.rmtree(runtime, ignore_errors=True)
            state["_runtime"] = None

    def _charge(self, seconds: float, task: str | None = None) -> None:
        """Charge ``task`` (the task now running) in the submission's budget: see ``Submission.charge``."""
        self.submission.charge(self.task if task is None else task, seconds)

    def _budget_left(self) -> float:
        return self.submission.left(self.task)

    def _budget_text(self) -> str:
        task = f" for task {self.task}" if self.task else ""
        return (f"was not run: the grader's time budget{task} ({self.submission.limits.budget:.0f} s)"
                " was used up by earlier calls that hung or were slow")

    def _exchange(self, kind: bytes, payload: bytes, stage: str, timeout: float | None = None,
                  answer: Callable[[bytes], bytes] | None = None) -> bytes:
        """Send one request, wait for its reply (answering the launches' requests for stand-in values on
        the way with ``answer``); the time spent counts against the budget."""
        if self._budget_left() <= 0:
            raise ChildFailure("Timeout", self._budget_text(), stage, out_of_time=True)
        child = self._start_child()
        limit = min(timeout or self.limits.call_timeout, self._budget_left())
        started = time.monotonic()
        child.stage = stage
        try:
            child.send(kind, payload, started + limit, f"did not take the grader's request within {limit:.0f} s:"
                       " the process running your code stopped reading it")
            # Say which limit stopped it: the call's own, or what was left of the task's budget.
            stopped = (f"did not finish within {limit:.0f} s and was stopped" if limit >= (timeout or self.limits.call_timeout)
                       else f"was stopped after {limit:.0f} s, when the task's time budget"
                            f" ({self.submission.limits.budget:.0f} s in all) ran out")
            return child.receive(b"R", started + limit, f"{stopped}: an endless loop, or far too much work?", answer)
        except ChildFailure as failure:
            failure.budget_stopped = failure.kind == "Timeout" and limit < (timeout or self.limits.call_timeout)
            raise
        finally:
            self._charge(time.monotonic() - started)

    def _ensure_loaded(self, exercise: str) -> dict | None:
        """Import the exercise file in the child; returns error evidence if it cannot be imported."""
        self._start_child()  # a fresh child if the last one died; it has loaded nothing yet
        if exercise in self._loaded:
            return None
        display = self.describe(exercise)
        request = {"exercise": exercise, "path": self._path_for_child(exercise),
                   "module": self._module_name(exercise), "display": display}
        try:
            payload = self._exchange(b"L", json.dumps(request).encode(), import_stage(display))
        except ChildFailure as failure:
            self._discard_child()
            error = _error(import_stage(display), failure.kind, failure.message, failure.out_of_time)
            # Importing it hung or killed the process: doing it again would only do that again. Not where the
            # task's budget ran out before or during the import (an earlier call of the task hung): the
            # exercise's other tasks have budgets of their own, and import it afresh.
            if not (failure.out_of_time or failure.budget_stopped):
                self._import_failures[exercise] = error
            return error
        evidence = self._judge_reply(payload, import_stage(display), 0)
        if "error" in evidence:
            self._import_failures[exercise] = evidence
            return evidence
        self._loaded.add(exercise)
        return None

    def _path_for_child(self, exercise: str) -> str:
        if not self.sandbox:
            return str(self._locate(exercise))
        rel = f"{self._submission_rel()}/{exercise}.py".lstrip("/")
        base = "/submission" if self._plan.bwrap else str(self._runtime / "submission")
        return f"{base}/{rel}"

    def _submission_rel(self) -> str:
        return "exercises" if self.exercises != self.folder else ""

    def _discard_child(self) -> None:
        # The next start (torch imported again) is paid for by the task whose call ended this child.
        self._restart_task = self.task
        if self._child is not None:
            self._child.kill(strays=self.sandbox)
            self._child = None
            self._loaded.clear()
        if self._cgroups is not None:  # this child's cgroups only: its siblings go on
            self._cgroups.kill_all()
        if self.sandbox:
            kill_strays()


class SandboxBackend(ChildBackend):
    """What ``--target sandbox:FOLDER`` runs: the submission in FOLDER, sandboxed."""

    def __init__(self, folder: str | Path, limits: Limits | None = None, mode: str | None = None) -> None:
        super().__init__(folder, sandbox=True, limits=limits, mode=mode)
