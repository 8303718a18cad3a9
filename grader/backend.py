"""The one interface of every place code under test (or the reference) runs: a *backend*.

The suites talk to a backend only through ``grader/judge/seam.py``'s ``Target``; the backends are the seam's
own (in this process; a child beside it), the sandbox's (``grader/sandbox/``: a sandboxed child) and
the reference's (``grader/judge/snapshot.py``: live or recorded). Each says the same four things, so no
caller needs to ask which kind it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ChildRun:
    """How one child process was run, in two parts: ``summary`` for everyone who reads a grade (the
    student too: how it was sandboxed), ``detail`` for the instructor only (its uid, its cgroups)."""
    summary: str
    detail: str
    sandboxed: bool


@dataclass
class StartedChildren:
    """How each child process a backend started was run: what a report says about isolation."""

    runs: list[ChildRun] = field(default_factory=list)

    def isolation(self) -> str:
        """How the last child was run, every detail, in words for the instructor ('' if none ran)."""
        last = self.runs[-1] if self.runs else None
        return "" if last is None else "; ".join(part for part in (last.summary, last.detail) if part)

    def isolation_summary(self) -> str:
        """How the last child was run, in words a student may read ('' if none ran)."""
        return self.runs[-1].summary if self.runs else ""

    def sandboxed(self) -> bool:
        """Whether every child ran in the sandbox (False if none ran)."""
        return bool(self.runs) and all(run.sandboxed for run in self.runs)


class Backend:
    # The task of the test now running: backends with a time budget per task charge it (the submission's
    # budget for that task, which all of the submission's children share).
    task: str = ""
    started: StartedChildren | None = None  # backends that start child processes record them here

    def describe(self, exercise: str) -> str:
        """How messages name ``exercise``'s file (``exercises/mlp_block.py``)."""
        raise NotImplementedError

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        """Run one probe (``grader/probes/``) on ``exercise``: the evidence, errors included."""
        raise NotImplementedError

    def warm(self, exercise: str, task: str) -> None:
        """Start now what the first call would start (a child process, an import); by default nothing."""
