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
import re
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
    if isinstance(exc, SyntaxError):  # its traceback is the importer's; the place is on the exception
        return ""  # the message already reads "invalid syntax (file.py, line N)"
    here = os.path.abspath(__file__)
    where = ""
    # Triton's interpreter re-raises a kernel's error as InterpreterError from the original: the
    # kernel's own line is in the original's traceback, the launch in the wrapper's.
    frames = traceback.extract_tb(exc.__traceback__)
    if exc.__cause__ is not None and type(exc).__name__ == "InterpreterError":
        frames += traceback.extract_tb(exc.__cause__.__traceback__)
    for frame in frames:
        path = os.path.abspath(frame.filename)
        if (path == here or frame.filename.startswith("<") or f"{os.sep}torch{os.sep}" in path
                or f"{os.sep}triton{os.sep}" in path or f"{os.sep}importlib{os.sep}" in path):
            continue
        shown = os.path.relpath(path)
        where = f"{path if shown.startswith('..') else shown}:{frame.lineno} in {frame.name}"
    return where


def describe_exception(stage: str, exc: BaseException) -> dict:
    # One line: multi-line messages (load_state_dict lists every mismatch) are folded, then cut.
    message = " ".join(str(exc).split())
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
    guard_triton_launches(module)  # in the fused SwiGLU section below
    return module


# Set by grader/child.py when the probes run in a child process: told the name of each stage as it
# starts, so a crash that kills the process (segfault, exit) is still reported against the method
# that was running. In-process (plain pytest) it stays None.
STAGE_LISTENER: Callable[[str], None] | None = None


def _stage(stage: str, fn: Callable, *args, **kwargs):
    if STAGE_LISTENER is not None:
        STAGE_LISTENER(stage)
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
        "out": _cpu(out),
        "x_after": _cpu(x),
        "x_before": _cpu(x_before),
    }
    if grad_out is not None:
        if not out.requires_grad:
            evidence["grads"] = {}
            evidence["grad_x"] = None
        else:
            _stage(f"{cls_name}.forward (backward pass)", out.backward, grad_out.to(out))
            evidence["grad_x"] = _cpu(x.grad)
            evidence["grads"] = {
                name: _cpu(p.grad)
                for name, p in block.named_parameters()
            }
    return evidence


# ---------------------------------------------------------------------------- the cost probes

def _exact_param_count(weights_per_unit: int, biases_per_unit: int):
    """A parameter count as the exercise defines it (the formulas its docstring and the suites state)."""
    def count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
        return weights_per_unit * hidden_dim * intermediate_dim + (
            biases_per_unit * intermediate_dim + hidden_dim if bias else 0)
    return count


EXACT_COUNTS = {"mlp_param_count": _exact_param_count(2, 1), "glu_param_count": _exact_param_count(3, 2)}


@probe
def cost_function(module: ModuleType, function: str, kwargs: dict, exact_counts: bool = False) -> dict:
    """Call one function of the cost exercise (``mlp_param_count(hidden_dim=8, ...)``): what it returned.

    ``exact_counts``: with the module's own parameter counts replaced by right ones for the call, so a
    function that calls them (the matched width) is judged on its own arithmetic.
    """
    fn = getattr(module, function, None)
    if not callable(fn):
        raise CodeUnderTestError(function, AttributeError(f"{module.__name__} defines no function {function}"))
    saved = {name: module.__dict__[name] for name in EXACT_COUNTS if name in module.__dict__}
    if exact_counts:
        module.__dict__.update(EXACT_COUNTS)
    try:
        value = _stage(function, fn, **kwargs)
    finally:
        module.__dict__.update(saved)
    return {"value": value if type(value) in (int, float) else None, "type": type(value).__name__,
            "repr": repr(value)[:80]}


