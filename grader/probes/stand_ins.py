"""The grader's stand-in kernels: what runs instead of an exercise's kernel while a test asks for it.

Whether the student's wiring (``swiglu``, ``SwiGLUFunction``, ``FusedSwiGLU``; ``gated_projection``,
``gated_projection_combined``, ``FusedGatedMLP``) does its work with the exercise's kernels is decided
by what its results are when those kernels are replaced: each launch of the module's kernel is served a
stand-in's values instead, something no right kernel computes (a weighted sum). Code that launches the
kernel returns them; code that computes in PyTorch does not.

The stand-ins are served out of the student's reach: the process running the student's code sends each
launch's inputs (``launch_request``) to the trusted process that asked for the stand-ins
(``grader/stand_in_server.py``), which draws fresh coefficients for that launch, computes the values
(``serve``) and keeps the launch in its log; only the values come back, and are written where the kernel
would have written them (``run_stand_in``). So a file cannot read the coefficients, and one launch's
values tell it nothing about the next launch's. The tests judge a result against the log (a launch's
coefficients count only for the inputs that launch was served): ``grader/judge/stand_in_log.py``.

Each launch is read through the names and strides the stub's kernel signature gives, so the served
values also tell whether the launch passed the right tensors, strides and flags.

The stand-in functions (``StandInFunction``) go one level up: they replace ``swiglu`` / ``SwiGLUFunction`` or
``gated_projection`` themselves, so the blocks built on them are judged on the blocks' own code: "served"
(the same trusted values, to tell whether the block uses the function at all) or "exact" (the formula in
PyTorch, not secret, for what the block does with it).
"""

from __future__ import annotations

import torch

from grader.probes import core
from grader.probes.activations import ACTIVATIONS
from grader.probes.triton_bounds import layout_note
from grader.probes.triton_memory import OutOfBoundsAccess

GATED_ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "relu", "sigmoid")  # the gated stub's ACTIVATIONS, in order

# kernel -> (its inputs, its outputs, how many coefficients a launch draws)
KERNELS = {
    "_swiglu_forward_kernel": (("gate", "value"), ("out",), 2),
    "_swiglu_backward_kernel": (("grad_out", "gate", "value"), ("grad_gate", "grad_value"), 2),
    "_gated_projection_kernel": (("x", "gate_weight", "value_weight", "gate_bias", "value_bias"), ("out",), 3),
}


def stand_in_forward(gate: torch.Tensor, value: torch.Tensor, coefficients) -> torch.Tensor:
    """What the stand-in for _swiglu_forward_kernel writes to out (in float64)."""
    a, b = coefficients
    return a * gate.double() + b * value.double()


