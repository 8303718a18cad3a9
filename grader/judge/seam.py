"""The one seam between the graded suites and the code under test.

Which code the suites grade is decided here and nowhere else:

* ``exercises`` (default): the student's files in ``exercises/``;
* ``reference``: the instructor's files in ``solution/hidden/`` (the maintainer's check);
* a folder path: that folder's exercise files (the self-checks' wrong implementations, a submission);
* ``sandbox:PATH``: that folder's files, run by the grader in a sandboxed child process.

Pick one with ``pytest --target reference`` or ``EXERCISE_TARGET=reference``. Tests never import
code under test themselves: they ask a ``Target`` to run a probe (``grader/probes/``) and get
evidence back.

What they compare with is decided in ``grader/judge/snapshot.py`` (``make_reference``): the reference in
``solution/hidden/``, run in this process, where it is present; else (the student release) its
recorded answers, ``tests/snapshots/<task>.json`` (see ``grader/judge/snapshot.py``). ``--reference
live|snapshot`` forces one.

Where the code under test runs is decided here too (``make_backend``): with ``sandbox:`` every
exercise runs in a sandboxed child (``grader/sandbox/``); otherwise ``mlp_block`` runs in this
process (fast), and the exercises in ``ISOLATED_EXERCISES`` run in a plain child process, because a
Triton kernel writing out of bounds under the interpreter can corrupt the heap and would take the
whole test run down with it. In a child, a crash or a hang becomes one failing test.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import ModuleType

import pytest

from grader.backend import Backend
from grader.paths import EXERCISES, display_path, reference_file
from grader.tasks import TRITON_EXERCISES
from grader.results import Fields, Kind
from grader.probes.stages import imported_file
from grader.judge.checks import fail

TARGET_ENV = "EXERCISE_TARGET"
DEFAULT_TARGET = "exercises"
SANDBOX_PREFIX = "sandbox:"
ISOLATED_EXERCISES = TRITON_EXERCISES  # a kernel writing out of bounds must not take the test run down


def exercise_file(target: str, exercise: str) -> Path:
    """Where ``exercise`` (e.g. ``mlp_block``) lives for a target name or folder."""
    if target == "exercises":
        return EXERCISES / f"{exercise}.py"
    if target == "reference":
        return reference_file(exercise)
    folder = Path(target)
    if (folder / "exercises").is_dir():  # a whole checkout rather than a folder of exercise files
        folder = folder / "exercises"
    return folder / f"{exercise}.py"


def module_name(target: str, exercise: str) -> str:
    # The reference and the student's file share a module name on purpose: a file that imports its
    # sibling (or pickles a class) sees the same name either way.
    return f"_target_{'reference' if target == 'reference' else 'exercise'}_{exercise}"


def _probes():
    """The probes module, imported on first use: it imports torch, which the grader's own process
    (deciding only which reference and seed a grade uses) never needs."""
    from grader import probes

    return probes


class LocalBackend(Backend):
    """Runs probes in this process on the files of one target."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._modules: dict[str, ModuleType | BaseException] = {}

    def describe(self, exercise: str) -> str:
        return display_path(exercise_file(self.target, exercise))

    def _module(self, exercise: str) -> ModuleType | BaseException:
        if exercise not in self._modules:
            path = exercise_file(self.target, exercise)
            name = module_name(self.target, exercise)
            try:
                if not path.is_file():
                    raise FileNotFoundError(f"no file {display_path(path)}")
                self._modules[exercise] = _probes().load_module(str(path), name)
            except Exception as exc:  # SyntaxError, ImportError, ...: every test reports it
                self._modules[exercise] = exc
        return self._modules[exercise]

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        probes = _probes()
        if not (kwargs.get("stand_ins") or kwargs.get("stand_in_function") == "served"):
            return probes.call(self._module(exercise), self.describe(exercise), probe_name, **kwargs)
        from grader.probes import core
        from grader.stand_in_server import StandInServer

        server = StandInServer()  # served in this process, as the child's parent serves them (stand_in_server)
        core.STAND_IN_SERVER = server.ask
        try:
            return server.log_into(probes.call(self._module(exercise), self.describe(exercise), probe_name, **kwargs))
        finally:
            core.STAND_IN_SERVER = None