@probe
def block_cost(module: ModuleType, cls_name: str, ctor: dict, x_shape: list[int]) -> dict:
    """A block built on the meta device (no memory, any size): its parameters, and the FLOPs that
    torch.utils.flop_counter.FlopCounterMode counts (matrix products only) in one forward pass on an
    input of ``x_shape`` and in the backward pass to that input and every parameter."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        block = _build(module, cls_name, ctor)
        x = torch.empty(x_shape, requires_grad=True)
    with FlopCounterMode(display=False) as forward:
        out = _stage(f"{cls_name}.forward", block, x)
    with FlopCounterMode(display=False) as backward:
        _stage(f"{cls_name}.forward (backward pass)", out.backward, torch.ones_like(out))
    return {
        "params": sum(p.numel() for p in block.parameters()),
        "weights": sum(p.numel() for name, p in block.named_parameters() if name.endswith("weight")),
        "forward_flops": forward.get_total_flops(),
        "backward_flops": backward.get_total_flops(),
        "tokens": x.numel() // x_shape[-1],
    }


def call(module_or_error: ModuleType | BaseException, stage_name: str, probe_name: str, **kwargs) -> dict:
    """Run one probe; any failure of the code under test becomes error evidence.

    ``stand_ins`` (any probe): while it runs, launches of the module's SwiGLU kernels run the grader's
    stand-ins instead (``stand_in_forward``/``stand_in_backward`` with these coefficients)."""
    if isinstance(module_or_error, BaseException):
        return {"error": describe_exception(f"import {stage_name}", module_or_error)}
    stand_ins = kwargs.pop("stand_ins", None)
    try:
        if stand_ins is None:
            return PROBES[probe_name](module_or_error, **kwargs)
        with _StandIns(module_or_error, stand_ins):
            return PROBES[probe_name](module_or_error, **kwargs)
    except CodeUnderTestError as exc:
        return {"error": exc.evidence}


# ==================================================================================================
# The fused SwiGLU exercise (exercises/triton_swiglu.py): probes that watch Triton kernels run
# ==================================================================================================
#
# What these add to the MLP probes:
# * every Triton launch made while the code under test runs is recorded (kernel name, defining
#   module, the tensors it was given), so the tests can insist that the exercise's own kernels do the
#   work, and that the tensors handed back are ones a kernel wrote;
# * under Triton's interpreter every tl.load and tl.store is checked, before it happens, against the
#   memory of the tensors its launch was given: a forgotten mask becomes evidence naming the kernel,
#   the line and the likely cause, instead of a write past a heap block that kills the process later;
# * inputs are built here from contiguous data and a layout name (a view does not survive the trip
#   to a child process), inside NaN guard regions whose change is reported; fresh allocations are
#   NaN-filled while the code under test runs, so an element no program wrote cannot pass by luck.

STAND_IN_KERNELS = ("_swiglu_forward_kernel", "_swiglu_backward_kernel")
SWIGLU_LAYOUTS = ("contiguous", "chunk", "transposed", "strided", "expanded", "broadcast_row")
GUARD = 1024  # NaN elements before and after every input the probes build


def use_triton_interpreter_without_gpu() -> None:
    """Without a GPU Triton can only run kernels in its interpreter, which must be switched on before
    triton is imported (its library functions are compiled at import). Called when this module loads,
    so neither the student nor the suite has to set anything."""
    if "TRITON_INTERPRET" in os.environ or "triton" in sys.modules:
        return  # set by the caller, or too late: swiglu probes then say what went wrong
    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"


use_triton_interpreter_without_gpu()


def triton_interpreting() -> bool:
    import triton

    return bool(triton.knobs.runtime.interpret)


class OutOfBoundsAccess(RuntimeError):
    """A kernel tried to load or store outside every tensor its launch was given."""


def _extent(t: torch.Tensor) -> tuple[int, int]:
    """[first byte, one past the last byte] that the elements of ``t`` occupy."""
    start = t.data_ptr()
    if t.numel() == 0:
        return start, start
    span = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride())) + 1
    return start, start + span * t.element_size()


class _CheckedMemory:
    """Stands in for the interpreter's native load/store: checks the addresses, then delegates."""

    def __init__(self, native, guard: "_TritonGuard") -> None:
        self._native = native
        self._guard = guard

    def __getattr__(self, name: str):
        return getattr(self._native, name)

    def load(self, ptrs, mask, other, dtype):
        import numpy as np

        self._guard.check("load", ptrs, mask, np.dtype(dtype).itemsize)
        return self._native.load(ptrs, mask, other, dtype)

    def store(self, ptrs, value, mask):
        self._guard.check("store", ptrs, mask, value.dtype.itemsize)
        return self._native.store(ptrs, value, mask)


