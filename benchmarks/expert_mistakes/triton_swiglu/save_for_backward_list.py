"""Wrong: in SwiGLUFunction.forward I passed a list to ctx.save_for_backward([gate, value]) instead of the tensors themselves."""
from __future__ import annotations
# BEGIN docstring
# stub: """Exercise (advanced): a fused SwiGLU activation in Triton, forward and backward.
# stub:
# stub: In a gated MLP (``GLU(..., activation_fn=nn.SiLU)`` in ``mlp_block.py``) the step between the
# stub: projections is elementwise:
# stub:
# stub:     out = silu(gate) * value,        silu(g) = g * sigmoid(g),        sigmoid(g) = 1 / (1 + exp(-g))
# stub:
# stub: It does almost no arithmetic, so its speed is set by memory traffic. Eagerly, PyTorch runs one kernel
# stub: per operation and every intermediate makes a round trip through memory. One fused kernel reads
# stub: ``gate`` and ``value`` once and writes ``out`` once; a fused backward reads ``grad_out``, ``gate`` and
# stub: ``value`` and writes ``grad_gate`` and ``grad_value``, recomputing the sigmoid instead of storing it.
# stub:
# stub: Fill in the seven numbered TODOs, then run ``pytest tests -m swiglu`` (the kernels' tests alone:
# stub: ``pytest tests/test_triton_swiglu.py``). Without a GPU the kernels run in Triton's interpreter; the
# stub: suite switches it on, you set nothing. Each test names the function and TODO it checks.
# stub:
# stub: How the kernels see the tensors (the scaffolding below prepares this; read it once):
# stub: * every tensor is viewed as ``n_rows`` rows of ``n_cols`` elements, consecutive inside a row; row
# stub:   ``r`` of ``gate`` starts ``r * gate_row_stride`` elements after ``gate_ptr``. Contiguous tensors are
# stub:   a single row; the two halves of ``h.chunk(2, dim=-1)`` are rows whose stride is twice their length;
# stub: * the launch grid is flat: ``n_rows * cdiv(n_cols, BLOCK_SIZE)`` programs, each doing BLOCK_SIZE
# stub:   consecutive columns of one row. The last block of a row usually runs past ``n_cols``.
# stub: * compute in ``COMPUTE_DTYPE`` (float32; float64 for float64 tensors) and round once, when storing.
# stub:
# stub: The kernel tests launch your two kernels themselves, with this file's launch code, on tensors they
# stub: pick: keep the kernels' names and parameters as the stub gives them. A kernel body is Triton language
# stub: only (``tl.*``, its parameters and local names, other ``@triton.jit`` functions of this file).
# stub: """
"""Reference fused SwiGLU in Triton, forward and backward: the instructor's answer.

Same interface as ``exercises/triton_swiglu.py``. Students: try the exercise before reading this.
The stub ``exercises/triton_swiglu.py`` is made from this file (``python -m instructor --stubs``): the
regions between ``# BEGIN`` and ``# END`` are what differs, their ``# stub:`` lines the stub's.

Why fuse: memory traffic, counted in tensors of n elements read or written.

* Naive forward, ``gate * torch.sigmoid(gate) * value``: three kernels, ``sigmoid`` (read 1, write 1),
  ``gate * s`` (read 2, write 1), ``* value`` (read 2, write 1): 8n for arithmetic that costs almost
  nothing. ``F.silu(gate) * value`` is two kernels and 5n, and autograd keeps ``silu(gate)`` alive.
* Naive backward (autograd of ``F.silu(gate) * value``): ``grad_out * silu(gate)`` (3n),
  ``grad_out * value`` (3n), ``silu_backward`` (3n): 9n in three kernels.
* Fused forward: read gate and value, write out: 3n. Fused backward: read grad_out, gate and value,
  write grad_gate and grad_value: 5n. Nothing else moves, so the kernels run at the speed of memory.

Numerics. Every kernel loads its inputs, converts them to float32 (float64 for float64 tensors),
computes there, and rounds once when it stores in the tensors' own dtype. Computing in 16 bits would
round after every operation and lose a bit or two; Triton's ``exp`` does not even accept 16-bit input.

Layout policy. The kernels see every tensor as rows of ``n_cols`` elements with unit stride inside a row
and a per-tensor row stride. All-contiguous tensors are one long row (the fast path). Otherwise rows
are the last dimension, read in place when the leading dimensions merge into one stride (the two halves
of ``h.chunk(2, dim=-1)``, a row slice, a broadcast row); anything else (a transpose, a step along the
last dimension) is copied once with ``.contiguous()``. Outputs are always new contiguous tensors.
"""
# END docstring


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
# BEGIN stub only
# stub: HERE = "exercises/triton_swiglu.py"
# END stub only


# ------------------------------------------------------------------------------------ kernels

