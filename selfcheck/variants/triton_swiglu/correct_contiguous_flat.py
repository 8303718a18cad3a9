"""Correct: copies every input with .contiguous() and launches the kernels on one row of every element, in 256-element blocks."""

import os

import torch
import torch.nn.functional as F
from torch import nn

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

EXPECT_FAILURES = {}
BLOCK = 256


@triton.jit
def _swiglu_forward_kernel(gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride,
                           n_cols, COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (tl.program_id(0) // blocks).to(tl.int64)
    offsets = (tl.program_id(0) % blocks) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = offsets < n_cols
    gate = tl.load(gate_ptr + row * gate_row_stride + offsets, mask=inside)
    value = tl.load(value_ptr + row * value_row_stride + offsets, mask=inside)
    gate, value = gate.to(COMPUTE_DTYPE), value.to(COMPUTE_DTYPE)
    tl.store(out_ptr + row * out_row_stride + offsets, (gate * tl.sigmoid(gate) * value).to(out_ptr.dtype.element_ty),
             mask=inside)


@triton.jit
def _swiglu_backward_kernel(grad_out_ptr, gate_ptr, value_ptr, grad_gate_ptr, grad_value_ptr, grad_out_row_stride,
                            gate_row_stride, value_row_stride, grad_gate_row_stride, grad_value_row_stride, n_cols,
                            COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (tl.program_id(0) // blocks).to(tl.int64)
    offsets = (tl.program_id(0) % blocks) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = offsets < n_cols
    grad = tl.load(grad_out_ptr + row * grad_out_row_stride + offsets, mask=inside).to(COMPUTE_DTYPE)
    gate = tl.load(gate_ptr + row * gate_row_stride + offsets, mask=inside).to(COMPUTE_DTYPE)
    value = tl.load(value_ptr + row * value_row_stride + offsets, mask=inside).to(COMPUTE_DTYPE)
    sig = tl.sigmoid(gate)
    dsilu = sig * (1.0 + gate - gate * sig)
    tl.store(grad_gate_ptr + row * grad_gate_row_stride + offsets,
             (grad * value * dsilu).to(grad_gate_ptr.dtype.element_ty), mask=inside)
    tl.store(grad_value_ptr + row * grad_value_row_stride + offsets,
             (grad * gate * sig).to(grad_value_ptr.dtype.element_ty), mask=inside)


def _check(name, t, like=None, like_name=""):
    if not torch.is_tensor(t) or not torch.is_floating_point(t):
        raise TypeError(f"{name} must be a floating-point torch.Tensor")
    if like is not None and t.shape != like.shape:
        raise ValueError(f"{name} must have the shape of {like_name}, {tuple(like.shape)}; got {tuple(t.shape)}")
    if like is not None and t.dtype != like.dtype:
        raise TypeError(f"{name} must have the dtype of {like_name}")


def _wide(dtype):
    return tl.float64 if dtype == torch.float64 else tl.float32


def swiglu_forward(gate, value):
    _check("gate", gate)
    _check("value", value, gate, "gate")
    gate, value = gate.contiguous(), value.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    if n:
        _swiglu_forward_kernel[(triton.cdiv(n, BLOCK),)](gate, value, out, n, n, n, n, COMPUTE_DTYPE=_wide(gate.dtype),
                                                         BLOCK_SIZE=BLOCK, num_warps=2)
    return out


def swiglu_backward(grad_out, gate, value):
    _check("gate", gate)
    _check("value", value, gate, "gate")
    _check("grad_out", grad_out, gate, "gate")
    grad_out, gate, value = grad_out.contiguous(), gate.contiguous(), value.contiguous()
    grad_gate, grad_value = torch.empty_like(gate), torch.empty_like(gate)
    n = gate.numel()
    if n:
        _swiglu_backward_kernel[(triton.cdiv(n, BLOCK),)](grad_out, gate, value, grad_gate, grad_value, n, n, n, n, n, n,
                                                          COMPUTE_DTYPE=_wide(gate.dtype), BLOCK_SIZE=BLOCK, num_warps=2)
    return grad_gate, grad_value


class SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, value):
        ctx.save_for_backward(gate, value)
        return swiglu_forward(gate, value)

    @staticmethod
    def backward(ctx, grad_out):
        gate, value = ctx.saved_tensors
        grad_gate, grad_value = swiglu_backward(grad_out, gate, value)
        return grad_gate, grad_value


def swiglu(gate, value):
    return SwiGLUFunction.apply(gate, value)


class FusedSwiGLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.p = dropout

    def forward(self, x):
        y = self.Wo(swiglu(self.Wg(x), self.Wv(x)))
        return F.dropout(y, self.p, training=self.training)