class _TritonGuard:
    """Installed once per process as soon as code under test has imported triton, and left in place:
    every launch is shown to the active ``TritonWatch``es, and under the interpreter every load and
    store of every kernel is checked, whichever probe runs it (``run_block`` too)."""

    def __init__(self) -> None:
        self.watches: list[TritonWatch] = []
        self.running: tuple[str, list[tuple[str, int, int, str]]] | None = None  # kernel, tensor extents
        self.stand_ins: dict | None = None  # set by _StandIns: module name and coefficients

    def install(self) -> None:
        import triton.runtime.jit as jit

        jit.JITFunction.run = self._watched(jit.JITFunction.run)
        try:
            from triton.runtime import interpreter
        except ImportError:  # a triton without the interpreter: nothing to check addresses with
            return
        interpreter.InterpretedFunction.run = self._watched(interpreter.InterpretedFunction.run)
        interpreter._interpreter = _CheckedMemory(interpreter._interpreter, self)
        _bfloat16_as_on_gpu(interpreter)

    def _watched(self, run: Callable) -> Callable:
        guard = self

        def watched_run(kernel, *args, grid, warmup, **kwargs):
            if warmup:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            fn = getattr(kernel, "fn", None)
            named = list(zip(getattr(kernel, "arg_names", []), args)) + list(kwargs.items())
            tensors = [pair for arg, value in named for pair in _tensors_in(arg, value)]
            name = getattr(fn, "__name__", type(kernel).__name__)
            for watch in guard.watches:
                watch.launched(name, getattr(fn, "__module__", "?"), tensors)
            stand_ins = guard.stand_ins
            if (stand_ins is not None and name in STAND_IN_KERNELS
                    and getattr(fn, "__module__", None) == stand_ins["module"]):
                return _run_stand_in(name, dict(named))
            outer = guard.running
            guard.running = (name, [(arg, *_extent(t), _layout_note(t)) for arg, t in tensors])
            try:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                guard.running = outer

        return watched_run

    def check(self, access: str, ptrs, mask, itemsize: int) -> None:
        import numpy as np

        if self.running is None:
            return
        kernel, extents = self.running
        addresses = np.asarray(ptrs).astype(np.int64)
        if mask is not None:
            addresses = addresses[np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)]
        if addresses.size == 0:
            return
        inside = np.zeros(addresses.shape, dtype=bool)
        for _, lo, hi, _ in extents:
            inside |= (addresses >= lo) & (addresses + itemsize <= hi)
        if inside.all():
            return
        message = _describe_access(kernel, access, addresses[~inside], extents, itemsize)
        for watch in self.watches:
            watch.violation = watch.violation or message
        # Raised before the access happens: nothing is read or written out of bounds.
        raise OutOfBoundsAccess(message)


# The interpreter keeps bfloat16 as its bits in uint16 arrays and hands them to numpy as they are:
# bfloat16 * bfloat16 multiplies the integers (garbage, often NaN), and float32 -> bfloat16 drops the
# low bits (truncation). A GPU computes bfloat16 arithmetic in float32 and rounds every result to the
# nearest even bfloat16, and converts the same way. These replacements do that, so a kernel gets the
# same bfloat16 numbers here as on a GPU and the suite needs one bfloat16 tolerance for both
# (selfcheck/test_interpreter_bfloat16.py compares them with PyTorch's, element by element).

_BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "where"}


def _bf16_to_float32(bits):
    import numpy as np

    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def _float_to_bf16(x, truncate: bool = False):
    """bfloat16 bits of ``x`` rounded to nearest even (float64 goes through float32, as PyTorch's does)."""
    import numpy as np

    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    if truncate:
        rounded = bits >> np.uint32(16)
    else:
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    quiet = (bits >> np.uint32(16)) | np.uint32(0x40)  # a NaN stays a NaN with its sign
    return np.where(nan, quiet, rounded).astype(np.uint16)


def _bfloat16_as_on_gpu(interpreter) -> None:
    import numpy as np
    import triton.language as tl
    from triton._C.libtriton import ir

    builder = interpreter.InterpreterBuilder
    handle = interpreter.TensorHandle
    native_binary, native_unary = builder.binary_op, builder.unary_op
    native_cast, native_fp_to_fp, native_fma = builder.cast_impl, builder.create_fp_to_fp, builder.create_fma
    bf16 = tl.bfloat16

    def is_bf16(h) -> bool:
        return h.dtype.scalar == bf16 and np.asarray(h.data).dtype == np.uint16

    def as_float32(h):
        return _bf16_to_float32(h.data) if is_bf16(h) else h.data

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)) or getattr(op, "__name__", "") in _BITWISE:
            return native_binary(self, lhs, rhs, op)
        out = op(as_float32(lhs), as_float32(rhs))
        if out.dtype == np.bool_:  # a comparison
            return handle(out, lhs.dtype.scalar)
        return handle(_float_to_bf16(out), bf16)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return native_unary(self, arg, op)
        return handle(_float_to_bf16(op(as_float32(arg))), bf16)

    def cast_impl(self, src, dst_type):
        if is_bf16(src):
            src = handle(as_float32(src), tl.float32)
            if dst_type.scalar == tl.float32:
                return src
        if dst_type.scalar == bf16:
            return handle(_float_to_bf16(np.asarray(src.data).astype(np.float32)), bf16)
        return native_cast(self, src, dst_type)

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        if dst_type.scalar == bf16 and not is_bf16(src):
            truncate = rounding_mode == ir.ROUNDING_MODE.RTZ
            return handle(_float_to_bf16(np.asarray(as_float32(src)).astype(np.float32), truncate), bf16)
        if is_bf16(src):
            return native_fp_to_fp(self, handle(as_float32(src), tl.float32), dst_type, rounding_mode)
        return native_fp_to_fp(self, src, dst_type, rounding_mode)

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return native_fma(self, x, y, z)
        exact = np.add(np.multiply(as_float32(x), as_float32(y), dtype=np.float64), as_float32(z))
        return handle(_float_to_bf16(exact), bf16)  # one rounding, as a fused multiply-add

    builder.binary_op, builder.unary_op, builder.cast_impl = binary_op, unary_op, cast_impl
    builder.create_fp_to_fp, builder.create_fma = create_fp_to_fp, create_fma


