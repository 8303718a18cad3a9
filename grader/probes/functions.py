"""The probe any exercise of plain functions can use: call one function of the file under test on the
arguments a test picks, and return what it gave. A new task's suite needs no probe of its own
(``python -m instructor --new-task``)."""

from __future__ import annotations

from types import ModuleType

import torch

from grader.probes.core import CodeUnderTestError, missing, probe, run_stage


@probe
def function_value(module: ModuleType, function: str, args: list, kwargs: dict | None = None) -> dict:
    """``function(*args, **kwargs)``: a tensor it returned as it is (a copy, detached), anything else as a
    number where it is one, with its type's name and its text."""
    fn = getattr(module, function, None)
    if not callable(fn):
        raise CodeUnderTestError(function, missing(module, "function", function))
    value = run_stage(function, fn, *args, **(kwargs or {}))
    if isinstance(value, torch.Tensor):
        return {"value": value.detach().clone(), "type": "Tensor", "repr": ""}
    number = value if type(value) in (int, float, bool) else None
    return {"value": number, "type": type(value).__name__, "repr": repr(value)[:80]}
