"""Wrong: adapted from LightLLM before its bf16 fix (ModelTC/lightllm lightllm/models/llama/triton_kernel/silu_and_mul.py @986f93d5): silu is rounded to float16 whatever the input dtype, so float32 and float64 results carry float16 error; forward only."""
from __future__ import annotations
# Source: https://github.com/ModelTC/lightllm/blob/986f93d5/lightllm/models/llama/triton_kernel/silu_and_mul.py
#   (_silu_and_mul_kernel as it was until 15a050ab "Add bf16 inference for llm model (#387)", April 2024,
#   which replaced `gate.to(tl.float16)` by `gate.to(input_ptr.dtype.element_ty)`).
# License: Apache-2.0 (LightLLM). Adapted for the exercise: the forward kernel only (LightLLM has no backward
# kernel; _swiglu_backward_kernel below is the course reference's, unchanged); separate gate/value/out
# pointers (this LightLLM version wrote the result in place over the gate half of its input); the 2-D grid
# mapped onto the exercise's flat grid. The hard-coded float16 rounding of silu(gate) is kept.


import os

import torch
from torch import nn

# Without a GPU, Triton runs kernels in its interpreter, which must be switched on before triton is
# imported. The graded suite does this already; this line lets the file work on its own too.
if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

MAX_BLOCK_SIZE = 1024  # elements per program: 1024 fp32 = 4 KiB per tensor, plenty to hide latency
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


# ------------------------------------------------------------------------------------ kernels

@triton.jit
def _swiglu_forward_kernel(
    gate_ptr,  # gate: n_rows rows of n_cols elements, unit stride inside a row
    value_ptr,  # value: same rows as gate
    out_ptr,  # the output, same rows
    gate_row_stride,  # elements from the start of one row of gate to the next
    value_row_stride,  # same for value
    out_row_stride,  # same for out
    n_cols,  # elements per row
    COMPUTE_DTYPE: tl.constexpr,  # tl.float32, or tl.float64 for float64 tensors
    BLOCK_SIZE: tl.constexpr,  # elements per program, a power of two
):
    # LightLLM (this version) casts the row strides to int64: stride_input_m.to(tl.int64).
    gate_row_stride = tl.cast(gate_row_stride, dtype=tl.int64)
    value_row_stride = tl.cast(value_row_stride, dtype=tl.int64)
    out_row_stride = tl.cast(out_row_stride, dtype=tl.int64)

    # [glue] LightLLM's grid is 2-D: tid = tl.program_id(0) picks BLOCK_M rows, pid = tl.program_id(1) a block
    # of columns. The exercise's flat grid has one row per program: BLOCK_M = 1, and its row mask
    # `(input_m_offsets < size_m)` is always true there, so only the column mask remains.
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    tid = tl.program_id(0) // blocks_per_row
    input_m_offsets = tid
    output_m_offsets = tid

    pid = tl.program_id(0) % blocks_per_row
    input_n_offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    output_n_offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)

    # LightLLM reads gate and up from one [gate | up] tensor (up at + size_n); here they are two tensors.
    up_offsets = input_m_offsets * value_row_stride + input_n_offsets
    gate_offsets = input_m_offsets * gate_row_stride + input_n_offsets
    res_offsets = output_m_offsets * out_row_stride + output_n_offsets

    up = tl.load(
        value_ptr + up_offsets,
        mask=input_n_offsets < n_cols,
        other=0.0,
    )
    gate = tl.load(
        gate_ptr + gate_offsets,
        mask=input_n_offsets < n_cols,
        other=0.0,
    ).to(tl.float32)

    gate = gate / (1 + tl.exp(-gate))
    gate = gate.to(tl.float16)  # LightLLM @986f93d5: hard-coded float16

    tl.store(
        out_ptr + res_offsets,
        up * gate,
        mask=output_n_offsets < n_cols,
    )


@triton.jit
def _swiglu_backward_kernel(
    grad_out_ptr,  # gradient of the loss with respect to out: n_rows rows of n_cols elements
    gate_ptr,  # the forward's gate, same rows
    value_ptr,  # the forward's value, same rows
    grad_gate_ptr,  # write d loss / d gate here
    grad_value_ptr,  # write d loss / d value here
    grad_out_row_stride,  # elements from one row of grad_out to the next (can be 0: a broadcast row)
    gate_row_stride,  # same for gate
    value_row_stride,  # same for value
    grad_gate_row_stride,  # same for grad_gate
    grad_value_row_stride,  # same for grad_value
    n_cols,  # elements per row
    COMPUTE_DTYPE: tl.constexpr,  # tl.float32, or tl.float64 for float64 tensors
    BLOCK_SIZE: tl.constexpr,  # elements per program, a power of two
):
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks_per_row).to(tl.int64)
    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_row = cols < n_cols

    grad_out = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)
    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)
    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)

    # The sigmoid is recomputed from gate rather than saved by the forward: a few flops here cost
    # nothing next to writing and re-reading a whole extra tensor.
    sig = tl.sigmoid(gate)
    # y = silu(gate) * value with silu(g) = g * sigmoid(g). Product rule and sigmoid' = s * (1 - s):
    #   silu'(g) = s + g * s * (1 - s) = s * (1 + g * (1 - s))
    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))
    grad_value = grad_out * gate * sig

    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,
             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)
    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,
             grad_value.to(grad_value_ptr.dtype.element_ty), mask=in_row)


