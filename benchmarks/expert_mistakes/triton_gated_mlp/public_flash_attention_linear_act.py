"""Wrong: adapted from flash-attention (Dao-AILab/flash-attention flash_attn/ops/triton/linear.py, kernel_fwd of triton_linear_act): the final tl.store has no mask (the mask is computed and never passed), so edge tiles write past M and N; float32 tiles go through tl.dot's default TF32, and the float32 accumulator has no float64 path."""
# Source: https://github.com/Dao-AILab/flash-attention/blob/main/flash_attn/ops/triton/linear.py
#   (kernel_fwd, HEAD 0251105a; the file says it is adapted from kernl's linear_layer.py and Triton's
#   matmul) with flash_attn/ops/triton/k_activations.py (gelu, gelu_approx, relu).
# License: BSD 3-Clause (flash-attention). Adapted for the exercise: the exercise's kernel signature and its
# given 2-D launch (pid_m, pid_n = program_id(0), program_id(1) instead of the grouped 1-D pid with GROUP_M);
# B becomes the two transposed weights, two accumulators, the epilogue `act(gate) * value`; the
# SAVE_ACT_INPUT side output is dropped; the A_ROWMAJOR / B_COLMAJOR and EVEN_K heuristic branches
# (constexprs its wrapper computes) are replaced by their general strided, masked branches (the same
# addresses and values); activations map to the exercise's names: gelu -> gelu (erf), gelu_tanh ->
# gelu_approx, relu -> relu, silu and sigmoid (not in flash-attention) -> the exercise's given _activation.
# Kept as in flash-attention: the `rm % M` / `rn % N` wrap ("trick to avoid masking on M and N axis"), the
# count-down K loop with mask `rk < k`, `acc += tl.dot(a, b)` at default precision, the float32
# accumulator, the bias added after the loop, the output addressed `rm * stride_cm + rn` (stride_cn
# assumed 1) and `tl.store(C, acc)` with the mask left unused.

from __future__ import annotations

import os

import torch
import torch.nn.functional as F
from torch import nn

# Without a GPU, Triton runs kernels in its interpreter, which must be on before triton is imported.
if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "relu", "sigmoid")
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16  # tl.dot needs at least 16 in each dimension
COMPUTE_DTYPES = {torch.float64: tl.float64}  # everything else accumulates in float32


# ------------------------------------------------------------------------------------------ given

@triton.jit
def _activation(g, ACTIVATION: tl.constexpr):
    """act(g) in g's dtype; ACTIVATION is one of ACTIVATIONS, chosen when the kernel is compiled."""
    if ACTIVATION == "silu":
        return g * tl.sigmoid(g)
    elif ACTIVATION == "gelu":
        return 0.5 * g * (1.0 + tl.math.erf(g * 0.7071067811865476))
    elif ACTIVATION == "gelu_tanh":
        inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
        return 0.5 * g * (2.0 * tl.sigmoid(2.0 * inner))  # 1 + tanh(z) = 2 * sigmoid(2z)
    elif ACTIVATION == "relu":
        return tl.maximum(g, 0.0)
    else:
        return tl.sigmoid(g)


def _torch_activation(name: str):
    """The same activations in PyTorch, for the backward (recomputed there, in autograd)."""
    return {"silu": F.silu, "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
            "relu": F.relu, "sigmoid": torch.sigmoid}[name]


def _check(x: torch.Tensor, gate_weight: torch.Tensor, value_weight: torch.Tensor, gate_bias, value_bias,
           activation: str) -> None:
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {x.dtype}")
    for name, w in (("gate_weight", gate_weight), ("value_weight", value_weight)):
        if w.dim() != 2 or w.shape[1] != x.shape[-1]:
            raise ValueError(f"{name} must have shape (intermediate, {x.shape[-1]}), got {tuple(w.shape)}")
        if w.dtype != x.dtype or w.device != x.device:
            raise TypeError(f"{name} must match x's dtype and device ({x.dtype}, {x.device}), got {w.dtype}, {w.device}")
    if value_weight.shape != gate_weight.shape:
        raise ValueError(f"value_weight's shape {tuple(value_weight.shape)} differs from gate_weight's"
                         f" {tuple(gate_weight.shape)}")
    for name, b in (("gate_bias", gate_bias), ("value_bias", value_bias)):
        if b is not None and (b.shape != (gate_weight.shape[0],) or b.dtype != x.dtype):
            raise ValueError(f"{name} must have shape ({gate_weight.shape[0]},) and x's dtype, got"
                             f" {tuple(b.shape)} {b.dtype}")


# ------------------------------------------------------------------------------------------ TODO 1