def _tensors_in(arg: str, value: object) -> list[tuple[str, torch.Tensor]]:
    """The tensors a kernel argument hands over: itself, a tuple's items, a descriptor's base."""
    if isinstance(value, torch.Tensor):
        return [(arg, value)]
    if isinstance(value, (tuple, list)):
        return [pair for i, item in enumerate(value) for pair in _tensors_in(f"{arg}[{i}]", item)]
    base = getattr(value, "base", None)
    return [(arg, base)] if isinstance(base, torch.Tensor) else []


_WRITTEN = re.compile(r"(out|grad_(?!out_)\w+)_ptr\b")  # the kernels' output pointers: out_ptr, grad_gate_ptr, ...


def _describe_access(kernel: str, access: str, outside, extents, itemsize: int) -> str:
    from triton.runtime import interpreter

    builder = interpreter.interpreter_builder
    program = ", ".join(str(i) for i, n in zip(builder.grid_idx, builder.grid_dim) if n > 1) or "0"
    programs = " x ".join(str(n) for n in builder.grid_dim if n > 1) or "1"
    low, high = int(outside.min()), int(outside.max())
    where, note, before = "", "", False
    if access == "store":
        # A store outside every tensor is told against the nearest tensor a kernel writes: an address
        # just before out's start can be nearer the end of an input, which the kernel never stores to.
        extents = [e for e in extents if _WRITTEN.match(e[0])] or extents
    if extents:
        def distance(extent):
            _, lo, hi, _ = extent
            return min(abs(lo - low), abs(lo - high), abs(low + itemsize - hi), abs(high + itemsize - hi))

        arg, lo, hi, note = min(extents, key=distance)
        if high + itemsize > hi:
            where = f", up to {-(-(high + itemsize - hi) // itemsize)} element(s) past the end of {arg}'s tensor"
        else:
            where = f", up to {-(-(lo - low) // itemsize)} element(s) before the start of {arg}'s tensor"
            before = True
        if note:
            note = (f"{arg}'s tensor is {note}, so its elements are not at consecutive addresses: index it with"
                    " its strides, or pass a .contiguous() copy")
    if before:  # a mask keeps the end in bounds, never the start
        cause = note or ("an offset below 0: the row or column is computed too small (cols - 1?), or a"
                         " negative index reaches back past the tensor's first element")
    else:
        cause = note or (f"missing mask on tl.{access} (mask=offsets < n_cols): the last block runs past the"
                         " end, or the offsets ignore the row stride")
    return (f"{kernel} (program {program} of {programs}) tried to tl.{access} {outside.size} element(s)"
            f" outside the tensors it was given{where}{_kernel_line(kernel)}. Likely cause: {cause}")


def _layout_note(t: torch.Tensor) -> str:
    """'' for a tensor whose rows a kernel may index as consecutive elements, else what it is instead.
    (A half of h.chunk(2, -1) is not contiguous, but its rows are: past their end, blame the mask.)"""
    if t.is_contiguous() or t.dim() == 0 or t.stride(-1) == 1:
        return ""
    return f"not contiguous (shape {tuple(t.shape)}, strides {tuple(t.stride())})"


def _kernel_line(kernel: str) -> str:
    """' (at file.py:LINE)' of the innermost frame of the running kernel's code."""
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == kernel:
            return f" (at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})"
        frame = frame.f_back
    return ""


# ----------------------------------------------------------------------------------- stand-ins
#
# Whether swiglu, SwiGLUFunction and FusedSwiGLU do their work with the exercise's kernels is decided
# by what their results are when those kernels are replaced: each launch of the module's kernel runs
# a stand-in instead, which computes something no SwiGLU computes (a weighted sum, its coefficients
# drawn by the test). Code that launches the kernels returns the stand-in's values; code that computes
# in PyTorch does not. The test computes the stand-in's values itself, from the inputs it drew, so
# nothing the process running the submission reports about its launches can earn a point.

def stand_in_forward(gate: torch.Tensor, value: torch.Tensor, coefficients) -> torch.Tensor:
    """What the stand-in for _swiglu_forward_kernel writes to out (in float64)."""
    a, b = coefficients
    return a * gate.double() + b * value.double()