# ------------------------------------------------------------ scaffolding (nothing to change here)

def _check_tensor(tensor: object, name: str) -> None:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
    if tensor.dtype not in SUPPORTED_DTYPES:
        kind = "a floating-point" if not tensor.dtype.is_floating_point else "a float16, bfloat16, float32 or float64"
        raise TypeError(f"{name} must be {kind} tensor, got dtype {tensor.dtype}")


def _check_same(tensor: torch.Tensor, name: str, like: torch.Tensor, like_name: str) -> None:
    if tensor.shape != like.shape:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)} but {like_name} has shape "
                         f"{tuple(like.shape)}: they must match")
    if tensor.dtype != like.dtype:
        raise TypeError(f"{name} has dtype {tensor.dtype} but {like_name} has dtype {like.dtype}: they must match")
    if tensor.device != like.device:
        raise ValueError(f"{name} is on {tensor.device} but {like_name} is on {like.device}: they must match")


def _as_rows(tensors: list[torch.Tensor]) -> tuple[list[torch.Tensor], int, int]:
    """2-D views (n_rows, n_cols) with unit column stride, copying only tensors that have none.

    All contiguous: one row of every element. Otherwise rows are the last dimension, read in place
    when the leading dimensions merge into one stride (halves of h.chunk(2, -1), a broadcast row);
    anything else (a transpose, x[..., ::2]) is copied once with .contiguous().
    """
    numel = tensors[0].numel()
    if all(t.is_contiguous() for t in tensors) and numel < 2**31:
        return [t.view(1, numel) for t in tensors], 1, numel
    n_cols = tensors[0].shape[-1] if tensors[0].dim() else 1
    rows = []
    for t in tensors:
        try:
            view = t.view(-1, n_cols)
        except RuntimeError:  # the leading dimensions do not merge into a single stride
            view = None
        if view is None or (view.stride(1) != 1 and n_cols > 1):
            view = t.contiguous().view(-1, n_cols)
        rows.append(view)
    return rows, numel // n_cols, n_cols


def _launch_config(n_rows: int, n_cols: int) -> tuple[tuple[int], int, int]:
    """(grid, BLOCK_SIZE, num_warps): enough programs to cover every row's every column."""
    block_size = min(MAX_BLOCK_SIZE, max(16, triton.next_power_of_2(n_cols)))
    num_warps = max(1, min(8, block_size // 256))
    return (n_rows * triton.cdiv(n_cols, block_size),), block_size, num_warps


def _compute_dtype(dtype: torch.dtype):
    return tl.float64 if dtype == torch.float64 else tl.float32


# ------------------------------------------------------------------------------ public API

def swiglu_forward(gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """silu(gate) * value by one Triton kernel; same shape and dtype as the inputs."""
    _check_tensor(gate, "gate")
    _check_tensor(value, "value")
    _check_same(value, "value", gate, "gate")
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if gate.numel() == 0:
        return out
    (gate_rows, value_rows, out_rows), n_rows, n_cols = _as_rows([gate, value, out])
    grid, block_size, num_warps = _launch_config(n_rows, n_cols)
    _swiglu_forward_kernel[grid](
        gate_rows, value_rows, out_rows,
        gate_rows.stride(0), value_rows.stride(0), out_rows.stride(0),
        n_cols,
        COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size, num_warps=num_warps,
    )
    return out


def swiglu_backward(grad_out: torch.Tensor, gate: torch.Tensor, value: torch.Tensor
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """(grad_gate, grad_value) of silu(gate) * value for the incoming grad_out, by one Triton kernel."""
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
    grid, block_size, num_warps = _launch_config(n_rows, n_cols)
    _swiglu_backward_kernel[grid](
        *rows,
        *(r.stride(0) for r in rows),
        n_cols,
        COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size, num_warps=num_warps,
    )
    return grad_gate, grad_value


class SwiGLUFunction(torch.autograd.Function):
    """Tells autograd that the forward is swiglu_forward and its backward is swiglu_backward."""

    @staticmethod
    def forward(ctx, gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        # The inputs, not silu(gate): the backward recomputes what it needs from them.
        ctx.save_for_backward(gate, value)
        return swiglu_forward(gate, value)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        gate, value = ctx.saved_tensors
        return swiglu_backward(grad_out, gate, value)


def swiglu(gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """silu(gate) * value, differentiable, by the fused kernels."""
    return SwiGLUFunction.apply(gate, value)


class FusedSwiGLU(nn.Module):
    """The GLU block with activation_fn=nn.SiLU, using the fused activation.

        gate  = Wg(x)           Wg: hidden_dim -> intermediate_dim
        value = Wv(x)           Wv: hidden_dim -> intermediate_dim
        y = dropout(Wo(swiglu(gate, value)))          Wo: intermediate_dim -> hidden_dim

    Same layers (nn.Linear with bias, named Wv, Wg, Wo) and the same function as
    GLU(hidden_dim, intermediate_dim, activation_fn=nn.SiLU, dropout=dropout).
    """

    def __init__(self, hidden_dim: int, intermediate_dim: int, dropout: float = 0.0) -> None:
        super().__init__()
        for name, size in (("hidden_dim", hidden_dim), ("intermediate_dim", intermediate_dim)):
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise ValueError(f"{name} must be a positive int, got {size!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a float in [0, 1), got {dropout!r}")
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))
