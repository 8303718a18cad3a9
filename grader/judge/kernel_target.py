"""The Triton suites' second target: the student's kernels alone, under trusted launch code.

``student_kernels`` takes an exercise's kernels out of the student's file (``grader/kernels/source.py``:
read from the syntax tree, checked to be Triton language, written into the reference's launch code)
and runs that copy in a process of its own (sandboxed under the grader), so what the kernel tests
judge was computed by the student's kernels, launched by trusted code on tensors the test picked. What
is built on the kernels (the launch code, autograd, the block) is judged in the student's own process,
with the kernels replaced by the grader's stand-ins where its property does not need them
(``grader/probes/stand_ins.py``).

Both exercises give their kernels' launch code in the stub; where the reference is not here (the
student release), that given code is the trusted launch code (``grader/judge/snapshot.py``), so the release's
kernel tests give the points the course's grader gives.
"""

from __future__ import annotations

import functools
import threading
import zlib
from pathlib import Path
from typing import Callable

import pytest
import torch

from grader.backend import Backend
from grader.results import Kind
from grader.kernels.source import KernelExercise, assemble_file
from grader.probes.errors import error_evidence
from grader.judge.checks import Verdict
from grader.judge.seam import SANDBOX_PREFIX, Target, exercise_file, make_backend, target_name


class StudentKernels(Backend):
    """The student's kernels in the launch code, run in a process of their own (``launch``). A probe of
    a kernel that could not be taken out of the file (still the stub, another signature, not Triton
    language) reports why, without running. ``kernels_of(kwargs)``: the kernels a probe call runs."""

    def __init__(self, display: str, problems: dict, launch, copy: Path | None, student_lines: int,
                 kernels_of: Callable[[dict], list[str]]) -> None:
        self.display, self.launch, self.kernels_of = display, launch, kernels_of
        # The copy the kernels run from keeps the student's line numbers up to student_lines; the
        # launch code follows (grader/kernels/source.py). An error's place is told in those terms.
        self.copy, self.student_lines = copy, student_lines
        self.errors = {name: error_evidence(name, "KernelSourceError", str(problem),
                                            not_implemented=problem.not_implemented, as_is=True)
                       for name, problem in problems.items()}

    def describe(self, exercise: str) -> str:
        return self.display

    def warm(self, exercise: str, task: str) -> None:
        if self.launch is not None:
            self.launch.warm(exercise, task)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        for name in self.kernels_of(kwargs):
            if name in self.errors:
                return {"error": self.errors[name]}
        evidence = self.launch.call(exercise, probe_name, **kwargs)
        for error in [evidence.get("error")] + [r.get("error") for r in evidence.get("results", [])]:
            if error and self.copy is not None:
                error["where"] = self._where(error.get("where", ""))
        return evidence

    def _where(self, where: str) -> str:
        """'<copy>:LINE in f' as the student's file and line, or as the stub's launch code."""
        path, _, rest = where.partition(":")
        line, _, function = rest.partition(" in ")
        if not line.isdigit() or Path(path).resolve() != self.copy.resolve():
            return where
        if int(line) <= self.student_lines:
            return f"{self.display}:{line} in {function}"
        return f"the stub's launch code, in {function}"


def student_kernels(config: pytest.Config, target: Target, folder: Path, spec: KernelExercise, launch_code: Path
                    ) -> Target:
    """The ``kernels`` target of a Triton suite (see the module docstring; the ``kernels`` fixture in
    tests/conftest.py makes one per exercise and session); ``folder``: an empty folder."""
    name = target_name(config)
    sandboxed = name.startswith(SANDBOX_PREFIX)
    copy = folder / f"{spec.exercise}.py"
    assembled = assemble_file(exercise_file(name.removeprefix(SANDBOX_PREFIX), spec.exercise), launch_code,
                              target.where(spec.exercise), copy, spec)
    launch = make_backend(f"{SANDBOX_PREFIX if sandboxed else ''}{folder}") if assembled.source else None
    return Target(StudentKernels(target.where(spec.exercise), assembled.problems, launch, copy,
                                 assembled.student_lines, spec.kernels_of))


