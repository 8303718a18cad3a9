"""The grader's stand-in kernels: what runs instead of an exercise's kernel while a test asks for it.

Whether the student's wiring (``swiglu``, ``SwiGLUFunction``, ``FusedSwiGLU``; ``gated_projection``,
``gated_projection_combined``, ``FusedGatedMLP``) does its work with the exercise's kernels is decided
by what its results are when those kernels are replaced: each launch of the module's kernel runs a
stand-in instead, which computes something no right kernel computes (a weighted sum, its coefficients
drawn by the test). Code that launches the kernel returns the stand-in's values; code that computes
in PyTorch does not. The test computes the stand-in's values itself, from the inputs it drew.

The coefficients are in the student's process while the stand-ins are on, so a file could read them
and compute the stand-in's values in PyTorch. That earns nothing: every test that uses stand-ins
counts only once the student's kernels compute the right values in a process of their own, under
trusted launch code, where no Python of the student's runs (``grader/kernels/source.py``).

Each stand-in reads its arguments through the names and strides the stub's kernel signature gives, so
it also tells whether the launch passed the right tensors, strides and flags.
"""

from __future__ import annotations

from typing import Callable

import torch

GATED_ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "relu", "sigmoid")  # the gated stub's ACTIVATIONS, in order


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


def _swiglu_stand_in(kernel: str, args: dict, coefficients: dict) -> None:
    """Each ``X_ptr`` holds rows of ``n_cols`` elements, ``X_row_stride`` apart (the kernels' contract in
    the stub), as many rows as the first output tensor holds; whatever grid the launch code picked."""
    def rows(name: str) -> torch.Tensor:
        t, n_cols = args[f"{name}_ptr"], int(args["n_cols"])
        n_rows = args["out_ptr" if "out_ptr" in args else "grad_gate_ptr"].numel() // n_cols
        return torch.as_strided(t, (n_rows, n_cols), (int(args[f"{name}_row_stride"]), 1), t.storage_offset())

    if kernel == "_swiglu_forward_kernel":
        out = rows("out")
        out.copy_(stand_in_forward(rows("gate"), rows("value"), coefficients["forward"]).to(out.dtype))
        return
    grads = stand_in_backward(rows("grad_out"), rows("gate"), rows("value"), coefficients["backward"])
    for name, grad in zip(("grad_gate", "grad_value"), grads):
        target = rows(name)
        target.copy_(grad.to(target.dtype))


def _gated_stand_in(kernel: str, args: dict, coefficients: dict) -> None:
    """x is (M, K) through stride_xm, stride_xk; each weight (N, K) through its own strides; the biases
    (N,) contiguous, read only with HAS_BIAS; out (M, N) through stride_om, stride_on."""
    m, n, k = (int(args[name]) for name in ("M", "N", "K"))

    def view(name: str, shape: tuple, strides: tuple) -> torch.Tensor:
        t = args[name]
        return torch.as_strided(t, shape, tuple(int(args[s]) if isinstance(s, str) else s for s in strides),
                                t.storage_offset())

    x = view("x_ptr", (m, k), ("stride_xm", "stride_xk"))
    wg = view("gate_weight_ptr", (n, k), ("stride_gn", "stride_gk"))
    wv = view("value_weight_ptr", (n, k), ("stride_vn", "stride_vk"))
    has_bias = bool(getattr(args["HAS_BIAS"], "value", args["HAS_BIAS"]))
    bg, bv = (view(name, (n,), (1,)) if has_bias else None for name in ("gate_bias_ptr", "value_bias_ptr"))
    compute = torch.float64 if "64" in str(getattr(args["COMPUTE_DTYPE"], "value", args["COMPUTE_DTYPE"])) else torch.float32
    activation = str(getattr(args["ACTIVATION"], "value", args["ACTIVATION"]))
    out = view("out_ptr", (m, n), ("stride_om", "stride_on"))
    out.copy_(stand_in_gated(x, wg, wv, bg, bv, activation, coefficients["gated"], compute).to(out.dtype))


# kernel name -> (the stand-in, what the message tells the student to launch it like)
STAND_INS: dict[str, tuple[Callable[[str, dict, dict], None], str]] = {
    "_swiglu_forward_kernel": (_swiglu_stand_in, "the stub's swiglu_forward and swiglu_backward do"),
    "_swiglu_backward_kernel": (_swiglu_stand_in, "the stub's swiglu_forward and swiglu_backward do"),
    "_gated_projection_kernel": (_gated_stand_in, "TODO 2 says: every stride, HAS_BIAS, the activation,"
                                                  " COMPUTE_DTYPES.get(x.dtype, tl.float32)"),
}


def run_stand_in(kernel: str, args: dict, coefficients: dict) -> None:
    """Write the stand-in's values where ``kernel`` would, whatever grid the launch code picked."""
    stand_in, launch_like = STAND_INS[kernel]
    try:
        stand_in(kernel, args, coefficients)
    except (KeyError, RuntimeError, AttributeError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise RuntimeError(f"{kernel} was launched with arguments the stub's launch code does not pass"
                           f" ({type(exc).__name__}: {exc}): launch it as {launch_like}") from None
