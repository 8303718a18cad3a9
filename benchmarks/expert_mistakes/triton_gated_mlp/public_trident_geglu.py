"""Wrong: adapted from Trident (kakaobrain/trident trident/kernel/geglu.py, GEGLU.forward on trident/language/linear.py): its boundary-check heuristics are inverted (`size % block == 0`), so loads go unchecked past M, N and K exactly when the tiles do not divide them; it accumulates and applies the epilogue in the input dtype (16-bit inputs sum their K steps in 16 bits), its GELU is the tanh approximation, and it rejects float64."""
# Source: https://github.com/kakaobrain/trident/blob/main/trident/kernel/geglu.py (GEGLU.forward, Trident
#   1.1.0, HEAD 6c429c6) with trident/language/linear.py (Linear.forward), trident/language/standard.py
#   (dot), trident/language/math/gelu.py and relu.py, trident/operation/geglu.py (launch: dtype =
#   util.dtype(input.dtype), which raises for float64; use_accelerator=False by default).
# License: Apache-2.0 (Copyright 2023 Kakao Brain Corp.). Adapted for the exercise: the exercise's kernel
# signature and its given 2-D launch (m_block, x_block = program_id(0), program_id(1) instead of trident's
# 1-D pid over batch x m-blocks x x-blocks; no batch); trident's one [state; gate] weight and bias become
# the exercise's separate value ("state") and gate pointers, each read with its own strides; the
# state/gate side outputs it stores for its backward are dropped; trident's @triton.heuristics are
# computed in the kernel from the same sizes (`m_size % m_block_size == 0`, as geglu.py writes them;
# trident's linear.py writes `m_size % m_block_size`, the non-inverted test); `use_accelerator` is its
# default False; `dtype` is the input's element type, with float64 refused by a static assert as
# util.dtype refuses it; activations map to the exercise's names: gelu and gelu_tanh -> trident's GELU
# (tanh approximation), relu -> trident's ReLU, silu and sigmoid (not in trident) -> the exercise's given
# _activation, all applied in `dtype` as trident applies GELU. The output is stored through a block pointer
# with trident's strides (x_size, 1) and its store boundary-check branch.

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

# trident/language/math/gelu.py (GELU.forward) and relu.py (ReLU.forward), trident/language/standard.py
# (dot) and trident/language/linear.py (Linear.forward), as functions of this file. [glue] tl.math.tanh
# (Triton 2's libdevice) is gone from Triton 3: tanh(z) is written 2 * sigmoid(2z) - 1.
@triton.jit
def trident_gelu_forward(input):
    z = input * 0.7978845608028654 * (1 + 0.044715 * input * input)
    return 0.5 * input * (1 + (2 * tl.sigmoid(2 * z) - 1))


@triton.jit
def trident_relu_forward(input):
    return tl.where(input > 0, input, 0)


@triton.jit
def trident_dot(input, other, use_accelerator: tl.constexpr, dtype: tl.constexpr):
    if dtype is tl.bfloat16:
        return tl.dot(input, other, allow_tf32=use_accelerator, out_dtype=tl.float16).to(dtype)
    else:
        return tl.dot(input, other, allow_tf32=use_accelerator, out_dtype=dtype)


