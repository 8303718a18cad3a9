"""Correct: a 2-D grid, column blocks on axis 0 and rows on axis 1, programs numbered across both; silu written as g / (1 + exp(-g))."""

import os

import torch
from torch import nn

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

EXPECT_FAILURES = {}


@triton.jit
def _swiglu_forward_kernel(gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_cols,
                           COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # Programs numbered across both grid axes: (column block, row) here, one flat axis in the stub's launch.
    pid = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks).to(tl.int64)
    cols = (pid % blocks) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    keep = cols < n_cols
    g = tl.load(gate_ptr + row * gate_row_stride + cols, mask=keep, other=0.0).to(COMPUTE_DTYPE)
    v = tl.load(value_ptr + row * value_row_stride + cols, mask=keep, other=0.0).to(COMPUTE_DTYPE)
    y = g / (1.0 + tl.exp(-g)) * v
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=keep)


@triton.jit
def _swiglu_backward_kernel(grad_out_ptr, gate_ptr, value_ptr, grad_gate_ptr, grad_value_ptr, grad_out_row_stride,
                            gate_row_stride, value_row_stride, grad_gate_row_stride, grad_value_row_stride, n_cols,
                            COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    blocks = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks).to(tl.int64)
    cols = (pid % blocks) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    keep = cols < n_cols
    dy = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=keep, other=0.0).to(COMPUTE_DTYPE)
    g = tl.load(gate_ptr + row * gate_row_stride + cols, mask=keep, other=0.0).to(COMPUTE_DTYPE)
    v = tl.load(value_ptr + row * value_row_stride + cols, mask=keep, other=0.0).to(COMPUTE_DTYPE)
    s = 1.0 / (1.0 + tl.exp(-g))
    silu = g * s
    # d silu/dg = s + g * s * (1 - s) = s + silu * (1 - s)
    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols, (dy * v * (s + silu * (1.0 - s))).to(
        grad_gate_ptr.dtype.element_ty), mask=keep)
    tl.store(grad_value_ptr + row * grad_value_row_stride + cols, (dy * silu).to(grad_value_ptr.dtype.element_ty),
             mask=keep)


def _rows(t, n_cols):
    """(rows, row stride) with unit column stride; reshape copies only when it must."""
    r = t.reshape(-1, n_cols)
    if r.stride(1) != 1 and n_cols > 1:
        r = r.contiguous()
    return r, r.stride(0)


def _validate(**tensors):
    first_name, first = next(iter(tensors.items()))
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor")
        if t.shape != first.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {tuple(first.shape)} like {first_name}")
        if t.dtype != first.dtype:
            raise TypeError(f"{name} has dtype {t.dtype}, expected {first.dtype} like {first_name}")


def _grid_and_block(t):
    n_cols = t.shape[-1] if t.dim() else 1
    block = min(256, triton.next_power_of_2(n_cols))
    return n_cols, block, (triton.cdiv(n_cols, block), t.numel() // n_cols)


def swiglu_forward(gate, value):
    _validate(gate=gate, value=value)
    out = torch.empty_like(gate, memory_format=torch.contiguous_format)
    if gate.numel() == 0:
        return out
    n_cols, block, grid = _grid_and_block(gate)
    (g, gs), (v, vs), (o, os_) = _rows(gate, n_cols), _rows(value, n_cols), _rows(out, n_cols)
    wide = tl.float64 if gate.dtype == torch.float64 else tl.float32
    _swiglu_forward_kernel[grid](g, v, o, gs, vs, os_, n_cols, COMPUTE_DTYPE=wide, BLOCK_SIZE=block)
    return out


def swiglu_backward(grad_out, gate, value):
    _validate(gate=gate, value=value, grad_out=grad_out)
    dg = torch.empty_like(gate, memory_format=torch.contiguous_format)
    dv = torch.empty_like(gate, memory_format=torch.contiguous_format)
    if gate.numel() == 0:
        return dg, dv
    n_cols, block, grid = _grid_and_block(gate)
    views = [_rows(t, n_cols) for t in (grad_out, gate, value, dg, dv)]
    wide = tl.float64 if gate.dtype == torch.float64 else tl.float32
    _swiglu_backward_kernel[grid](*(r for r, _ in views), *(s for _, s in views), n_cols, COMPUTE_DTYPE=wide,
                                  BLOCK_SIZE=block)
    return dg, dv


class SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, value):
        ctx.save_for_backward(gate, value)
        return swiglu_forward(gate, value)

    @staticmethod
    def backward(ctx, grad_out):
        return swiglu_backward(grad_out, *ctx.saved_tensors)


def swiglu(gate, value):
    return SwiGLUFunction.apply(gate, value)


class FusedSwiGLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, dropout=0.0):
        super().__init__()
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        hidden = swiglu(self.Wg(x), self.Wv(x))
        return self.dropout(self.Wo(hidden))
