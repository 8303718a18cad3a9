"""Wrong: only the sigmoid is taken in float32; the products are computed in the inputs' 16-bit dtype."""

import os

import torch
from torch import nn

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

EXPECT_FAILURES = {'test_forward_16bit[float16]': 'less accurate than PyTorch eager',
 'test_forward_16bit[bfloat16]': 'COMPUTE_DTYPE',
 'test_backward_16bit[float16]': 'less accurate than PyTorch eager'}


@triton.jit
def _swiglu_forward_kernel(gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride,
                           n_cols, COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks_per_row).to(tl.int64)
    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=mask)
    value = tl.load(value_ptr + row * value_row_stride + cols, mask=mask)
    out = gate * tl.sigmoid(gate.to(COMPUTE_DTYPE)).to(gate.dtype) * value
    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _swiglu_backward_kernel(grad_out_ptr, gate_ptr, value_ptr, grad_gate_ptr, grad_value_ptr,
                            grad_out_row_stride, gate_row_stride, value_row_stride,
                            grad_gate_row_stride, grad_value_row_stride,
                            n_cols, COMPUTE_DTYPE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks_per_row).to(tl.int64)
    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    grad_out = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=mask)
    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=mask)
    value = tl.load(value_ptr + row * value_row_stride + cols, mask=mask)
    sig = tl.sigmoid(gate.to(COMPUTE_DTYPE)).to(gate.dtype)
    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))
    grad_value = grad_out * gate * sig
    grad_gate = grad_gate.to(grad_gate_ptr.dtype.element_ty)
    grad_value = grad_value.to(grad_value_ptr.dtype.element_ty)
    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols, grad_gate, mask=mask)
    tl.store(grad_value_ptr + row * grad_value_row_stride + cols, grad_value, mask=mask)


def _check_tensor(tensor, name):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
    if not tensor.dtype.is_floating_point:
        raise TypeError(f"{name} must be a floating-point tensor, got {tensor.dtype}")


def _check_same(tensor, name, like, like_name):
    if tensor.shape != like.shape:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}, {like_name} has {tuple(like.shape)}")
    if tensor.dtype != like.dtype:
        raise TypeError(f"{name} has dtype {tensor.dtype}, {like_name} has {like.dtype}")


def _as_rows(tensors):
    numel = tensors[0].numel()
    if all(t.is_contiguous() for t in tensors):
        return [t.view(1, numel) for t in tensors], 1, numel
    n_cols = tensors[0].shape[-1] if tensors[0].dim() else 1
    rows = []
    for t in tensors:
        try:
            view = t.view(-1, n_cols)
        except RuntimeError:
            view = None
        if view is None or (view.stride(1) != 1 and n_cols > 1):
            view = t.contiguous().view(-1, n_cols)
        rows.append(view)
    return rows, numel // n_cols, n_cols


def _launch_config(n_rows, n_cols):
    block_size = min(1024, max(16, triton.next_power_of_2(n_cols)))
    return (n_rows * triton.cdiv(n_cols, block_size),), block_size


def _compute_dtype(dtype):
    return tl.float64 if dtype == torch.float64 else tl.float32


def swiglu_forward(gate, value):
    _check_tensor(gate, "gate")
    _check_tensor(value, "value")
    _check_same(value, "value", gate, "gate")
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if gate.numel() == 0:
        return out
    (gate_rows, value_rows, out_rows), n_rows, n_cols = _as_rows([gate, value, out])
    grid, block_size = _launch_config(n_rows, n_cols)
    _swiglu_forward_kernel[grid](gate_rows, value_rows, out_rows,
                                 gate_rows.stride(0), value_rows.stride(0), out_rows.stride(0), n_cols,
                                 COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size)
    return out


def swiglu_backward(grad_out, gate, value):
    _check_tensor(grad_out, "grad_out")
    _check_tensor(gate, "gate")
    _check_tensor(value, "value")
    _check_same(value, "value", gate, "gate")
    _check_same(grad_out, "grad_out", gate, "gate")
    grad_gate = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    grad_value = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if gate.numel() == 0:
        return grad_gate, grad_value
    rows, n_rows, n_cols = _as_rows([grad_out, gate, value, grad_gate, grad_value])
    grid, block_size = _launch_config(n_rows, n_cols)
    _swiglu_backward_kernel[grid](*rows, *(r.stride(0) for r in rows), n_cols,
                                  COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size)
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
