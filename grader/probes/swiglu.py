"""The fused SwiGLU probes (exercises/triton_swiglu.py): inputs in every layout, run and watched."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from grader.probes.triton_watch import GUARD, SWIGLU_LAYOUTS, triton_interpreting
from grader.probes.triton_watch import TritonWatch, check_triton_ready, exercise_function, watched_stage
from grader.probes.core import CodeUnderTestError, to_cpu, probe
from grader.probes.safe_text import shorten


# ------------------------------------------------------------------------------- building inputs

def _guarded_buffer(n: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.full((GUARD + n + GUARD,), float("nan"), dtype=dtype, device=device)


def place_in_layout(data: torch.Tensor, layout: str, device: str) -> tuple[torch.Tensor, torch.Tensor]:
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
    elif layout == "sequence_first":  # x.transpose(0, 1) of a (seq, batch, ...) tensor: dims 0 and 1 do not merge
        if data.dim() < 3:
            raise ValueError("layout 'sequence_first' needs at least 3 dimensions")
        buffer = _guarded_buffer(data.numel(), data.dtype, device)
        view = buffer[GUARD:GUARD + data.numel()].view((shape[1], shape[0], *shape[2:])).transpose(0, 1)
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
        (g, g_buffer), (v, v_buffer) = place_in_layout(gate, layout, device), place_in_layout(value, layout, device)
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


class NaNForFreshMemory:
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


def describe_result(result: object) -> str:
    if isinstance(result, torch.Tensor):
        return f"a {result.dtype} tensor"
    return type(result).__name__


# ----------------------------------------------------------------------- running in the interpreter

_INTERPRETED_CHILD = r"""
import sys, torch
grader_root, module_path, module_name, probe_name, folder = sys.argv[1:6]
sys.path.insert(0, grader_root)
from grader import probes
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
                [sys.executable, "-c", _INTERPRETED_CHILD, str(Path(__file__).resolve().parents[2]),
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
    bounds: str = "judged",
) -> dict:
    """swiglu_forward(gate, value) (op "forward") or swiglu_backward(grad_out, gate, value) ("backward")
    on inputs built here in ``layout``. ``bounds`` as ``watched_stage``'s: "apart" runs a kernel that goes
    out of bounds to its end (the violation in ``out_of_bounds``), for a test of another property."""
    name = "swiglu_forward" if op == "forward" else "swiglu_backward"
    check_triton_ready(name)
    fn = exercise_function(module, name)
    g, v, buffers = _place_pair(gate, value, layout, device)
    inputs = {"gate": g, "value": v}
    if op == "backward":
        go, go_buffer = place_in_layout(grad_out, grad_out_layout, device)
        inputs = {"grad_out": go, **inputs}
        buffers.append(("grad_out", go_buffer, [go]))
    before = {k: t.clone() for k, t in inputs.items()}
    with TritonWatch(module) as watch, NaNForFreshMemory():
        result = watched_stage(watch, name, fn, *inputs.values(), bounds=bounds)
    if op == "forward":
        if not isinstance(result, torch.Tensor):
            raise CodeUnderTestError(name, TypeError(f"returned {describe_result(result)}, not a Tensor"))
        outputs = {"out": result}
    else:
        if not (isinstance(result, (tuple, list)) and len(result) == 2
                and all(isinstance(t, torch.Tensor) for t in result)):
            raise CodeUnderTestError(name, TypeError(
                f"returned {describe_result(result)}, not a pair of tensors (grad_gate, grad_value)"))
        outputs = {"grad_gate": result[0], "grad_value": result[1]}
    return {
        **{k: to_cpu(t) for k, t in outputs.items()},
        "kernels": watch.ours(),
        "foreign_kernels": watch.foreign(),
        "inputs_changed": [k for k, t in inputs.items() if not torch.equal(t, before[k])],
        "guards_touched": [label for label, buffer, views in buffers if _guard_touched(buffer, views)],
        "interpreted": triton_interpreting(),
        "out_of_bounds": watch.violation or "",
        # What the kernel loaded and stored, element by element, per pointer argument (grader/kernels/maps.py),
        # in the shapes of the inputs and results.
        "maps": watch.memory.evidence(f"_swiglu_{op}_kernel", [*inputs.values(), *outputs.values()]),
    }


