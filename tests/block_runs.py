"""Running a block (MLP, GLU, FusedSwiGLU) on weights and inputs the test picks: the sizes the suites
share and ``run``, which the MLP suite and the fused block's tests both call."""

from __future__ import annotations

import re

import torch

from tests.checks import Block, explain_error, fail, random_weights
from tests.seam import error_fields, format_error

HIDDEN, INTERMEDIATE = 8, 12  # different, so a transposed layer cannot go unnoticed
CTOR = {"hidden_dim": HIDDEN, "intermediate_dim": INTERMEDIATE}
DROPOUT_SHAPE = (64, 32, HIDDEN)  # 16k outputs: the share of zeros is known to within a few 0.01
P = 0.3  # the dropout rate of the training-mode tests


def run(target, block: Block, gen, shape=(2, 3, HIDDEN), activation=None, dropout=None, train=False,
        dtype=torch.float64, backward=False, device="cpu", weights=None, x=None, grad_out=None, **extra):
    """Run ``block`` with test-picked weights and input; returns (evidence, weights, x, ctor)."""
    ctor = dict(CTOR, activation=activation, dropout=dropout)
    weights = weights if weights is not None else random_weights(block, HIDDEN, INTERMEDIATE, gen)
    x = x if x is not None else (torch.randn(shape, generator=gen, dtype=torch.float64) * 1.5).to(dtype)
    if backward and grad_out is None:
        grad_out = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(dtype)
    # The code under test gets its own copies: in-process, an in-place x += ... would otherwise
    # change the input the reference is then run on, and the comparison would show garbage.
    def attempt(state_dict):
        return target.evidence(block.exercise, "run_block", cls_name=block.name, ctor=ctor, state_dict=state_dict,
                               x=x.clone(), train=train, grad_out=None if grad_out is None else grad_out.clone(),
                               device=device, **extra)
    evidence = attempt(weights)
    absent = absent_biases(evidence.get("error"))
    if absent:
        # A block built with bias=False cannot load the test's biases. Run it with the rest of the
        # weights: its output is then the block's without biases, a mistake the tests name, and the
        # properties a missing bias does not touch (shapes, dtype, dropout) are still judged.
        evidence = attempt({k: v for k, v in weights.items() if k not in absent})
    if "error" in evidence:
        hint = explain_error(block, evidence["error"])
        fail(format_error(evidence["error"]) + (f"; {hint}" if hint else ""), **error_fields(evidence["error"]))
    evidence["grad_out"] = grad_out
    return evidence, weights, x, ctor


def absent_biases(error: dict | None) -> set[str]:
    """The bias keys a block without biases refused in load_state_dict; empty for any other error.

    Read from the error message, which the code under test could write: at worst that runs it
    without some biases, whose output then has to be one the tests compute themselves.
    """
    if not error or not error.get("stage", "").endswith(".load_state_dict"):
        return set()
    message = error.get("message", "")
    if "Missing key" in message or "size mismatch" in message:
        return set()
    unexpected = set(re.findall(r'"([A-Za-z_]\w*\.bias)"', message.partition("Unexpected key(s)")[2]))
    return unexpected
