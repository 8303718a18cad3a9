"""Run the code under test in a child process: isolated, and on Linux sandboxed.

``ChildBackend`` is a seam backend (``describe(exercise)``, ``call(exercise, probe, **kwargs)``) whose
probes run in a child process (``grader/probes/child.py``). The caller only ever gets evidence back: a
child that hangs, exits, segfaults or runs out of memory turns into error evidence such as
``{"error": {"stage": "GLU.forward", "type": "Timeout", ...}}`` and the next call gets a fresh child.

Two uses:

* ``sandbox=False``: plain isolation for local runs, so a Triton kernel that corrupts the heap under
  the interpreter fails its tests instead of killing pytest. The child sees the same files and
  environment as the test run.
* ``sandbox=True`` (``SandboxBackend``, what ``python -m grader`` uses): the child gets a copy of the
  submission's exercise files and of the child's package (``grader/probes``, ``CHILD_PACKAGE``) only. On
  Linux it runs under bubblewrap: read-only system and Python directories, nothing of the grader's checkout (no tests,
  no reference), a private /tmp and /dev/shm of a few MB, no network, its own PID namespace (so
  nothing it starts outlives it). When the grader runs as root, the child (bubblewrap included) runs
  as a host uid of its own (``grader/confinement.py``), never as root, and all of the submission's
  processes, in all of its children, share one memory limit and one CPU limit (cgroups) where they can
  be made. Mode ``bwrap`` (grading for credit) fails with a ``GraderError`` when bubblewrap cannot
  start; mode ``auto`` (a student's local check) then runs the child unsandboxed, with the same limits
  and uid, and the backend's ``started`` record says so and why.

Every child gets resource limits (address space, CPU time, file size, processes; a local run no
memory limit), a wall-clock limit per call, and a budget per task (a hang in one task costs only that
task) that all of the submission's children share (a suite may start several: the SwiGLU suite runs
the student's kernels in a child of their own); it is killed with its whole process group after use.
What it sends back is hostile input (``grader/evidence.py``): checked for size and shape before
anything computes on it, and the time spent on that counts against the submission's budget. Limits
come from ``GRADER_*`` environment variables (see ``Limits.from_env``), which ``python -m grader`` sets
from its options.

The package, by concern: ``limits`` (what a child may use, the modes), ``processes`` (rlimits before
exec, spawning, killing strays), ``mounts`` (what bubblewrap shows the child), ``launch`` (the plans
for starting a child, and the frames exchanged with one: their format is ``grader/probes/child.py``'s),
``submission`` (what all children of one submission share: its budget and its cgroups), ``starting`` (a
backend's runtime copy, launch, uid and cgroups) and ``backend`` (``ChildBackend``, ``SandboxBackend``:
calls, budgets, evidence checks). Import from ``grader.sandbox``.
"""

from __future__ import annotations

from grader.sandbox.limits import (GraderError, Limits, MAX_SUBMISSION_FILES, MAX_SUBMISSION_FILE_BYTES, SANDBOX_ENV,
                                   SANDBOX_MODES, SANDBOX_REQUIRED, SANDBOX_STARTED_ENV)
from grader.sandbox.processes import become_subreaper, die_with_parent, kill_group, kill_strays, spawn
from grader.sandbox.backend import ChildBackend, SandboxBackend, close_all, exercise_folder

__all__ = ["ChildBackend", "GraderError", "Limits", "MAX_SUBMISSION_FILES", "MAX_SUBMISSION_FILE_BYTES",
           "SANDBOX_ENV", "SANDBOX_MODES", "SANDBOX_REQUIRED", "SANDBOX_STARTED_ENV", "SandboxBackend",
           "become_subreaper", "close_all", "die_with_parent", "exercise_folder", "kill_group",
           "kill_strays", "spawn"]