@probe
def swiglu_bounds(module: ModuleType, cases: list[dict]) -> dict:
    """``swiglu_kernels`` for each case (its keyword arguments), where every load and store is checked:
    in this process under the interpreter, or on a GPU machine in one fresh interpreted Python."""
    check_triton_ready("swiglu_forward")
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
    bounds: str = "judged",
) -> dict:
    """out = swiglu(gate, value); then out.backward(grad_out), or out.sum().backward() without one.
    ``bounds`` as ``watched_stage``'s: "apart" where the kernels' own tests already judge an access out of
    bounds that the kernels make on their own."""
    check_triton_ready("swiglu")
    fn = exercise_function(module, "swiglu")
    gate = gate.to(device).requires_grad_(True)
    value = value.to(device).requires_grad_(True)
    with TritonWatch(module) as forward_watch, NaNForFreshMemory():
        out = watched_stage(forward_watch, "swiglu", fn, gate, value, bounds=bounds)
    if not isinstance(out, torch.Tensor):
        raise CodeUnderTestError("swiglu", TypeError(f"returned {describe_result(out)}, not a Tensor"))
    evidence: dict[str, Any] = {
        "out": to_cpu(out),
        "requires_grad": out.requires_grad,
        "grad_fn": type(out.grad_fn).__name__ if out.grad_fn is not None else None,
        "grad_gate": None,
        "grad_value": None,
        "interpreted": triton_interpreting(),
        # What each kernel loaded and stored (grader/kernels/maps.py), the backward's once it has run.
        "forward_maps": forward_watch.memory.evidence("_swiglu_forward_kernel", [gate, value, out]),
        "backward_maps": {},
    }
    if not out.requires_grad:
        return evidence
    with TritonWatch(module) as backward_watch, NaNForFreshMemory():
        if grad_out is None:
            watched_stage(backward_watch, "swiglu (backward pass)", out.sum().backward, bounds=bounds)
        else:
            watched_stage(backward_watch, "swiglu (backward pass)", out.backward, grad_out.to(out), bounds=bounds)
    evidence.update(grad_gate=to_cpu(gate.grad), grad_value=to_cpu(value.grad), backward_maps=backward_watch.memory.evidence(
        "_swiglu_backward_kernel", [t for t in (grad_out, gate, value, gate.grad, value.grad) if t is not None]))
    return evidence


@probe
def swiglu_gradcheck(module: ModuleType, gate: torch.Tensor, value: torch.Tensor, device: str = "cpu",
                     bounds: str = "judged") -> dict:
    """torch.autograd.gradcheck of swiglu in float64: analytical against numerical gradients (``bounds`` as
    ``swiglu_autograd``'s)."""
    from torch.autograd.gradcheck import GradcheckError  # torch.autograd.gradcheck is the function

    check_triton_ready("swiglu")
    fn = exercise_function(module, "swiglu")
    inputs = (gate.to(device, torch.float64).requires_grad_(True), value.to(device, torch.float64).requires_grad_(True))
    try:
        with TritonWatch(module) as watch:
            watched_stage(watch, "swiglu (gradcheck)", torch.autograd.gradcheck, fn, inputs, raise_exception=True,
                          bounds=bounds)
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
def swiglu_bad_arguments(module: ModuleType, case: str, device: str = "cpu", bounds: str = "judged") -> dict:
    """Call with valid arguments (it must work), then with the bad ones of ``case``: what was raised
    (``bounds`` as ``swiglu_autograd``'s)."""
    name, *args = _BAD_SWIGLU_CALLS[case]
    check_triton_ready(name)
    fn = exercise_function(module, name)
    valid = [torch.randn(3, 4, device=device) for _ in args]
    with TritonWatch(module) as watch:
        watched_stage(watch, name, fn, *valid, bounds=bounds)
    kinds = {"f32": torch.float32, "i32": torch.int32, "i64": torch.int64}
    bad = [torch.ones(shape, dtype=kinds[kind], device=device) for kind, shape in args]
    try:
        fn(*bad)
    except Exception as exc:  # the point of the probe: what the code under test raises
        return {"raised": type(exc).__name__, "message": shorten(" ".join(str(exc).split()), 400)}
    return {"raised": None, "message": ""}

