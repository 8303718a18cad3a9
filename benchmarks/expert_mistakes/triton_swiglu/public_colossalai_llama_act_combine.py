"""Wrong: adapted from ColossalAI (hpcaitech/ColossalAI colossalai/kernel/triton/llama_act_combine_kernel.py): computes in the tensors' own dtype (only the sigmoid in float32, rounded back), so 16-bit results round 3+ times and float64 gets a float32 sigmoid."""
from __future__ import annotations
# Source: https://github.com/hpcaitech/ColossalAI/blob/main/colossalai/kernel/triton/llama_act_combine_kernel.py
#   (_llama_act_combine_forward / _llama_act_combine_backward, LlamaActCombine), stored commit 453cf0be.
# License: Apache-2.0 (ColossalAI). Adapted for the exercise: kernels renamed to the exercise's names and
# signatures; ColossalAI's third input x_gate1 (its kernel computes x_gate1 * silu(x_gate2) * x_up) is
# dropped, i.e. taken as 1; ColossalAI's one-program-per-row loop `for off in range(0, N, BLOCK_SIZE)`
# becomes one block per program on the exercise's flat grid; its single shared row `stride` becomes the
# per-tensor row strides the given launch passes. Math, masks (`other=0.`) and dtype handling are ColossalAI's.


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
    # Map the program id to the row of X and Y it should compute.
    # [glue] ColossalAI: row = tl.program_id(0) and a loop over the row's blocks; here one block per program.
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = pid // blocks_per_row
    off = (pid % blocks_per_row) * BLOCK_SIZE
    X_GATE2 = gate_ptr + row * gate_row_stride
    X_UP = value_ptr + row * value_row_stride
    Y = out_ptr + row * out_row_stride

    # do activation and combine, and store in y
    cols = off + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x_gate2 = tl.load(X_GATE2 + cols, mask=mask, other=0.)
    x_up = tl.load(X_UP + cols, mask=mask, other=0.)
    x_gate2_sigmoid = tl.sigmoid(x_gate2.to(tl.float32)).to(x_gate2.dtype)
    # ColossalAI: y = x_gate1 * x_gate2 * x_gate2_sigmoid * x_up
    y = x_gate2 * x_gate2_sigmoid * x_up
    # Write output
    tl.store(Y + cols, y, mask=mask)


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
    # Map the program id to the row of X and Y it should compute.
    # [glue] ColossalAI: row = tl.program_id(0) and a loop over the row's blocks; here one block per program.
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = pid // blocks_per_row
    off = (pid % blocks_per_row) * BLOCK_SIZE
    X_GATE2 = gate_ptr + row * gate_row_stride
    X_UP = value_ptr + row * value_row_stride
    X_GATE2_GRAD = grad_gate_ptr + row * grad_gate_row_stride
    X_UP_GRAD = grad_value_ptr + row * grad_value_row_stride
    Y_GRAD = grad_out_ptr + row * grad_out_row_stride

    cols = off + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x_gate2 = tl.load(X_GATE2 + cols, mask=mask, other=0.)
    x_up = tl.load(X_UP + cols, mask=mask, other=0.)
    y_grad = tl.load(Y_GRAD + cols, mask=mask, other=0.)

    # forward: y = x_gate2 * tl.sigmoid(x_gate2) * x_up
    x_gate2_sigmoid = tl.sigmoid(x_gate2.to(tl.float32)).to(x_gate2.dtype)
    x_gate2_act = y_grad * x_gate2 * x_gate2_sigmoid
    x_up_grad = x_gate2_act  # ColossalAI: x_gate2_act * x_gate1
    # grad(x*sigmoid(x)) = sigmoid(x) + x * sigmoid(x) * [1 - sigmoid(x)]
    #                    = sigmoid(x) * {1 + x * [(1 - sigmoid(x)]}
    x_gate2_grad = (y_grad * x_up) * x_gate2_sigmoid * (1 + x_gate2 * (1 - x_gate2_sigmoid))  # ColossalAI: y_grad * x_gate1 * x_up

    # Write output
    tl.store(X_GATE2_GRAD + cols, x_gate2_grad, mask=mask)
    tl.store(X_UP_GRAD + cols, x_up_grad, mask=mask)


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
