"""The one interface of every place code under test (or the reference) runs: a *backend*.

The suites talk to a backend only through ``tests/seam.py``'s ``Target``; the backends are the seam's
own (in this process; a child beside it), the sandbox's (``grader/sandbox/``: a sandboxed child) and
the reference's (``tests/snapshot.py``: live or recorded). Each says the same four things, so no
caller needs to ask which kind it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StartedChildren:
    """How each child process a backend started was run: what a report says about isolation."""

    runs: list[tuple[str, bool]] = field(default_factory=list)  # (isolation in words, sandboxed?)

    def isolation(self) -> str:
        """How the last child was run, in words for the report ('' if none ran)."""
        return self.runs[-1][0] if self.runs else ""

    def sandboxed(self) -> bool:
        """Whether every child ran in the sandbox (False if none ran)."""
        return bool(self.runs) and all(ok for _, ok in self.runs)


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
