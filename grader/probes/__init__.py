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
``running`` (loading a file under test, ``call``), ``functions`` (any exercise of plain functions: call
one, get its value), ``blocks`` (MLP/GLU), ``cost``, ``swiglu`` (the
fused SwiGLU probes and their inputs), ``gated_mlp``, ``triton_watch`` (the interpreter switch,
checked memory, the launch watch), ``stand_ins`` (the grader's kernels that replace the exercise's
while a test asks), ``triton_bounds`` (what an out-of-bounds access is said to be), ``triton_map`` (what
each kernel loaded and stored, element by element, and by which program) and ``triton_bf16`` (the
interpreter patch for bfloat16, tied to the Triton versions it was tested on).
``child`` is the child process's entry point (and the frames' format): the package is all the child
runs, copied whole into its sandbox, so it imports nothing else of the grader. ``activations`` is the
table of activations by name that the probes build blocks with; ``safe_text`` how text from code under
test is made safe to show and cut where a reader would stop (the grader's reports use it too).

Importing the package itself is cheap (the sandbox's parent imports ``child`` for the frames' format
without torch); the first use of one of its names below imports every probe module, which registers them.
"""

from __future__ import annotations

import importlib

# Each public name, and the module of the package that defines it.
_PUBLIC = {
    "PROBES": "core", "CodeUnderTestError": "core", "describe_exception": "core",
    "call": "running", "load_module": "running",
    "stand_in_backward": "stand_ins", "stand_in_forward": "stand_ins", "stand_in_gated": "stand_ins",
    "TritonWatch": "triton_watch", "guard_triton": "triton_watch",
}
_PROBE_MODULES = ("blocks", "cost", "functions", "gated_mlp", "swiglu")
__all__ = sorted(_PUBLIC)


def load_all() -> None:
    """Import every probe module, so that each probe is registered in ``PROBES``."""
    for name in _PROBE_MODULES:
        importlib.import_module(f"{__name__}.{name}")


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    load_all()
    return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
