"""Wrong: flattens with .reshape(-1), which keeps the strides of a strided or broadcast view."""

import os

import torch
from torch import nn

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

EXPECT_FAILURES = {
    "test_forward_noncontiguous[strided]": "strided view",
    "test_backward_noncontiguous[grad_out_expanded]": "not contiguous",
    "test_autograd_sum_backward": "strides (0,)",
}
PROGRAMS = 4


@triton.jit
def _silu_gate_kernel(gate_ptr, value_ptr, out_ptr, n, ACC: tl.constexpr, PROGRAMS: tl.constexpr,
                      BLOCK_SIZE: tl.constexpr):
    for start in tl.range(tl.program_id(0) * BLOCK_SIZE, n, PROGRAMS * BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        ok = idx < n
        gate = tl.load(gate_ptr + idx, mask=ok).to(ACC)
        value = tl.load(value_ptr + idx, mask=ok).to(ACC)
        tl.store(out_ptr + idx, (value * gate * tl.sigmoid(gate)).to(out_ptr.dtype.element_ty), mask=ok)


@triton.jit
def _silu_gate_grad_kernel(grad_out_ptr, gate_ptr, value_ptr, grad_gate_ptr, grad_value_ptr, n,
                           ACC: tl.constexpr, PROGRAMS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    for start in tl.range(tl.program_id(0) * BLOCK_SIZE, n, PROGRAMS * BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        ok = idx < n
        grad_out = tl.load(grad_out_ptr + idx, mask=ok).to(ACC)
        gate = tl.load(gate_ptr + idx, mask=ok).to(ACC)
        value = tl.load(value_ptr + idx, mask=ok).to(ACC)
        sig = tl.sigmoid(gate)
        grad_silu = grad_out * value
        tl.store(grad_gate_ptr + idx, (grad_silu * (sig + gate * sig * (1.0 - sig))).to(grad_gate_ptr.dtype.element_ty),
                 mask=ok)
        tl.store(grad_value_ptr + idx, (grad_out * gate * sig).to(grad_value_ptr.dtype.element_ty), mask=ok)


def _flat(t, name, like=None):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} is not a tensor")
    if not t.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, not {t.dtype}")
    if like is not None and t.shape != like.shape:
        raise ValueError(f"{name}: shape {tuple(t.shape)} differs from gate's {tuple(like.shape)}")
    if like is not None and t.dtype != like.dtype:
        raise TypeError(f"{name}: dtype {t.dtype} differs from gate's {like.dtype}")
    return t.reshape(-1)  # a view when it can be one, a copy when not


def _acc(dtype):
    return tl.float64 if dtype == torch.float64 else tl.float32


def swiglu_forward(gate, value):
    g = _flat(gate, "gate")
    v = _flat(value, "value", gate)
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if g.numel():
        _silu_gate_kernel[(PROGRAMS,)](g, v, out, g.numel(), ACC=_acc(gate.dtype), PROGRAMS=PROGRAMS, BLOCK_SIZE=512)
    return out


def swiglu_backward(grad_out, gate, value):
    g = _flat(gate, "gate")
    v = _flat(value, "value", gate)
    go = _flat(grad_out, "grad_out", gate)
    grad_gate = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    grad_value = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if g.numel():
        _silu_gate_grad_kernel[(PROGRAMS,)](go, g, v, grad_gate, grad_value, g.numel(), ACC=_acc(gate.dtype),
                                            PROGRAMS=PROGRAMS, BLOCK_SIZE=512)
    return grad_gate, grad_value


class SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, value):
        ctx.save_for_backward(gate, value)
        return swiglu_forward(gate, value)

    @staticmethod
    def backward(ctx, grad_out):
        gate, value = ctx.saved_tensors
        return swiglu_backward(grad_out, gate, value)


def swiglu(gate, value):
    return SwiGLUFunction.apply(gate, value)


class FusedSwiGLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))
