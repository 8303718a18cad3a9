"""Loading a file under test, and running one probe on it: the layer above ``core`` and Triton's side.

``triton_watch`` imports nothing of triton itself until a file under test has (the MLP and cost probes
never need it), so importing it here costs nothing where no kernel runs."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from types import ModuleType

from grader.probes.core import PROBES, CodeUnderTestError, describe_exception
from grader.probes.stages import import_stage
from grader.probes.stand_ins import StandInFunction
from grader.probes.triton_watch import StandIns, guard_triton_launches, use_triton_interpreter_without_gpu


def load_module(path: str, name: str) -> ModuleType:
    """Import a file under a fixed module name, fresh each time it is asked for."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    use_triton_interpreter_without_gpu()  # before the file's @triton.jit decorators run, if it has any
    sys.modules[name] = module  # dataclasses, pickling and triton.jit look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    guard_triton_launches(module)  # watch and check its kernels from now on, if it uses triton
    return module


def call(module_or_error: ModuleType | BaseException, stage_name: str, probe_name: str, **kwargs) -> dict:
    """Run one probe; any failure of the code under test becomes error evidence.

    ``stand_ins`` (any probe, true): while it runs, launches of the module's exercise kernels are served
    the grader's stand-in values instead of running (``grader/probes/stand_ins.py``). ``stand_in_function``
    ("exact" or "served"): the module's ``swiglu`` and ``SwiGLUFunction`` are the grader's (``StandInFunction``)."""
    if isinstance(module_or_error, BaseException):
        return {"error": describe_exception(import_stage(stage_name), module_or_error)}
    stand_ins, stand_in_function = kwargs.pop("stand_ins", None), kwargs.pop("stand_in_function", None)
    try:
        with StandIns(module_or_error) if stand_ins else contextlib.nullcontext(), \
                StandInFunction(module_or_error, stand_in_function) if stand_in_function else contextlib.nullcontext():
            return PROBES[probe_name](module_or_error, **kwargs)
    except CodeUnderTestError as exc:
        return {"error": exc.evidence}
