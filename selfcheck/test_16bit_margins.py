"""The 16-bit rule of the fused SwiGLU suite, over many seeds: how far inside it kernels that round
as PyTorch eager does stay, and how far outside it kernels that compute in 16 bits fall.

Each kernel is written here as its sequence of roundings in PyTorch (float32 arithmetic, then
``.to(dtype)`` wherever the kernel stores or computes in 16 bits), on the suite's own inputs
(``draw``, ``HALF_SHAPE``) and judged by the suite's own rule: a ratio is the larger of the worst
element's error over its budget (``tolerance``) and the mean error over what the mean may be
(``EAGER_MEAN_SLACK`` times eager's); below 1 passes.
"""

from __future__ import annotations

import pytest

import torch

from grader.judge.checks import ulp
from grader.judge.swiglu_support import (EAGER_MEAN_SLACK, GATE_SCALE, HALF_SHAPE, backward_formula, draw,
                                      eager_backward, eager_forward, forward_formula, mean_ulps, tolerance)

pytestmark = [pytest.mark.swiglu]  # python -m selfcheck --task: the tasks this checks

SEEDS = 50
MARGIN = 0.05  # both kinds must stay this far from the bound


def sigmoid32(g):
    return torch.sigmoid(g.float())


def eager_rounding(g, v, go):
    """Rounds where eager does: silu stored in 16 bits, then each product (Liger's forward since its
    PR #778, Unsloth's forward and backward)."""
    silu = (g.float() * sigmoid32(g)).to(g.dtype)
    grad_silu = go * v
    s = sigmoid32(g)
    return silu * v, (grad_silu.float() * s * (1 + g.float() * (1 - s))).to(g.dtype), go * silu


def one_rounding(g, v, go):
    """The reference: float32 throughout, one rounding when storing (16-bit inputs multiplied in float32)."""
    g32, v32, go32, s = g.float(), v.float(), go.float(), sigmoid32(g)
    return ((g32 * s * v32).to(g.dtype), (go32 * v32 * s * (1 + g32 * (1 - s))).to(g.dtype),
            (go32 * g32 * s).to(g.dtype))


def computes_in_16bit(g, v, go):
    """Only the sigmoid in float32; every product and sum in 16 bits (selfcheck variant computes_in_16bit)."""
    s = sigmoid32(g).to(g.dtype)
    return g * s * v, go * v * s * (1 + g * (1 - s)), go * g * s


OUTPUTS = ("out", "grad_gate", "grad_value")


def worst_ratios(kernel, dtype) -> dict[str, list[float]]:
    """For each output, for each seed: the largest error / budget."""
    ratios = {name: [] for name in OUTPUTS}
    for seed in range(SEEDS):
        gen = torch.Generator().manual_seed(seed)
        g, v, go = draw(gen, HALF_SHAPE, dtype, GATE_SCALE), draw(gen, HALF_SHAPE, dtype), draw(gen, HALF_SHAPE, dtype)
        exact = [forward_formula(g, v), *backward_formula(go, g, v)]
        eager = [eager_forward(g, v), *eager_backward(go, g, v)]
        for name, got, want, by_eager in zip(OUTPUTS, kernel(g, v, go), exact, eager):
            tol = tolerance(dtype, want, by_eager)
            bound = tol["roundings"] * ulp(want, dtype) + tol["rtol"] * want.abs() + tol["atol"]
            worst = float(((got.double() - want).abs() / bound).max())
            mean = mean_ulps(got, want) / (EAGER_MEAN_SLACK * mean_ulps(by_eager, want))
            ratios[name].append(max(worst, mean))
    return ratios


def test_16bit_margins():
    seen = {}
    for dtype in (torch.float16, torch.bfloat16):
        for kernel in (eager_rounding, one_rounding, computes_in_16bit):
            for output, ratios in worst_ratios(kernel, dtype).items():
                seen[f"{kernel.__name__} {dtype} {output}"] = (min(ratios), max(ratios))
    print("\n".join(f"{k}: error / allowed from {lo:.3f} to {hi:.3f} over {SEEDS} seeds"
                    for k, (lo, hi) in seen.items()))
    for name, (lo, hi) in seen.items():
        if name.startswith("computes_in_16bit"):
            assert lo >= 1 + MARGIN, f"{name} passes the 16-bit rule for some seed: {lo:.3f}"
        else:
            assert hi <= 1 - MARGIN, f"{name} comes too close to the 16-bit bound: {hi:.3f}"
