"""What a child may use: the limits, and the sandbox modes and their environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

GRADER_DIR = Path(__file__).resolve().parents[1]
# The child's code is one package, copied whole into each child's private copy of the grader: the entry
# point, the probes and what they use. It imports nothing else of the grader (a self-check holds it to that).
CHILD_PACKAGE = "probes"
CHILD_SCRIPT = GRADER_DIR / CHILD_PACKAGE / "child.py"
NOBODY = 65534
MAX_STAGE_FRAME = 4096
# One child serves every task of its exercise file, each with a wall-clock budget of its own; its CPU
# time limit is only the backstop behind those.
CPU_BUDGETS = 4

# What the submission may bring into the sandbox: its top-level Python files, nothing else.
MAX_SUBMISSION_FILES = 64
MAX_SUBMISSION_FILE_BYTES = 2 << 20


# ------------------------------------------------------------------------------------- limits

@dataclass(frozen=True)
class Limits:
    call_timeout: float = 60.0       # seconds of wall clock for one probe (or one import)
    startup_timeout: float = 120.0   # seconds for a fresh child to import torch and report ready
    budget: float = 300.0            # seconds of wall clock for all calls of one task (mlp, glu, ...)
    memory_mb: int = 4096            # all of the submission's processes together (a cgroup where one
                                     # can be made), and each process (RLIMIT_AS; RLIMIT_DATA with a GPU)
    file_size_mb: int = 64           # largest file the child may write
    tmpfs_mb: int = 64               # size of the sandbox's /tmp and of its /dev/shm
    processes: int = 256             # processes and threads of the submission's uid (RLIMIT_NPROC)
    max_reply_mb: int = 64           # largest evidence the parent accepts from the child
    threads: int = 1                 # torch/OpenMP threads in the child: the probes are small
    cpus: float = 1.0                # cores' worth of CPU time all of the submission's processes share
                                     # (a cgroup where one can be made); CPU time counts against budget

    ENV = {
        "call_timeout": "GRADER_CALL_TIMEOUT",
        "startup_timeout": "GRADER_STARTUP_TIMEOUT",
        "budget": "GRADER_BUDGET",
        "memory_mb": "GRADER_MEMORY_MB",
        "processes": "GRADER_PROCESSES",
        "threads": "GRADER_CHILD_THREADS",
        "cpus": "GRADER_CPUS",
    }

    @classmethod
    def from_env(cls, environ=os.environ) -> "Limits":
        values = {}
        for name, var in cls.ENV.items():
            if environ.get(var):
                kind = type(getattr(cls, name))
                values[name] = kind(float(environ[var])) if kind is int else kind(environ[var])
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        return {var: str(getattr(self, name)) for name, var in self.ENV.items()}


SANDBOX_ENV = "GRADER_SANDBOX"  # auto (default) | bwrap (required: fail closed) | none
SANDBOX_MODES = ("auto", "bwrap", "none")
SANDBOX_REQUIRED = "bubblewrap is required"  # for people: the words every "no sandbox, no grade" error begins with
# Set by the grader once its start check has started a sandboxed child on this machine (its uid dropped, torch
# found where the child looks; torch is imported by the graded children alone): from then on a
# child that cannot start is that submission's problem (a neighbour hogging the machine, its own code),
# never a sign that the sandbox is unavailable, so it must not stop a whole batch.
SANDBOX_STARTED_ENV = "GRADER_SANDBOX_STARTED"


class GraderError(RuntimeError):
    """Something is wrong with the grader's machine, not with the submission (no child could start).
    ``sandbox_required``: the sandbox was required and cannot start here, so nothing may be graded on
    this machine (the grader stops rather than grade without it)."""

    def __init__(self, message: str, sandbox_required: bool = False) -> None:
        super().__init__(message)
        self.sandbox_required = sandbox_required