@triton.jit
def trident_linear_forward(
    input_ptr,
    weight_ptr,
    bias_ptr,
    m_size,
    n_size,
    k_size,
    input_m_stride,
    input_k_stride,
    weight_n_stride,
    weight_k_stride,
    m_offset,
    n_offset,
    use_accelerator: tl.constexpr,
    m_block_size: tl.constexpr,
    n_block_size: tl.constexpr,
    k_block_size: tl.constexpr,
    require_m_boundary_check,
    require_n_boundary_check,
    require_k_boundary_check,
    HAS_BIAS: tl.constexpr,  # trident: `if bias_ptr is not None`
    dtype: tl.constexpr,
):
    input_block_ptr = tl.make_block_ptr(
        input_ptr,
        shape=(m_size, k_size),
        strides=(input_m_stride, input_k_stride),
        offsets=(m_offset, 0),
        block_shape=(m_block_size, k_block_size),
        order=(1, 0),
    )
    weight_block_ptr = tl.make_block_ptr(
        weight_ptr,
        shape=(k_size, n_size),
        strides=(weight_k_stride, weight_n_stride),
        offsets=(0, n_offset),
        block_shape=(k_block_size, n_block_size),
        order=(0, 1),
    )
    output = tl.zeros((m_block_size, n_block_size), dtype)

    for k_offset in range(0, k_size, k_block_size):
        if require_k_boundary_check | require_m_boundary_check:
            input = tl.load(input_block_ptr, boundary_check=(0, 1), padding_option="zero")
        else:
            input = tl.load(input_block_ptr)

        if require_k_boundary_check | require_n_boundary_check:
            weight = tl.load(weight_block_ptr, boundary_check=(0, 1), padding_option="zero")
        else:
            weight = tl.load(weight_block_ptr)

        output += trident_dot(input, weight, use_accelerator, dtype)
        input_block_ptr = tl.advance(input_block_ptr, (0, k_block_size))
        weight_block_ptr = tl.advance(weight_block_ptr, (k_block_size, 0))

    if HAS_BIAS:
        bias_block_ptr = tl.make_block_ptr(
            bias_ptr,
            shape=(n_size,),
            strides=(1,),
            offsets=(n_offset,),
            block_shape=(n_block_size,),
            order=(0,),
        )
        if require_n_boundary_check:
            bias = tl.load(bias_block_ptr, boundary_check=(0,), padding_option="zero")
        else:
            bias = tl.load(bias_block_ptr)

        output += bias

    return output


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
    tl.static_assert(x_ptr.dtype.element_ty != tl.float64,
                     "Unable to convert the given input: 'torch.float64'.")  # trident util.dtype raises
    dtype = x_ptr.dtype.element_ty  # trident: util.dtype(input.dtype), a constexpr of its launch
    use_accelerator = False  # trident's GEGLU module default
    m_size = M
    k_size = K
    x_size = N
    m_block_size = BLOCK_M
    k_block_size = BLOCK_K
    x_block_size = BLOCK_N
    # trident/kernel/geglu.py @triton.heuristics, as written there
    require_m_boundary_check = m_size % m_block_size == 0
    require_k_boundary_check = k_size % k_block_size == 0
    require_x_boundary_check = x_size % x_block_size == 0

    # [glue] trident: pid = tl.program_id(0) split into batch, m_block, x_block
    m_block = tl.program_id(0)
    x_block = tl.program_id(1)
    m_offset = m_block * m_block_size
    x_offset = x_block * x_block_size

    output_block_ptr = tl.make_block_ptr(
        out_ptr,
        shape=(m_size, x_size),
        strides=(x_size, 1),
        offsets=(m_offset, x_offset),
        block_shape=(m_block_size, x_block_size),
        order=(1, 0),
    )

    state = trident_linear_forward(
        x_ptr,
        value_weight_ptr,
        value_bias_ptr,
        m_size,
        x_size,  # trident: n_size (= 2 * x_size) over its combined weight, the state at x_offset
        k_size,
        stride_xm,
        stride_xk,
        stride_vn,
        stride_vk,
        m_offset,
        x_offset,
        use_accelerator,
        m_block_size,
        x_block_size,
        k_block_size,
        require_m_boundary_check,
        require_x_boundary_check,
        require_k_boundary_check,
        HAS_BIAS,
        dtype,
    )
    gate = trident_linear_forward(
        x_ptr,
        gate_weight_ptr,
        gate_bias_ptr,
        m_size,
        x_size,  # trident: the gate at x_offset + x_size of its combined weight
        k_size,
        stride_xm,
        stride_xk,
        stride_gn,
        stride_gk,
        m_offset,
        x_offset,
        use_accelerator,
        m_block_size,
        x_block_size,
        k_block_size,
        require_m_boundary_check,
        require_x_boundary_check,
        require_k_boundary_check,
        HAS_BIAS,
        dtype,
    )
    if ACTIVATION == "gelu":
        act = trident_gelu_forward(gate)
    elif ACTIVATION == "gelu_tanh":
        act = trident_gelu_forward(gate)
    elif ACTIVATION == "relu":
        act = trident_relu_forward(gate)
    else:
        act = _activation(gate, ACTIVATION)
    output = state * act

    if require_m_boundary_check & require_x_boundary_check:
        tl.store(output_block_ptr, output.to(dtype))
    else:
        tl.store(output_block_ptr, output.to(dtype), boundary_check=(0, 1))


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