@triton.jit
def _swiglu_forward_kernel(
    gate_ptr,  # gate: n_rows rows of n_cols elements, unit stride inside a row
    value_ptr,  # value: same rows as gate
    out_ptr,  # the output, same rows; its element type decides the rounding when you store
    gate_row_stride,  # elements from the start of one row of gate to the next
    value_row_stride,  # same for value
    out_row_stride,  # same for out
    n_cols,  # elements per row
    COMPUTE_DTYPE: tl.constexpr,  # tl.float32, or tl.float64 for float64 tensors
    BLOCK_SIZE: tl.constexpr,  # elements per program, a power of two
):
    # BEGIN TODO 1
    # stub: # TODO 1: the forward kernel body. Then delete the `raise` line in swiglu_forward below.
    # stub: #   1. Which row and which block of columns is this program's? tl.program_id(0) counts programs;
    # stub: #      tl.cdiv(n_cols, BLOCK_SIZE) blocks make one row. Convert the row to tl.int64 before
    # stub: #      multiplying it by a stride (large tensors overflow int32).
    # stub: #   2. The columns: block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE), and a mask for those < n_cols.
    # stub: #   3. tl.load gate and value at ptr + row * row_stride + cols (with the mask), then .to(COMPUTE_DTYPE).
    # stub: #   4. out = silu(gate) * value (tl.sigmoid exists).
    # stub: #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.
    # stub: pass
    # A flat grid of n_rows * cdiv(n_cols, BLOCK_SIZE) programs: axis 0 allows 2**31 - 1 programs,
    # while a second grid axis for rows would stop at 65535.
    pid = tl.program_id(0)
    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)
    row = (pid // blocks_per_row).to(tl.int64)  # int64: row * row_stride can pass 2**31
    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_row = cols < n_cols

    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)
    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)
    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value
    # The one rounding: to out's dtype, on the way out.
    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)
    # END TODO 1


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
    # BEGIN TODO 2
    # stub: # TODO 2: the backward kernel body. Then delete the `raise` line in swiglu_backward below.
    # stub: #   Rows, columns and mask as in TODO 1; load grad_out, gate and value in COMPUTE_DTYPE.
    # stub: #   By the chain rule, grad_gate = grad_out * d out / d gate and grad_value = grad_out * d out / d value,
    # stub: #   where out = silu(gate) * value and silu(g) = g * sigmoid(g). Work the derivatives out on paper:
    # stub: #   silu is a product (product rule), and d sigmoid(g) / dg = sigmoid(g) * (1 - sigmoid(g)).
    # stub: #   Recompute sigmoid(gate) here rather than saving it in the forward: memory traffic is the cost.
    # stub: #   Store both gradients, converted to their pointers' element type, with the mask.
    # stub: pass
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
    # END TODO 2


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
    # BEGIN TODO 1
    # stub: # Delete the next line once _swiglu_forward_kernel is written.
    # stub: raise NotImplementedError(f"swiglu_forward: TODO 1 in {HERE} (write _swiglu_forward_kernel, then delete this line)")
    # END TODO 1
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
    # BEGIN TODO 2
    # stub: # Delete the next line once _swiglu_backward_kernel is written.
    # stub: raise NotImplementedError(f"swiglu_backward: TODO 2 in {HERE} (write _swiglu_backward_kernel, then delete this line)")
    # END TODO 2
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
        # BEGIN TODO 3
        # stub: # TODO 3: keep what the backward needs (ctx.save_for_backward), return swiglu_forward(gate, value).
        # stub: raise NotImplementedError(f"SwiGLUFunction.forward: TODO 3 in {HERE}")
        # The inputs, not silu(gate): the backward recomputes what it needs from them.
        ctx.save_for_backward([gate, value])
        return swiglu_forward(gate, value)
        # END TODO 3

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # BEGIN TODO 4
        # stub: # TODO 4: get the saved tensors back (ctx.saved_tensors) and return (grad_gate, grad_value)
        # stub: # from swiglu_backward: one gradient per input of forward, in the same order.
        # stub: raise NotImplementedError(f"SwiGLUFunction.backward: TODO 4 in {HERE}")
        gate, value = ctx.saved_tensors
        return swiglu_backward(grad_out, gate, value)
        # END TODO 4


def swiglu(gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """silu(gate) * value, differentiable, by the fused kernels."""
    # BEGIN TODO 5
    # stub: # TODO 5: apply SwiGLUFunction (an autograd.Function is called through its .apply).
    # stub: raise NotImplementedError(f"swiglu: TODO 5 in {HERE} (the autograd tests need TODO 3-4 too: SwiGLUFunction)")
    return SwiGLUFunction.apply(gate, value)
    # END TODO 5


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
        # BEGIN TODO 6
        # stub: # TODO 6: create self.Wv, self.Wg and self.Wo (nn.Linear, with bias) and a dropout module.
        # stub: raise NotImplementedError(f"FusedSwiGLU.__init__: TODO 6 in {HERE}")
        for name, size in (("hidden_dim", hidden_dim), ("intermediate_dim", intermediate_dim)):
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise ValueError(f"{name} must be a positive int, got {size!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a float in [0, 1), got {dropout!r}")
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)
        # END TODO 6

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN TODO 7
        # stub: # TODO 7: return dropout(Wo(swiglu(Wg(x), Wv(x)))).
        # stub: raise NotImplementedError(f"FusedSwiGLU.forward: TODO 7 in {HERE}")
        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))
        # END TODO 7
