"""The 16-bit rule of the fused gated-MLP suite, over many seeds: a kernel's mean error may be at most
PyTorch eager's on the same inputs. How far inside it a kernel that sums in float32 and rounds once
stays, and how far outside it a kernel that sums in 16 bits falls.

Each kernel is written here as its sequence of roundings in PyTorch, on the suite's own inputs
(``inputs`` with ``WIDE_HIDDEN``) and judged against the suite's own float64 ``formula``: a ratio is
the kernel's mean absolute error over eager's; below 1 passes.
"""

from __future__ import annotations

import pytest

import torch
import torch.nn.functional as F

from grader.judge.gated_support import WIDE_HIDDEN, formula, inputs

pytestmark = [pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

SEEDS = 30
TILE = 16  # the reference's BLOCK_K
MARGIN = 0.25  # both kinds must stay this far from the bound


def one_rounding(x, wg, wv, bg, bv):
    """The reference: exact 16-bit products summed in float32, the epilogue in float32, one rounding."""
    g = x.float() @ wg.float().T + bg.float()
    v = x.float() @ wv.float().T + bv.float()
    return (F.silu(g) * v).to(x.dtype)


def sums_in_16bit(x, wg, wv, bg, bv):
    """Each K tile's float32 dot product rounded into a 16-bit running sum, then the epilogue in float32."""
    def running(w):
        acc = torch.zeros(x.shape[0], w.shape[0], dtype=x.dtype)
        for k in range(0, x.shape[1], TILE):
            acc = (acc.float() + x[:, k:k + TILE].float() @ w[:, k:k + TILE].float().T).to(x.dtype)
        return acc.float()

    return (F.silu(running(wg) + bg.float()) * (running(wv) + bv.float())).to(x.dtype)


def ratios(dtype) -> tuple[list[float], list[float]]:
    fused, sixteen = [], []
    for seed in range(SEEDS):
        case = inputs(torch.Generator().manual_seed(seed), dtype, hidden=WIDE_HIDDEN)
        args = [case[n] for n in ("x", "gate_weight", "value_weight", "gate_bias", "value_bias")]
        want = formula(case, "silu")
        x, wg, wv, bg, bv = args
        eager = (F.silu(F.linear(x, wg, bg)) * F.linear(x, wv, bv)).double()
        allowed = (eager - want).abs().mean().item()
        fused.append((one_rounding(*args).double() - want).abs().mean().item() / allowed)
        sixteen.append((sums_in_16bit(*args).double() - want).abs().mean().item() / allowed)
    return fused, sixteen


def test_the_16bit_rule_has_room_on_both_sides():
    for dtype in (torch.bfloat16, torch.float16):
        fused, sixteen = ratios(dtype)
        assert max(fused) <= 1 - MARGIN, (dtype, "one rounding", max(fused))
        assert min(sixteen) >= 1 + MARGIN, (dtype, "16-bit sums", min(sixteen))