def stand_in_backward(grad_out: torch.Tensor, gate: torch.Tensor, value: torch.Tensor, coefficients
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """What the stand-in for _swiglu_backward_kernel writes to (grad_gate, grad_value) (in float64)."""
    c, d = coefficients
    return c * grad_out.double() + gate.double(), d * grad_out.double() + value.double()


def _run_stand_in(kernel: str, args: dict) -> None:
    """Write the stand-in's values where the kernel would: each ``X_ptr`` holds rows of ``n_cols``
    elements, ``X_row_stride`` apart (the kernels' contract in the stub), as many rows as the first
    output tensor holds; whatever grid the launch code picked."""
    guard = _guard_triton()

    def rows(name: str) -> torch.Tensor:
        t, n_cols = args[f"{name}_ptr"], int(args["n_cols"])
        n_rows = args["out_ptr" if "out_ptr" in args else "grad_gate_ptr"].numel() // n_cols
        return torch.as_strided(t, (n_rows, n_cols), (int(args[f"{name}_row_stride"]), 1), t.storage_offset())

    try:
        if kernel == "_swiglu_forward_kernel":
            out = rows("out")
            out.copy_(stand_in_forward(rows("gate"), rows("value"), guard.stand_ins["forward"]).to(out.dtype))
        else:
            grads = stand_in_backward(rows("grad_out"), rows("gate"), rows("value"), guard.stand_ins["backward"])
            for name, grad in zip(("grad_gate", "grad_value"), grads):
                target = rows(name)
                target.copy_(grad.to(target.dtype))
    except (KeyError, RuntimeError, AttributeError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise RuntimeError(f"{kernel} was launched with arguments the stub's launch code does not pass"
                           f" ({type(exc).__name__}: {exc}): launch it as the stub's swiglu_forward and"
                           " swiglu_backward do") from None


class _StandIns:
    """While active: launches of ``module``'s SwiGLU kernels run the stand-ins."""

    def __init__(self, module: ModuleType, coefficients: dict) -> None:
        self.module_name = module.__name__
        self.coefficients = {k: [float(c) for c in v] for k, v in coefficients.items()}

    def __enter__(self) -> None:
        guard = _guard_triton()
        guard.stand_ins = {"module": self.module_name, **self.coefficients}

    def __exit__(self, *exc_info) -> None:
        _guard_triton().stand_ins = None


_GUARD: _TritonGuard | None = None


def _guard_triton() -> _TritonGuard:
    global _GUARD
    if _GUARD is None:
        _GUARD = _TritonGuard()
        _GUARD.install()
    return _GUARD


def guard_triton_launches(module: ModuleType) -> None:
    """After a file is loaded: if it uses triton, watch and check its kernels from now on."""
    if "triton" in sys.modules:
        try:
            _guard_triton()
        except ImportError:  # triton is half-installed: the probes report that when they run
            pass


class TritonWatch:
    """While active: which Triton kernels were launched, with what, and any out-of-bounds access."""

    def __init__(self, module: ModuleType) -> None:
        self.module_name = module.__name__
        self.launches: list[dict] = []
        self.violation: str | None = None

    def __enter__(self) -> "TritonWatch":
        _guard_triton().watches.append(self)
        return self

    def __exit__(self, *exc_info) -> None:
        _guard_triton().watches.remove(self)

    def launched(self, kernel: str, home: str, tensors: list[tuple[str, torch.Tensor]]) -> None:
        self.launches.append({"kernel": kernel, "module": home, "ours": home == self.module_name})

    def ours(self) -> list[str]:
        return [launch["kernel"] for launch in self.launches if launch["ours"]]

    def foreign(self) -> list[str]:
        return [f"{launch['kernel']} (from {launch['module']})" for launch in self.launches if not launch["ours"]]


def _watched_stage(watch: TritonWatch, stage: str, fn: Callable, *args, **kwargs):
    """_stage, with an out-of-bounds access reported as itself rather than as what it broke."""
    try:
        result = _stage(stage, fn, *args, **kwargs)
    except CodeUnderTestError:
        if watch.violation is None:
            raise
        result = None
    if watch.violation is not None:
        raise CodeUnderTestError(stage, OutOfBoundsAccess(watch.violation))
    return result


def _exercise_function(module: ModuleType, name: str) -> Callable:
    fn = getattr(module, name, None)
    if not callable(fn):
        raise CodeUnderTestError(name, AttributeError(f"{module.__name__} defines no function {name}"))
    return fn


def _check_triton_ready(stage: str) -> None:
    try:
        interpreting = triton_interpreting()
    except ImportError as exc:
        raise CodeUnderTestError(stage, ImportError(f"triton cannot be imported here: {exc}")) from exc
    if not interpreting and not torch.cuda.is_available():
        raise CodeUnderTestError(stage, RuntimeError(
            "there is no GPU and Triton's interpreter is off: triton was imported before TRITON_INTERPRET=1"
            " was set. Run the suite with pytest (it sets it), or set TRITON_INTERPRET=1 yourself"))


# ------------------------------------------------------------------------------- building inputs

def _guarded_buffer(n: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.full((GUARD + n + GUARD,), float("nan"), dtype=dtype, device=device)


def _place(data: torch.Tensor, layout: str, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(view holding ``data``'s values in ``layout``, the guarded buffer it lives in)."""
    shape = tuple(data.shape)
    if layout == "contiguous":
        buffer = _guarded_buffer(data.numel(), data.dtype, device)
        view = buffer[GUARD:GUARD + data.numel()].view(shape)
    elif layout == "transposed":  # a .t() / .transpose(-1, -2) view: columns are contiguous, rows not
        if data.dim() < 2:
            raise ValueError("layout 'transposed' needs at least 2 dimensions")
        swapped = shape[:-2] + (shape[-1], shape[-2])
        buffer = _guarded_buffer(data.numel(), data.dtype, device)
        view = buffer[GUARD:GUARD + data.numel()].view(swapped).transpose(-1, -2)
    elif layout == "strided":  # every other element of the last dimension: x[..., ::2]
        if data.dim() < 1:
            raise ValueError("layout 'strided' needs at least 1 dimension")
        wide = shape[:-1] + (2 * shape[-1],)
        buffer = _guarded_buffer(2 * data.numel(), data.dtype, device)
        view = buffer[GUARD:GUARD + 2 * data.numel()].view(wide)[..., ::2]
    elif layout == "expanded":  # one value broadcast to the whole shape, as .sum().backward() makes
        buffer = _guarded_buffer(1, data.dtype, device)
        buffer[GUARD] = data.reshape(-1)[0] if data.numel() else 0
        return buffer[GUARD:GUARD + 1].view([1] * data.dim()).expand(shape), buffer
    elif layout == "broadcast_row":  # one row repeated for every row: row stride 0, unit stride inside it
        if data.dim() < 2:
            raise ValueError("layout 'broadcast_row' needs at least 2 dimensions")
        buffer = _guarded_buffer(shape[-1], data.dtype, device)
        buffer[GUARD:GUARD + shape[-1]] = data.reshape(-1, shape[-1])[0].to(device)
        return buffer[GUARD:GUARD + shape[-1]].expand(shape), buffer
    else:
        raise ValueError(f"unknown layout {layout!r}; known: {SWIGLU_LAYOUTS}")
    view.copy_(data.to(device))
    return view, buffer


def _place_pair(gate: torch.Tensor, value: torch.Tensor, layout: str, device: str):
    """gate and value in ``layout``; 'chunk' makes them the two halves of h.chunk(2, dim=-1)."""
    if layout != "chunk":
        (g, g_buffer), (v, v_buffer) = _place(gate, layout, device), _place(value, layout, device)
        return g, v, [("gate", g_buffer, [g]), ("value", v_buffer, [v])]
    if gate.dim() < 1:
        raise ValueError("layout 'chunk' needs at least 1 dimension")
    h_shape = tuple(gate.shape[:-1]) + (2 * gate.shape[-1],)
    buffer = _guarded_buffer(2 * gate.numel(), gate.dtype, device)
    h = buffer[GUARD:GUARD + 2 * gate.numel()].view(h_shape)
    h.copy_(torch.cat([gate, value], dim=-1).to(device))
    g, v = h.chunk(2, dim=-1)
    return g, v, [("gate and value (halves of one tensor h)", buffer, [g, v])]


def _guard_touched(buffer: torch.Tensor, views: list[torch.Tensor]) -> bool:
    """Did anything change the buffer outside the elements of ``views`` (all NaN when built)?"""
    used = torch.zeros(buffer.numel(), dtype=torch.bool, device=buffer.device)
    index = torch.arange(buffer.numel(), device=buffer.device)
    for view in views:
        if view.numel():
            used[index.as_strided(view.shape, view.stride(), view.storage_offset())] = True
    return not bool(buffer[~used].isnan().all())


class _NaNForFreshMemory:
    """While active, torch.empty and friends hand out memory filled with NaN (PyTorch's deterministic
    mode does that), so an output element that no program writes reads NaN instead of whatever the
    allocator had there, possibly a previous run's right answer."""

    def __enter__(self) -> None:
        import torch.utils.deterministic as deterministic

        self._saved = (torch.are_deterministic_algorithms_enabled(),
                       torch.is_deterministic_algorithms_warn_only_enabled(),
                       deterministic.fill_uninitialized_memory)
        _deterministic(True, warn_only=True)  # warn_only: no op is refused
        deterministic.fill_uninitialized_memory = True

    def __exit__(self, *exc_info) -> None:
        import torch.utils.deterministic as deterministic

        enabled, warn_only, fill = self._saved
        _deterministic(enabled, warn_only=warn_only)
        deterministic.fill_uninitialized_memory = fill


def _deterministic(mode: bool, warn_only: bool) -> None:
    """torch.use_deterministic_algorithms without its first-call import of torch._inductor (seconds,
    spent inside a timed call): the flag for torch.compile is no concern of the probes."""
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    else:
        setter(mode, warn_only=warn_only)


def _cpu(t: object) -> object:
    """A tensor as evidence: on the CPU, and contiguous, since the grader refuses views whose elements
    share storage (``grader/evidence.py``); a forward that returns ``.expand(...)`` is then judged on
    its values like any other."""
    return t.detach().cpu().contiguous() if isinstance(t, torch.Tensor) else None


def _describe_result(result: object) -> str:
    if isinstance(result, torch.Tensor):
        return f"a {result.dtype} tensor"
    return type(result).__name__


# ----------------------------------------------------------------------- running in the interpreter

_INTERPRETED_CHILD = r"""
import importlib.util, sys, torch
probes_path, module_path, module_name, probe_name, folder = sys.argv[1:6]
spec = importlib.util.spec_from_file_location("_interpreted_probes", probes_path)
probes = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = probes
spec.loader.exec_module(probes)
kwargs = torch.load(folder + "/in.pt", weights_only=True)
try:
    module = probes.load_module(module_path, module_name)
except BaseException as exc:
    module = exc
evidence = probes.call(module, module_path, probe_name, **kwargs)
torch.save(evidence, folder + "/out.pt")
"""


def _under_interpreter(module: ModuleType, probe_name: str, kwargs: dict) -> dict:
    """Run a probe in a fresh Python with Triton's interpreter on and no GPU, where every load and store
    can be checked. Used on GPU machines, where the kernels otherwise run natively and a missing mask
    scribbles on neighbouring memory without a trace."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        torch.save(kwargs, os.path.join(folder, "in.pt"))
        env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _INTERPRETED_CHILD, os.path.abspath(__file__),
                 os.path.abspath(module.__file__), module.__name__, probe_name, folder],
                env=env, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            raise CodeUnderTestError(probe_name, TimeoutError(
                "the kernels ran for over 300 s under Triton's interpreter")) from None
        out = os.path.join(folder, "out.pt")
        if proc.returncode != 0 or not os.path.exists(out):
            tail = " ".join(proc.stderr.split()[-40:])
            raise CodeUnderTestError(probe_name, RuntimeError(
                f"the kernels crashed Triton's interpreter (exit {proc.returncode}): an out-of-bounds"
                f" access (missing mask on tl.load/tl.store) can do that; {tail[-300:]}"))
        return torch.load(out, weights_only=True)


# ------------------------------------------------------------------------------------- the probes

@probe
def swiglu_kernels(
    module: ModuleType,
    op: str,
    gate: torch.Tensor,
    value: torch.Tensor,
    grad_out: torch.Tensor | None = None,
    layout: str = "contiguous",
    grad_out_layout: str = "contiguous",
    device: str = "cpu",
) -> dict:
    """swiglu_forward(gate, value) (op "forward") or swiglu_backward(grad_out, gate, value) ("backward")
    on inputs built here in ``layout``."""
    name = "swiglu_forward" if op == "forward" else "swiglu_backward"
    _check_triton_ready(name)
    fn = _exercise_function(module, name)
    g, v, buffers = _place_pair(gate, value, layout, device)
    inputs = {"gate": g, "value": v}
    if op == "backward":
        go, go_buffer = _place(grad_out, grad_out_layout, device)
        inputs = {"grad_out": go, **inputs}
        buffers.append(("grad_out", go_buffer, [go]))
    before = {k: t.clone() for k, t in inputs.items()}
    with TritonWatch(module) as watch, _NaNForFreshMemory():
        result = _watched_stage(watch, name, fn, *inputs.values())
    if op == "forward":
        if not isinstance(result, torch.Tensor):
            raise CodeUnderTestError(name, TypeError(f"returned {_describe_result(result)}, not a Tensor"))
        outputs = {"out": result}
    else:
        if not (isinstance(result, (tuple, list)) and len(result) == 2
                and all(isinstance(t, torch.Tensor) for t in result)):
            raise CodeUnderTestError(name, TypeError(
                f"returned {_describe_result(result)}, not a pair of tensors (grad_gate, grad_value)"))
        outputs = {"grad_gate": result[0], "grad_value": result[1]}
    return {
        **{k: _cpu(t) for k, t in outputs.items()},
        "kernels": watch.ours(),
        "foreign_kernels": watch.foreign(),
        "inputs_changed": [k for k, t in inputs.items() if not torch.equal(t, before[k])],
        "guards_touched": [label for label, buffer, views in buffers if _guard_touched(buffer, views)],
        "interpreted": triton_interpreting(),
    }


@probe
def swiglu_bounds(module: ModuleType, cases: list[dict]) -> dict:
    """``swiglu_kernels`` for each case (its keyword arguments), where every load and store is checked:
    in this process under the interpreter, or on a GPU machine in one fresh interpreted Python."""
    _check_triton_ready("swiglu_forward")
    if not triton_interpreting():
        return _under_interpreter(module, "swiglu_bounds", {"cases": cases})
    results = []
    for case in cases:
        try:
            results.append(swiglu_kernels(module, **dict(case, device="cpu")))
        except CodeUnderTestError as exc:
            results.append({"error": exc.evidence})
    return {"results": results}


@probe
def swiglu_autograd(
    module: ModuleType,
    gate: torch.Tensor,
    value: torch.Tensor,
    grad_out: torch.Tensor | None = None,
    device: str = "cpu",
) -> dict:
    """out = swiglu(gate, value); then out.backward(grad_out), or out.sum().backward() without one."""
    _check_triton_ready("swiglu")
    fn = _exercise_function(module, "swiglu")
    gate = gate.to(device).requires_grad_(True)
    value = value.to(device).requires_grad_(True)
    with TritonWatch(module) as forward_watch, _NaNForFreshMemory():
        out = _watched_stage(forward_watch, "swiglu", fn, gate, value)
    if not isinstance(out, torch.Tensor):
        raise CodeUnderTestError("swiglu", TypeError(f"returned {_describe_result(out)}, not a Tensor"))
    evidence: dict[str, Any] = {
        "out": _cpu(out),
        "requires_grad": out.requires_grad,
        "grad_fn": type(out.grad_fn).__name__ if out.grad_fn is not None else None,
        "grad_gate": None,
        "grad_value": None,
        "interpreted": triton_interpreting(),
    }
    if not out.requires_grad:
        return evidence
    with TritonWatch(module) as backward_watch, _NaNForFreshMemory():
        if grad_out is None:
            _watched_stage(backward_watch, "swiglu (backward pass)", out.sum().backward)
        else:
            _watched_stage(backward_watch, "swiglu (backward pass)", out.backward, grad_out.to(out))
    evidence.update(grad_gate=_cpu(gate.grad), grad_value=_cpu(value.grad))
    return evidence


@probe
def swiglu_gradcheck(module: ModuleType, gate: torch.Tensor, value: torch.Tensor, device: str = "cpu") -> dict:
    """torch.autograd.gradcheck of swiglu in float64: analytical against numerical gradients."""
    from torch.autograd.gradcheck import GradcheckError  # torch.autograd.gradcheck is the function

    _check_triton_ready("swiglu")
    fn = _exercise_function(module, "swiglu")
    inputs = (gate.to(device, torch.float64).requires_grad_(True), value.to(device, torch.float64).requires_grad_(True))
    try:
        with TritonWatch(module) as watch:
            _watched_stage(watch, "swiglu (gradcheck)", torch.autograd.gradcheck, fn, inputs, raise_exception=True)
    except CodeUnderTestError as exc:
        if not isinstance(exc.__cause__, GradcheckError):
            raise
        return {"passed": False, "message": exc.evidence["message"]}
    return {"passed": True, "message": ""}


# Each case: which function, which arguments (built here: integer tensors and mismatched shapes).
_BAD_SWIGLU_CALLS = {
    "forward: value's shape differs from gate's": ("swiglu_forward", ("f32", (3, 4)), ("f32", (3, 5))),
    "forward: gate is an integer tensor": ("swiglu_forward", ("i64", (3, 4)), ("f32", (3, 4))),
    "forward: value is an integer tensor": ("swiglu_forward", ("f32", (3, 4)), ("i32", (3, 4))),
    "backward: grad_out's shape differs from gate's": (
        "swiglu_backward", ("f32", (3, 5)), ("f32", (3, 4)), ("f32", (3, 4))),
    "backward: grad_out is an integer tensor": (
        "swiglu_backward", ("i64", (3, 4)), ("f32", (3, 4)), ("f32", (3, 4))),
}


@probe
def swiglu_bad_arguments(module: ModuleType, case: str, device: str = "cpu") -> dict:
    """Call with valid arguments (it must work), then with the bad ones of ``case``: what was raised."""
    name, *args = _BAD_SWIGLU_CALLS[case]
    _check_triton_ready(name)
    fn = _exercise_function(module, name)
    valid = [torch.randn(3, 4, device=device) for _ in args]
    with TritonWatch(module) as watch:
        _watched_stage(watch, name, fn, *valid)
    kinds = {"f32": torch.float32, "i32": torch.int32, "i64": torch.int64}
    bad = [torch.ones(shape, dtype=kinds[kind], device=device) for kind, shape in args]
    try:
        fn(*bad)
    except Exception as exc:  # the point of the probe: what the code under test raises
        return {"raised": type(exc).__name__, "message": " ".join(str(exc).split())[:400]}
    return {"raised": None, "message": ""}
