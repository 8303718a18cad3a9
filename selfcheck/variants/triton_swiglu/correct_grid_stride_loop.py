"""Correct: at most four programs on one contiguous row, each looping over every fourth block (a grid-stride loop)."""

import os

import torch
from torch import nn

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

EXPECT_FAILURES = {}
PROGRAMS = 4


@triton.jit
def _swiglu_forward_kernel(gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride,
                           n_cols, COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # Program p of row r starts at block p of the row and steps by the number of programs: with a
    # program per block (one row or many) that is one block each; with fewer, each loops.
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (tl.program_id(0) // blocks).to(tl.int64)
    for block in tl.range(tl.program_id(0) % blocks, blocks, tl.num_programs(0)):
        idx = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        ok = idx < n_cols
        gate = tl.load(gate_ptr + row * gate_row_stride + idx, mask=ok).to(COMPUTE_DTYPE)
        value = tl.load(value_ptr + row * value_row_stride + idx, mask=ok).to(COMPUTE_DTYPE)
        tl.store(out_ptr + row * out_row_stride + idx, (value * gate * tl.sigmoid(gate)).to(out_ptr.dtype.element_ty),
                 mask=ok)


@triton.jit
def _swiglu_backward_kernel(grad_out_ptr, gate_ptr, value_ptr, grad_gate_ptr, grad_value_ptr, grad_out_row_stride,
                            gate_row_stride, value_row_stride, grad_gate_row_stride, grad_value_row_stride, n_cols,
                            COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (tl.program_id(0) // blocks).to(tl.int64)
    for block in tl.range(tl.program_id(0) % blocks, blocks, tl.num_programs(0)):
        idx = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        ok = idx < n_cols
        grad_out = tl.load(grad_out_ptr + row * grad_out_row_stride + idx, mask=ok).to(COMPUTE_DTYPE)
        gate = tl.load(gate_ptr + row * gate_row_stride + idx, mask=ok).to(COMPUTE_DTYPE)
        value = tl.load(value_ptr + row * value_row_stride + idx, mask=ok).to(COMPUTE_DTYPE)
        sig = tl.sigmoid(gate)
        grad_silu = grad_out * value
        tl.store(grad_gate_ptr + row * grad_gate_row_stride + idx,
                 (grad_silu * (sig + gate * sig * (1.0 - sig))).to(grad_gate_ptr.dtype.element_ty), mask=ok)
        tl.store(grad_value_ptr + row * grad_value_row_stride + idx,
                 (grad_out * gate * sig).to(grad_value_ptr.dtype.element_ty), mask=ok)


def _flat(t, name, like=None):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} is not a tensor")
    if not t.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, not {t.dtype}")
    if like is not None and t.shape != like.shape:
        raise ValueError(f"{name}: shape {tuple(t.shape)} differs from gate's {tuple(like.shape)}")
    if like is not None and t.dtype != like.dtype:
        raise TypeError(f"{name}: dtype {t.dtype} differs from gate's {like.dtype}")
    return t.contiguous().view(-1)  # one row: the kernel walks consecutive elements


def _acc(dtype):
    return tl.float64 if dtype == torch.float64 else tl.float32


def _programs(n, block):
    return (min(PROGRAMS, triton.cdiv(n, block)),)  # never more programs than blocks: one row


def swiglu_forward(gate, value):
    g = _flat(gate, "gate")
    v = _flat(value, "value", gate)
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = g.numel()
    if n:
        _swiglu_forward_kernel[_programs(n, 512)](g, v, out, n, n, n, n, COMPUTE_DTYPE=_acc(gate.dtype), BLOCK_SIZE=512)
    return out


def swiglu_backward(grad_out, gate, value):
    g = _flat(gate, "gate")
    v = _flat(value, "value", gate)
    go = _flat(grad_out, "grad_out", gate)
    grad_gate = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    grad_value = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = g.numel()
    if n:
        _swiglu_backward_kernel[_programs(n, 512)](go, g, v, grad_gate, grad_value, n, n, n, n, n, n,
                                                   COMPUTE_DTYPE=_acc(gate.dtype), BLOCK_SIZE=512)
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