class IsolatingBackend(Backend):
    """A local target: ``ISOLATED_EXERCISES`` in a child process, everything else in this one."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.local = LocalBackend(target)
        self._child = None  # started on the first call of an isolated exercise, not before
        self._making = threading.Lock()  # warm() may ask for the child from another thread
        self.task = ""

    def backend_for(self, exercise: str):
        if exercise not in ISOLATED_EXERCISES:
            return self.local
        with self._making:
            return self._child_backend(exercise)

    def _child_backend(self, exercise: str):
        if self._child is None:
            from grader.sandbox import ChildBackend

            self._child = ChildBackend(
                exercise_file(self.target, exercise).parent, sandbox=False,
                locate=lambda ex: exercise_file(self.target, ex),
                describe=lambda ex: display_path(exercise_file(self.target, ex)),
                module_name=lambda ex: module_name(self.target, ex))
        self._child.task = self.task
        return self._child

    def describe(self, exercise: str) -> str:
        return self.local.describe(exercise)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        return self.backend_for(exercise).call(exercise, probe_name, **kwargs)

    def warm(self, exercise: str, task: str) -> None:
        backend = self.backend_for(exercise)
        if backend is not self.local:
            backend.warm(exercise, task)


def make_backend(target: str):
    """The backend for ``--target``: the one place that decides where code under test runs."""
    if target.startswith(SANDBOX_PREFIX):
        from grader.sandbox import SandboxBackend  # only the grader's own process gets here

        return SandboxBackend(target[len(SANDBOX_PREFIX):])
    return IsolatingBackend(target)


# The class -> the tests of its layers, where they are not test_mlp.py's (a load_state_dict error's pointer)
LAYER_TESTS = {"FusedSwiGLU": "test_fused_layers", "FusedGatedMLP": "test_block_has_glus_layers"}


def format_error(error: dict) -> str:
    """One line a stuck student can act on."""
    if error.get("not_implemented"):
        return f"not implemented yet: {error['message'] or error['stage']}"
    if error.get("as_is") or error.get("empty_file") is True:  # already one line for the student, about the file
        return error["message"]
    if imported_file(error["stage"]) is not None:
        where = f" ({error['where']})" if error.get("where") else ""
        return f"could not {error['stage']}: {error['type']}: {error['message']}{where}"
    where = f" at {error['where']}" if error.get("where") else ""
    if error["type"] == "Timeout":  # the message says what happened: "did not finish within 60 s ..."
        return f"{error['stage']} {error['message']}{where}"
    hint = ""
    if error["stage"].endswith(".load_state_dict"):
        layer_tests = LAYER_TESTS.get(error["stage"].split(".")[0], "test_layer_names and test_parameter_shapes")
        hint = f" (the tests load their own weights into your layers by name and shape: {layer_tests} say what differs)"
    return f"{error['stage']} raised {error['type']}: {error['message']}{where}{hint}"


def error_fields(error: dict) -> dict[str, str]:
    """The structured fields of a failure that is the code's own error (see grader/judge/checks.py's fail), from
    the evidence's fields, never from its message."""
    stage = str(error.get("stage", ""))
    if error.get("not_implemented"):
        # One raise statement of the stub is one cause, whichever method or test reached it.
        return Fields(Kind.NOT_IMPLEMENTED, f"not implemented: {error.get('where') or stage}").as_dict()
    if error.get("out_of_time"):
        return Fields(Kind.OUT_OF_TIME, "out of time").as_dict()
    if error.get("empty_file") is True:  # one cause for every test of the file: the file, not a function
        return Fields(Kind.FAILED, "empty file").as_dict()
    if error.get("type") == "FileNotFoundError" and imported_file(stage) is not None:
        return not_handed_in(imported_file(stage))
    return Fields(Kind.FAILED, f"{error.get('type', 'error')} in {stage}").as_dict()


def not_handed_in(file: str) -> dict[str, str]:
    """The fields of every failure of a task whose exercise file is not there: one cause, nothing waits."""
    return Fields(Kind.NOT_HANDED_IN, f"not handed in: {file}").as_dict()


def handed_in(target: str, exercise: str) -> bool:
    """Whether the target holds ``exercise``'s file (a sandboxed target's folder is read from here)."""
    return exercise_file(target.removeprefix(SANDBOX_PREFIX), exercise).is_file()


class Target:
    """What a test talks to: probes on the code under test, failures as one-line messages."""

    def __init__(self, backend) -> None:
        self.backend = backend

    @property
    def task(self) -> str:
        return self.backend.task

    @task.setter
    def task(self, task: str) -> None:
        """The task of the test now running: where code runs in a child, each task has its own time budget."""
        self.backend.task = task

    def where(self, exercise: str) -> str:
        return self.backend.describe(exercise)

    def warm(self, exercise: str, task: str) -> None:
        """Where the code runs in a child: start it and import ``exercise`` now (see ChildBackend.warm)."""
        self.backend.warm(exercise, task)

    def evidence(self, exercise: str, probe_name: str, **kwargs) -> dict:
        """The raw evidence, errors included (for tests that expect an error)."""
        return self.backend.call(exercise, probe_name, **kwargs)

    def probe(self, exercise: str, probe_name: str, **kwargs) -> dict:
        evidence = self.evidence(exercise, probe_name, **kwargs)
        if "error" in evidence:
            fail(format_error(evidence["error"]), **error_fields(evidence["error"]))
        return evidence


class Reference(Target):
    """What the tests compare with: the reference's evidence, and what known mistakes output."""

    def mistakes(self, block_name: str, weights: dict, x, activation: str | None) -> list:
        """[(hint, output)] of the known mistakes of ``block_name`` on these weights and input."""
        return self.backend.mistakes(block_name, weights, x, activation)


def target_name(config: pytest.Config) -> str:
    return config.getoption("target") or os.environ.get(TARGET_ENV) or DEFAULT_TARGET
