"""The MLP suite's dropout runs: a block's output with dropout, judged against its own output without it
(``tests/test_mlp.py``'s dropout tests), so that a mistake elsewhere in forward costs the parity tests and
not these."""

from __future__ import annotations

import torch

from grader.judge.block_evidence import output_explained, structure_fault
from grader.judge.block_runs import DROPOUT_SHAPE, P, forward_where, run
from grader.judge.checks import fail, float32_close


def dropout_run(target, reference, block, gen, device, dropout=P, train=True):
    """The block's output with ``dropout`` in training (or eval) mode, and its own output without dropout.

    A block that adds its input (x + dropout(Wo(...))) is judged on what it adds to x: the residual is
    test_parity_with_reference's to charge, and the dropout inside may still be right.
    """
    got, weights, x, _ = run(target, block, gen, shape=DROPOUT_SHAPE, dropout=dropout, train=train, device=device)
    out, clean = got["out"], own_clean_output(target, reference, block, weights, x, device)
    if adds_its_input(reference, block, weights, x, clean):
        out, clean = out - x.to(out.dtype), clean - x.to(clean.dtype)
    return out, clean, weights, x


def adds_its_input(reference, block, weights, x, clean) -> bool:
    """Whether the block's dropout-free output is x plus the reference's output (to float32 precision)."""
    want, *_ = run(reference, block, None, weights=weights, x=x)
    return clean.shape == x.shape and float32_close(clean - x.to(clean.dtype), want["out"])


def own_clean_output(target, reference, block, weights, x, device) -> torch.Tensor:
    """The block's own output with dropout=0.0 in eval mode: what its dropout is judged against, so that a
    mistake elsewhere in forward costs the parity tests and not these.

    The block must still compute like a block (see expect_block_output); a placeholder forward (zeros,
    x itself) would otherwise pass every dropout test.
    """
    clean = own_output(target, block, weights, x, device, dropout=0.0)
    fault = structure_fault(target, block)
    if not fault or output_explained(reference, block, weights, x, clean):
        return clean
    fail(f"{forward_where(target, block)}: dropout is judged against the block's own output with dropout=0.0,"
         f" and the block does not compute like one yet ({fault}). This test counts once"
         f" test_parity_with_reference[default-{block.name}] passes",
         waits_on=f"test_parity_with_reference[default-{block.name}]")


def own_output(target, block, weights, x, device, dropout, train=False) -> torch.Tensor:
    """The output of the code under test itself, with these weights and input."""
    evidence, *_ = run(target, block, None, weights=weights, x=x, dropout=dropout, train=train, device=device)
    return evidence["out"]
