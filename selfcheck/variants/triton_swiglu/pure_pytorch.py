"""Wrong: right numbers from PyTorch operations; there is no Triton kernel at all."""

import torch
from torch import nn

POLICY_TODOS = "1-5"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[1d]': {'cause': 'KernelSourceError in _swiglu_forward_kernel', 'says': 'defines no @triton.jit function _swiglu_forward_kernel'},
    'test_backward_float32[1d]': {'cause': 'KernelSourceError in _swiglu_backward_kernel', 'says': 'defines no @triton.jit function _swiglu_backward_kernel'},
    'test_kernels_launched[forward-contiguous]': {'cause': 'forward: result not from the kernel'},
    'test_autograd_gradients[float32]': {'waits_on': 'test_kernels_launched[forward-chunk-bfloat16]'},
}


def _check(name, tensor, like=None):
    if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor")
    if like is not None and tensor.shape != like.shape:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}, gate has {tuple(like.shape)}")


def swiglu_forward(gate, value):
    _check("gate", gate)
    _check("value", value, gate)
    return (gate.float() * torch.sigmoid(gate.float()) * value.float()).to(gate.dtype)


def swiglu_backward(grad_out, gate, value):
    _check("grad_out", grad_out, gate)
    _check("gate", gate)
    _check("value", value, gate)
    g, v, go = gate.float(), value.float(), grad_out.float()
    sig = torch.sigmoid(g)
    return (go * v * sig * (1 + g * (1 - sig))).to(gate.dtype), (go * g * sig).to(gate.dtype)


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
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))
