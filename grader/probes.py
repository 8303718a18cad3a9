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
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import traceback
from types import ModuleType
from typing import Any, Callable

import torch
from torch import nn

PROBES: dict[str, Callable[..., dict]] = {}


def probe(fn: Callable[..., dict]) -> Callable[..., dict]:
    PROBES[fn.__name__] = fn
    return fn


class SquaredReLU(nn.Module):
    """relu(x) ** 2 (Primer, So et al. 2021); used by the notebook and available to the tests."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) ** 2


# Activations travel between processes by name; ``None`` means "omit the argument" so the default
# of the code under test is what runs.
ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "gelu": nn.GELU,
    "gelu_tanh": functools.partial(nn.GELU, approximate="tanh"),
    "relu": nn.ReLU,
    "silu": nn.SiLU,
    "relu2": SquaredReLU,
}


# ---------------------------------------------------------------------------- loading the target

class CodeUnderTestError(Exception):
    """Raised by code under test; carries the stage and a one-line description."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        self.stage = stage
        self.evidence = describe_exception(stage, exc)
        super().__init__(self.evidence["message"])


def _student_frame(exc: BaseException) -> str:
    """'file.py:LINE in func' of the deepest frame outside torch and this module: where to look."""
    here = os.path.abspath(__file__)
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(frame.filename)
        if path == here or f"{os.sep}torch{os.sep}" in path or f"{os.sep}triton{os.sep}" in path:
            continue
        where = f"{os.path.relpath(path) if not path.startswith('..') else path}:{frame.lineno} in {frame.name}"
    return where


def describe_exception(stage: str, exc: BaseException) -> dict:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return {
        "stage": stage,
        "type": type(exc).__name__,
        "message": message[:400],
        "where": _student_frame(exc),
        "not_implemented": isinstance(exc, NotImplementedError),
    }


def load_module(path: str, name: str) -> ModuleType:
    """Import a file under a fixed module name, fresh each time it is asked for."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickling and triton.jit look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _stage(stage: str, fn: Callable, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # anything the code under test raises is evidence, not a crash
        raise CodeUnderTestError(stage, exc) from exc


# --------------------------------------------------------------------------- the MLP/GLU probes

def _build(module: ModuleType, cls_name: str, ctor: dict) -> nn.Module:
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise CodeUnderTestError(
            cls_name, AttributeError(f"{module.__name__} defines no class {cls_name}")
        )
    kwargs = dict(ctor)
    activation = kwargs.pop("activation", None)
    if activation is not None:
        kwargs["activation_fn"] = ACTIVATIONS[activation]
    if kwargs.get("dropout") is None:
        kwargs.pop("dropout", None)
    block = _stage(f"{cls_name}.__init__", cls, **kwargs)
    if not isinstance(block, nn.Module):
        raise CodeUnderTestError(
            f"{cls_name}.__init__", TypeError(f"{cls_name} is not an nn.Module subclass")
        )
    return block


@probe
def describe_block(module: ModuleType, cls_name: str, ctor: dict) -> dict:
    """Names, shapes and count of the parameters the constructor made."""
    block = _build(module, cls_name, ctor)
    return {
        "state_dict_keys": list(block.state_dict().keys()),
        "param_shapes": {name: list(p.shape) for name, p in block.named_parameters()},
        "param_count": sum(p.numel() for p in block.parameters()),
    }


@probe
def run_block(
    module: ModuleType,
    cls_name: str,
    ctor: dict,
    state_dict: dict,
    x: torch.Tensor,
    train: bool = False,
    grad_out: torch.Tensor | None = None,
    seed: int = 0,
    device: str = "cpu",
) -> dict:
    """Build, load the given weights, run forward (and backward when grad_out is given)."""
    block = _build(module, cls_name, ctor)
    # Cast first, then load: loading float64 weights into float32 parameters would round them.
    _stage(f"{cls_name}.to", block.to, device=device, dtype=x.dtype)
    _stage(f"{cls_name}.load_state_dict", block.load_state_dict,
           {k: v.to(device=device, dtype=x.dtype) for k, v in state_dict.items()})
    block.train(train)
    x = x.to(device)
    x_before = x.clone()
    if grad_out is not None:
        x.requires_grad_(True)
    torch.manual_seed(seed)
    out = _stage(f"{cls_name}.forward", block, x)
    if not isinstance(out, torch.Tensor):
        raise CodeUnderTestError(
            f"{cls_name}.forward", TypeError(f"returned {type(out).__name__}, not a Tensor")
        )
    evidence: dict[str, Any] = {
        "out": out.detach().cpu(),
        "x_after": x.detach().cpu(),
        "x_before": x_before.cpu(),
    }
    if grad_out is not None:
        if not out.requires_grad:
            evidence["grads"] = {}
            evidence["grad_x"] = None
        else:
            _stage(f"{cls_name}.forward (backward pass)", out.backward, grad_out.to(out))
            evidence["grad_x"] = None if x.grad is None else x.grad.detach().cpu()
            evidence["grads"] = {
                name: None if p.grad is None else p.grad.detach().cpu()
                for name, p in block.named_parameters()
            }
    return evidence


def call(module_or_error: ModuleType | BaseException, stage_name: str, probe_name: str, **kwargs) -> dict:
    """Run one probe; any failure of the code under test becomes error evidence."""
    if isinstance(module_or_error, BaseException):
        return {"error": describe_exception(f"import {stage_name}", module_or_error)}
    try:
        return PROBES[probe_name](module_or_error, **kwargs)
    except CodeUnderTestError as exc:
        return {"error": exc.evidence}
