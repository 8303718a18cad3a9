"""Probes: the only code that touches the implementation under test.

A probe builds the student's (or the reference's) module from plain arguments, runs it on tensors it
is given, and returns *evidence*: a dict of tensors, numbers, strings and lists. It never judges.
The graded tests judge the evidence against the reference. Under ``pytest`` the probes run
in-process; under the grader they run in a sandboxed child and only the evidence comes back. That
split is why nothing here imports the tests or the reference, and why evidence holds only types that
``torch.load(weights_only=True)`` accepts.

An exception raised by the code under test becomes ``{"error": {...}}`` evidence naming the stage
(``MLP.__init__``, ``GLU.forward``, ...), so a stub's ``NotImplementedError`` reaches the student as
one line.

The package, by exercise and concern: ``core`` (the registry, stages, errors as evidence),
``running`` (loading a file under test, ``call``), ``blocks`` (MLP/GLU), ``cost``, ``swiglu`` (the
fused SwiGLU probes and their inputs), ``gated_mlp``, ``triton_watch`` (the interpreter switch,
checked memory, the launch watch), ``stand_ins`` (the grader's kernels that replace the exercise's
while a test asks), ``triton_bounds`` (what an out-of-bounds access is said to be), ``triton_map`` (what
each kernel loaded and stored, element by element, and by which program) and ``triton_bf16`` (the
interpreter patch for bfloat16, tied to the Triton versions it was tested on).
Importing the package registers every probe.
"""

from __future__ import annotations

from grader.probes import blocks, cost, gated_mlp, swiglu  # noqa: F401  importing them registers their probes
from grader.probes.core import PROBES, CodeUnderTestError, describe_exception
from grader.probes.running import call, load_module
from grader.probes.stand_ins import stand_in_backward, stand_in_forward, stand_in_gated
from grader.probes.triton_watch import TritonWatch, _guard_triton

__all__ = ["PROBES", "CodeUnderTestError", "TritonWatch", "_guard_triton", "call", "describe_exception",
           "load_module", "stand_in_backward", "stand_in_forward", "stand_in_gated"]