def stand_in_backward(grad_out: torch.Tensor, gate: torch.Tensor, value: torch.Tensor, coefficients
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """What the stand-in for _swiglu_backward_kernel writes to (grad_gate, grad_value) (in float64)."""
    c, d = coefficients
    return c * grad_out.double() + gate.double(), d * grad_out.double() + value.double()


def stand_in_gated(x: torch.Tensor, gate_weight: torch.Tensor, value_weight: torch.Tensor, gate_bias, value_bias,
                   activation: str, coefficients, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """What the stand-in for _gated_projection_kernel writes to out: a * (x Wg^T + bg) + b * (x Wv^T + bv)
    + c * (1 + the activation's place in ACTIVATIONS), computed in ``dtype`` (the launch's COMPUTE_DTYPE);
    no activation, no product. The last term tells which activation the launch asked for."""
    a, b, c = coefficients
    x, wg, wv = (t.to(dtype) for t in (x, gate_weight, value_weight))
    gate, value = x @ wg.T, x @ wv.T
    if gate_bias is not None:
        gate, value = gate + gate_bias.to(dtype), value + value_bias.to(dtype)
    return a * gate + b * value + c * (1 + GATED_ACTIVATIONS.index(activation))


def serve(request: dict, coefficients: list[float]) -> dict[str, torch.Tensor]:
    """The values a launch is served (float64, or the gated launch's COMPUTE_DTYPE), from a request
    ``launch_request`` made and the trusted side checked."""
    kernel, inputs = request["kernel"], request["inputs"]
    if kernel == "_swiglu_forward_kernel":
        return {"out": stand_in_forward(inputs["gate"], inputs["value"], coefficients)}
    if kernel == "_swiglu_backward_kernel":
        grads = stand_in_backward(inputs["grad_out"], inputs["gate"], inputs["value"], coefficients)
        return dict(zip(("grad_gate", "grad_value"), grads))
    compute = torch.float64 if request["compute"] == "float64" else torch.float32
    return {"out": stand_in_gated(inputs["x"], inputs["gate_weight"], inputs["value_weight"], inputs.get("gate_bias"),
                                  inputs.get("value_bias"), request["activation"], coefficients, compute)}


# ------------------------------------------------ the launch's side, in the process running the code under test

def _constexpr(value) -> str:
    return str(getattr(value, "value", value))


def _swiglu_views(kernel: str, args: dict) -> tuple[dict, dict]:
    """Each ``X_ptr`` holds rows of ``n_cols`` elements, ``X_row_stride`` apart (the kernels' contract in
    the stub), as many rows as the first output tensor holds; whatever grid the launch code picked."""
    inputs, outputs = KERNELS[kernel][:2]

    def rows(name: str) -> torch.Tensor:
        t, n_cols, row_stride = args[f"{name}_ptr"], int(args["n_cols"]), int(args[f"{name}_row_stride"])
        n_rows = args[f"{outputs[0]}_ptr"].numel() // n_cols
        # What the kernel reads, ptr + row * row_stride + cols, must lie inside the tensor it was given.
        span = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride())) + 1 if t.numel() else 0
        if n_rows and (n_rows - 1) * row_stride + n_cols > span:
            raise OutOfBoundsAccess(f"{kernel} would read {name}_ptr past the end of its tensor, rows of {n_cols}"
                                    f" elements {row_stride} apart from a tensor of {t.numel()} elements"
                                    f" ({layout_note(t) or f'shape {tuple(t.shape)}'}): pass each tensor with rows"
                                    " of consecutive elements, as the stub's launch code does")
        return torch.as_strided(t, (n_rows, n_cols), (row_stride, 1), t.storage_offset())

    return {name: rows(name) for name in inputs}, {name: rows(name) for name in outputs}


def _gated_views(args: dict) -> tuple[dict, dict, dict]:
    """x is (M, K) through stride_xm, stride_xk; each weight (N, K) through its own strides; the biases
    (N,) contiguous, read only with HAS_BIAS; out (M, N) through stride_om, stride_on."""
    m, n, k = (int(args[name]) for name in ("M", "N", "K"))

    def view(name: str, shape: tuple, strides: tuple) -> torch.Tensor:
        t = args[name]
        return torch.as_strided(t, shape, tuple(int(args[s]) if isinstance(s, str) else s for s in strides),
                                t.storage_offset())

    inputs = {"x": view("x_ptr", (m, k), ("stride_xm", "stride_xk")),
              "gate_weight": view("gate_weight_ptr", (n, k), ("stride_gn", "stride_gk")),
              "value_weight": view("value_weight_ptr", (n, k), ("stride_vn", "stride_vk"))}
    if bool(getattr(args["HAS_BIAS"], "value", args["HAS_BIAS"])):
        inputs.update(gate_bias=view("gate_bias_ptr", (n,), (1,)), value_bias=view("value_bias_ptr", (n,), (1,)))
    flags = {"activation": _constexpr(args["ACTIVATION"]),
             "compute": "float64" if "64" in _constexpr(args["COMPUTE_DTYPE"]) else "float32"}
    return inputs, {"out": view("out_ptr", (m, n), ("stride_om", "stride_on"))}, flags


def launch_request(kernel: str, args: dict) -> tuple[dict, dict[str, torch.Tensor]]:
    """(the request for this launch's values: its inputs, copied, and its flags; the views they go to)."""
    if kernel == "_gated_projection_kernel":
        inputs, outputs, flags = _gated_views(args)
    else:
        (inputs, outputs), flags = _swiglu_views(kernel, args), {}
    copies = {name: t.detach().to("cpu", copy=True).contiguous() for name, t in inputs.items()}
    return {"kernel": kernel, "inputs": copies, **flags}, outputs