# flash_attn/ops/triton/k_activations.py ("Adapted from xformers"). [glue] the file's constants are written
# out (the course's source check wants them as tl.constexpr literals: math.sqrt(2.0 / math.pi),
# math.sqrt(1.0 / 2)); tl.libdevice.erf, gone from Triton 3, is tl.math.erf; relu's `zero.to(x.dtype)` is 0.0.
_sqrt2pi = tl.constexpr(0.7978845608028654)
_sqrt1_2 = tl.constexpr(0.7071067811865476)


@triton.jit
def tanh(x):
    # Tanh is just a scaled sigmoid
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def relu(x):
    """
    ReLU_ activation function
    """
    return tl.where(x >= 0, x, 0.0)


@triton.jit
def gelu(x):
    """Gaussian Error Linear Unit (GELU)"""
    return x * 0.5 * (1.0 + tl.math.erf(x * _sqrt1_2))


@triton.jit
def gelu_approx(x):
    """
    GeLU_ activation - Gaussian error linear unit, with tanh approximation
    """
    return 0.5 * x * (1.0 + tanh(_sqrt2pi * x * (1.0 + 0.044715 * x * x)))


@triton.jit
def _gated_projection_kernel(
    x_ptr,                      # (M, K): the tokens, any strides
    gate_weight_ptr,            # (N, K): Wg's weight, one row per output
    value_weight_ptr,           # (N, K): Wv's weight
    gate_bias_ptr,              # (N,) when HAS_BIAS
    value_bias_ptr,             # (N,) when HAS_BIAS
    out_ptr,                    # (M, N): act(x Wg^T + bg) * (x Wv^T + bv)
    M, N, K,                    # tokens, intermediate width, hidden width
    stride_xm, stride_xk,
    stride_gn, stride_gk,
    stride_vn, stride_vk,
    stride_om, stride_on,
    HAS_BIAS: tl.constexpr,
    ACTIVATION: tl.constexpr,
    COMPUTE_DTYPE: tl.constexpr,  # tl.float32, or tl.float64 for float64 inputs
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    # [glue] flash-attention: pid = tl.program_id(axis=0) re-ordered with GROUP_M; the given launch is 2-D.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    # now compute the block that each program will go through
    # rm (resp. rn) denotes a range of indices
    # for rows (resp. col) of C
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # trick to avoid masking on M and N axis
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)

    A = x_ptr + (ram[:, None] * stride_xm + rk[None, :] * stride_xk)
    BG = gate_weight_ptr + (rk[:, None] * stride_gk + rbn[None, :] * stride_gn)
    BV = value_weight_ptr + (rk[:, None] * stride_vk + rbn[None, :] * stride_vn)

    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_value = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)

    for k in range(K, 0, -BLOCK_K):
        a = tl.load(A, mask=rk[None, :] < k, other=0.0)
        bg = tl.load(BG, mask=rk[:, None] < k, other=0.0)
        bv = tl.load(BV, mask=rk[:, None] < k, other=0.0)
        acc_gate += tl.dot(a, bg)
        acc_value += tl.dot(a, bv)

        A += BLOCK_K * stride_xk
        BG += BLOCK_K * stride_gk
        BV += BLOCK_K * stride_vk

    # Putting bias after the matmul (instead of before) is faster, idk why
    if HAS_BIAS:
        bias_gate = tl.load(gate_bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc_gate += bias_gate[None, :]
        bias_value = tl.load(value_bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc_value += bias_value[None, :]

    # optional: fused activation (while the data is in shared memory)
    if ACTIVATION == "gelu":
        acc_gate = gelu(acc_gate)
    elif ACTIVATION == "gelu_tanh":
        acc_gate = gelu_approx(acc_gate)
    elif ACTIVATION == "relu":
        acc_gate = relu(acc_gate)
    else:
        acc_gate = _activation(acc_gate, ACTIVATION)
    acc = acc_gate * acc_value
    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)

    # write back result
    # C = C + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    C = out_ptr + rm[:, None] * stride_om + rn[None, :]
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(C, acc)


# ------------------------------------------------------------------------------------------ given: the launch

def _launch_gated_kernel(rows: torch.Tensor, gate_weight: torch.Tensor, value_weight: torch.Tensor,
                         gate_bias: torch.Tensor | None, value_bias: torch.Tensor | None, out: torch.Tensor,
                         activation: str) -> None:
    """Fill ``out`` (M, N) with act(rows Wg^T + bg) * (rows Wv^T + bv) for ``rows`` (M, K), in one launch of
    _gated_projection_kernel: one program per (BLOCK_M, BLOCK_N) tile of out, every tensor read through
    its strides. Given: the kernel's tests (TODO 1) launch your kernel through this very function, so the
    kernel's points never depend on your gated_projection (TODO 2), nor its points on your kernel's."""
    m, k = rows.shape
    n = gate_weight.shape[0]
    if m and n:  # nothing to launch for no tokens
        has_bias = gate_bias is not None
        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
        _gated_projection_kernel[grid](
            rows, gate_weight, value_weight,
            # the kernel reads each bias one element apart: contiguous (a copy only where it is not already);
            # without biases, HAS_BIAS=False means the bias pointers are never read: any tensor will do
            gate_bias.contiguous() if has_bias else gate_weight, value_bias.contiguous() if has_bias else value_weight,
            out,
            m, n, k,
            rows.stride(0), rows.stride(1),
            gate_weight.stride(0), gate_weight.stride(1),
            value_weight.stride(0), value_weight.stride(1),
            out.stride(0), out.stride(1),
            HAS_BIAS=has_bias, ACTIVATION=activation,
            COMPUTE_DTYPE=COMPUTE_DTYPES.get(rows.dtype, tl.float32),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        )

# ------------------------------------------------------------------------------------------ TODO 2

def gated_projection(x: torch.Tensor, gate_weight: torch.Tensor, value_weight: torch.Tensor,
                     gate_bias: torch.Tensor | None = None, value_bias: torch.Tensor | None = None,
                     activation: str = "silu") -> torch.Tensor:
    """act(x @ gate_weight.T + gate_bias) * (x @ value_weight.T + value_bias), one kernel launch."""
    _check(x, gate_weight, value_weight, gate_bias, value_bias, activation)
    if (gate_bias is None) != (value_bias is None):
        raise ValueError("gate_bias and value_bias must both be given, or neither")
    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are
    out = torch.empty((rows.shape[0], gate_weight.shape[0]), dtype=x.dtype, device=x.device)
    _launch_gated_kernel(rows, gate_weight, value_weight, gate_bias, value_bias, out, activation)
    return out.reshape(*x.shape[:-1], gate_weight.shape[0])

# ------------------------------------------------------------------------------------------ TODO 3

def gated_projection_combined(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                              activation: str = "silu") -> torch.Tensor:
    """The same, with both weights in one (2 * intermediate, hidden) tensor, the gate's rows first, and
    both biases in one (2 * intermediate,) tensor: read through offsets and strides, never copied."""
    if weight.dim() != 2 or weight.shape[0] % 2:
        raise ValueError(f"weight must have shape (2 * intermediate, hidden), got {tuple(weight.shape)}")
    n = weight.shape[0] // 2
    gate_bias, value_bias = (None, None) if bias is None else (bias[:n], bias[n:])
    return gated_projection(x, weight[:n], weight[n:], gate_bias, value_bias, activation)

# ------------------------------------------------------------------------------------------ TODO 4

class GatedProjectionFunction(torch.autograd.Function):
    """The fused projection for autograd: the kernel forward; a backward that recomputes the two
    projections with PyTorch matmuls (the forward saved only its inputs)."""

    @staticmethod
    def forward(ctx, x, gate_weight, gate_bias, value_weight, value_bias, activation: str):
        ctx.save_for_backward(x, gate_weight, gate_bias, value_weight, value_bias)
        ctx.activation = activation
        return gated_projection(x, gate_weight, value_weight, gate_bias, value_bias, activation)

    @staticmethod
    def backward(ctx, grad_out):
        x, gate_weight, gate_bias, value_weight, value_bias = ctx.saved_tensors
        with torch.enable_grad():
            inputs = [t.detach().requires_grad_(t.requires_grad) if t is not None else None
                      for t in (x, gate_weight, gate_bias, value_weight, value_bias)]
            xi, wg, bg, wv, bv = inputs
            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)
            wanted = [t for t in inputs if t is not None and t.requires_grad]
            grads = iter(torch.autograd.grad(out, wanted, grad_out) if wanted else ())
        return (*(next(grads) if t is not None and t.requires_grad else None for t in inputs), None)


# ------------------------------------------------------------------------------------------ TODO 5

class FusedGatedMLP(nn.Module):
    """Wo(act(Wg(x)) * Wv(x)) with the fused projection, then dropout: GLU's layers and names."""

    def __init__(self, hidden_dim: int, intermediate_dim: int, activation: str = "silu", dropout: float = 0.0) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.activation = activation
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = GatedProjectionFunction.apply(x, self.Wg.weight, self.Wg.bias, self.Wv.weight, self.Wv.bias,
                                               self.activation)
        return self.dropout(self.Wo(hidden))