_STARTED: set[tuple[int, str, str]] = set()


def start_side_by_side(targets: list[Target], exercise: str, task: str) -> None:
    """Start each target's process now, all at once: each start imports torch and triton (seconds), so
    they start side by side, before the first test needs one. Once per session: a task's suite split
    over several files starts them for the first file only, and the others find them running."""
    def start(backend: Target) -> None:
        backend.warm(exercise, task)
        threading.Event().wait()  # and stay: a child process dies with the thread that started it

    for backend in targets:
        if (id(backend), exercise, task) in _STARTED:
            continue
        _STARTED.add((id(backend), exercise, task))
        threading.Thread(target=start, args=(backend,), daemon=True, name=f"start {backend.where(exercise)}").start()


_SESSION = {"seed": 0}  # set by tests/conftest.py from --seed, before any test


def remember_session_seed(seed: int) -> None:
    _SESSION["seed"] = seed


def drawn(what: str) -> torch.Generator:
    """The one way the suites draw data: a generator for ``what`` (a test's id for its ``gen`` fixture, or
    the name of a verdict asked once per session), from the session's seed (``--seed``; under the grader,
    seeded from the submission's content), never fixed, so no table of answers for known inputs can be
    written into a kernel. A right implementation passes on any data, so no verdict moves with the seed."""
    return torch.Generator().manual_seed((_SESSION["seed"] * 1_000_003 + zlib.crc32(what.encode())) % 2**63)


_VERDICTS: dict[tuple, str] = {}


def session_verdict(key: tuple, judge: Callable[[], str | None], failed: str) -> str:
    """A premise's verdict, asked once per session for each ``key`` (the exercise's name first): what
    ``judge()`` returns ("" or None where the premise holds, else why not), or the first line of the failure
    it raises (``failed`` where that says nothing). Both Triton exercises' premises are asked through it."""
    if key not in _VERDICTS:
        try:
            _VERDICTS[key] = judge() or ""
        except pytest.fail.Exception as failure:
            _VERDICTS[key] = str(failure).splitlines()[0] if str(failure) else failed
    return _VERDICTS[key]


def premise_alone(premise: Callable[[dict], None], arguments: dict) -> None:
    """``premise(arguments)``; where it fails, its failure is raised without the test's own chained to it:
    the student reads the test to fix first, not a second guess at the cause before it."""
    try:
        premise(arguments)
    except Verdict as waiting:
        raise waiting from None


def rests_on(premise: Callable[[dict], None], counts_once: bool = True, alone: bool = False) -> Callable:
    """For a test whose property rests on another's: ``premise(arguments)`` fails, as waiting on that other
    test, where it does not hold (the kernels do not compute yet). It is checked when the test fails on
    its own: a failure whose premise fails elsewhere says which test to fix first, never a second guess
    at its cause (one cause, one diagnosis); a stub, a missing file or a task out of time is still told
    as such. ``counts_once``: checked after the test passes too, where passing proves nothing without the
    premise (a block's dropout is no evidence of a block built on swiglu until that is shown); without it
    a passing test keeps its points. ``alone``: a
    failing premise is told alone (``premise_alone``), not after the test's own failure, chained."""
    check = functools.partial(premise_alone, premise) if alone else premise

    def wrap(test: Callable) -> Callable:
        @functools.wraps(test)
        def run(**arguments) -> None:
            try:
                test(**arguments)
            except Verdict as failure:
                if failure.fields["kind"] == Kind.FAILED:
                    check(arguments)
                raise
            except Exception:  # the suite met what it did not expect (NaN where a value belongs): premise first
                check(arguments)
                raise
            if counts_once:
                premise(arguments)
        return run
    return wrap