# kernel name -> what the message tells the student to launch it like
LAUNCH_LIKE = {
    "_swiglu_forward_kernel": "the stub's swiglu_forward and swiglu_backward do",
    "_swiglu_backward_kernel": "the stub's swiglu_forward and swiglu_backward do",
    "_gated_projection_kernel": "TODO 2 says: every stride, HAS_BIAS, the activation, COMPUTE_DTYPES.get(x.dtype, tl.float32)",
}


def ask(request: dict) -> dict:
    """The values the trusted process serves for ``request`` (``core.STAND_IN_SERVER``: the child's channel
    to its parent, or the seam's server in the grader's own process), or {"error"}."""
    if core.STAND_IN_SERVER is None:
        return {"error": "no trusted process serves stand-in values here"}
    return core.STAND_IN_SERVER(request)


def run_stand_in(kernel: str, args: dict) -> None:
    """Write the values served for this launch where ``kernel`` would, whatever grid the launch code picked."""
    try:
        request, outputs = launch_request(kernel, args)
    except OutOfBoundsAccess:
        raise
    except (KeyError, RuntimeError, AttributeError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise RuntimeError(f"{kernel} was launched with arguments the stub's launch code does not pass"
                           f" ({type(exc).__name__}: {exc}): launch it as {LAUNCH_LIKE[kernel]}") from None
    served = ask(request)
    if "error" in served:
        raise RuntimeError(f"{kernel} was launched with arguments the grader's stand-in cannot take: {served['error']};"
                           f" launch it as {LAUNCH_LIKE[kernel]}")
    for name, target in outputs.items():
        target.copy_(served[name].to(target.device, target.dtype))


# ------------------------------------------------ the stand-in Functions, for the tests of the block built on swiglu

def _swiglu_in_pytorch(gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """SwiGLU in float64, rounded once to the inputs' dtype, differentiated by PyTorch's autograd: what a right
    swiglu returns. Not secret: the tests that use it judge what the block does with swiglu's result;
    whether the block calls swiglu at all is judged with ``_ServedSwiGLU``."""
    return torch.nn.functional.silu(gate.double()).mul(value.double()).to(gate.dtype)


class _SwiGLUInPyTorch:
    apply = staticmethod(_swiglu_in_pytorch)  # in place of SwiGLUFunction, for a block that calls .apply


def _rows(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to("cpu", copy=True).reshape(-1, t.shape[-1]).contiguous()


class _ServedSwiGLU(torch.autograd.Function):
    """The grader's own wiring of the stand-in kernels: forward and backward are served by the trusted
    process, like launches of the exercise's kernels (same requests, same log), so a block's output follows
    them only if the block calls swiglu. It keeps copies of the inputs' rows, for the backward's request."""

    @staticmethod
    def forward(ctx, gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        ctx.rows, ctx.like = (_rows(gate), _rows(value)), gate
        served = _served("_swiglu_forward_kernel", dict(zip(("gate", "value"), ctx.rows)))
        return served["out"].reshape(gate.shape).to(gate.device, gate.dtype)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        like = ctx.like
        served = _served("_swiglu_backward_kernel", dict(zip(("grad_out", "gate", "value"), (_rows(grad_out), *ctx.rows))))
        return tuple(served[name].reshape(like.shape).to(like.device, like.dtype) for name in ("grad_gate", "grad_value"))


def _served(kernel: str, inputs: dict) -> dict:
    served = ask({"kernel": kernel, "inputs": inputs})
    if "error" in served:
        raise RuntimeError(f"the grader's stand-in for swiglu: {served['error']}")
    return served


class StandInArguments(TypeError):
    """The grader's gated_projection was handed what no right call hands it (a bias where a weight belongs): the
    call's arguments are wrong, not the projection. Its name is the error's ``type`` the block's judges read."""


def _check_gated_arguments(x, gate_weight, value_weight, gate_bias, value_bias) -> None:
    """Each argument a tensor of the rank gated_projection takes: x (..., K), both weights (N, K), the biases (N,)."""
    for name, given, rank in (("x", x, None), ("gate_weight", gate_weight, 2), ("value_weight", value_weight, 2),
                              ("gate_bias", gate_bias, 1), ("value_bias", value_bias, 1)):
        if given is None and name.endswith("bias"):
            continue
        if not isinstance(given, torch.Tensor) or (rank is not None and given.dim() != rank):
            shape = f"of shape {tuple(given.shape)}" if isinstance(given, torch.Tensor) else f"a {type(given).__name__}"
            raise StandInArguments(f"gated_projection got {name} {shape}, where a right call passes"
                                   f" {'a tensor' if rank is None else f'a {rank}-d tensor'}")


@torch.no_grad()
def _gated_projection_in_pytorch(x, gate_weight, value_weight, gate_bias=None, value_bias=None, activation="silu"):
    """act(x Wg^T + bg) * (x Wv^T + bv) in float64, rounded once to x's dtype: what a right gated_projection
    returns (not secret, as _swiglu_in_pytorch). Without gradients, as the kernel's output has none: the
    block's gradients must come from GatedProjectionFunction.backward (TODO 4), not from PyTorch's autograd."""
    _check_gated_arguments(x, gate_weight, value_weight, gate_bias, value_bias)
    d = torch.float64
    gate = torch.nn.functional.linear(x.to(d), gate_weight.to(d), None if gate_bias is None else gate_bias.to(d))
    value = torch.nn.functional.linear(x.to(d), value_weight.to(d), None if value_bias is None else value_bias.to(d))
    return (ACTIVATIONS[activation]()(gate) * value).to(x.dtype)


def _served_gated_projection(x, gate_weight, value_weight, gate_bias=None, value_bias=None, activation="silu"):
    """One launch of the gated stand-in on x's rows, served by the trusted process (as _ServedSwiGLU)."""
    _check_gated_arguments(x, gate_weight, value_weight, gate_bias, value_bias)
    inputs = {"x": _rows(x), "gate_weight": _rows(gate_weight), "value_weight": _rows(value_weight)}
    inputs.update({name: bias.detach().to("cpu", copy=True) for name, bias in (("gate_bias", gate_bias),
                                                                              ("value_bias", value_bias))
                   if bias is not None})
    served = ask({"kernel": "_gated_projection_kernel", "inputs": inputs, "activation": activation,
                           "compute": "float64" if x.dtype == torch.float64 else "float32"})
    if "error" in served:
        raise RuntimeError(f"the grader's stand-in for gated_projection: {served['error']}")
    return served["out"].reshape(*x.shape[:-1], -1).to(x.device, x.dtype)


# kind -> the module's names and what replaces each while a StandInFunction is active
STAND_IN_FUNCTIONS = {
    "exact": {"swiglu": _SwiGLUInPyTorch.apply, "SwiGLUFunction": _SwiGLUInPyTorch,
              "gated_projection": _gated_projection_in_pytorch},
    "served": {"swiglu": _ServedSwiGLU.apply, "SwiGLUFunction": _ServedSwiGLU,
               "gated_projection": _served_gated_projection},
}


class StandInFunction:
    """While active: the module's ``swiglu`` and ``SwiGLUFunction`` (the SwiGLU exercise) or ``gated_projection``
    (the gated one) are the grader's (``kind``: "exact", computed in PyTorch; "served", the stand-in values
    served by the trusted process), so the block built on them is judged on its own code, whatever the
    student's kernels, launch and autograd wiring do."""

    def __init__(self, module, kind: str) -> None:
        self.module, self.replacements = module, STAND_IN_FUNCTIONS[kind]
        self.saved: dict[str, object] = {}

    def __enter__(self) -> None:
        for name, replacement in self.replacements.items():
            if hasattr(self.module, name):
                self.saved[name] = getattr(self.module, name)
                setattr(self.module, name, replacement)

    def __exit__(self, *exc_info) -> None:
        for name, original in self.saved.items():
            setattr(self.module, name, original)
