"""Graded tests for exercises/triton_gated_mlp.py, the launch code (TODO 2) and the combined weight
(TODO 3): the kernel does the work, on any leading shape, on no tokens, and on both weights in one
tensor read through views, never a copy. Each is judged against what the student's own kernel computes
under the grader's launch code on the same inputs (``expect_from_kernel``), so a right launch of a wrong
kernel keeps its points; it waits only where the two differ and the kernel is wrong too. The data has
WHOLE_K_HIDDEN features: K tails are the kernel's tests' to judge.
Run: ``pytest tests/test_triton_gated_mlp*.py`` (``-m gated``)."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused gated-MLP exercise"
                     " cannot run on macOS or Windows (the other suites do)")

from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.checks import fail  # noqa: E402
from grader.judge.gated_launch import (check_launch, check_launch_float64, expect_follows_stand_in,  # noqa: E402
                                expect_from_kernel, expect_launch_works, launch_grid)
from grader.judge.gated_support import (bounds_mode, expect_kernel_responds,  # noqa: E402
                                        expect_kernel_takes_weight_strides, INTERMEDIATE, inputs, KERNEL, project,
                                        WHOLE_K_HIDDEN)

pytestmark = pytest.mark.gated



@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection runs"), alone=True)
def test_kernel_does_the_work(target, kernels, gen):
    evidence = check_launch(target, kernels, gen)
    check_launch_float64(target, gen)
    # What the process reports of its launches can only cost a point: the stand-in above decided the rest.
    if evidence["kernels"] != [KERNEL] or evidence["foreign_kernels"]:
        fail(f"gated_projection launched {evidence['kernels'] or 'none'} of this file's kernels and"
             f" {evidence['foreign_kernels'] or 'no'} others: the whole projection is one launch of {KERNEL}"
             " (TODO 2), with no PyTorch matmul around it")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["contiguous", "sequence_first"])
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection on a 3-d x"), alone=True)
def test_forward_3d_input(target, kernels, gen, layout):
    """A (2, 15, hidden) x, contiguous or a (15, 2, hidden) tensor's .transpose(0, 1): attention hands such
    views on, whose leading dimensions no .view can merge."""
    case = inputs(gen, tokens=2 * 3 * 5, hidden=WHOLE_K_HIDDEN)
    case["x"] = case["x"].reshape(2, 15, WHOLE_K_HIDDEN)
    flat = {**case, "x": case["x"].reshape(-1, WHOLE_K_HIDDEN)}
    what = f"gated_projection on x of shape (2, 15, {WHOLE_K_HIDDEN})" + (
        ", a (15, 2, ...) tensor's .transpose(0, 1)" if layout == "sequence_first" else "")
    evidence = project(target, case, "silu", layout=layout, bounds=bounds_mode(kernels))
    got = evidence["out"]
    if tuple(got.shape) != (2, 15, INTERMEDIATE):
        fail(f"{what}: shape {tuple(got.shape)}, expected (2, 15, {INTERMEDIATE}): reshape the (M, N) result to"
             " x.shape[:-1] + (N,) (TODO 2)", cause="output not reshaped to x's leading dimensions", todo="TODO 2")
    expect_from_kernel(got.reshape(-1, INTERMEDIATE), flat, "silu", kernels, f"{what} (TODO 2)",
                       grid=launch_grid(evidence))
    expect_follows_stand_in(target, case, "silu", "gated_projection on a 3-d x", "TODO 2", gen)


@pytest.mark.points(1)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection runs"), alone=True)
def test_no_tokens(target, kernels, gen):
    case = inputs(gen, tokens=0, hidden=WHOLE_K_HIDDEN)
    got = project(target, case, "silu", bounds=bounds_mode(kernels))["out"]
    if tuple(got.shape) != (0, INTERMEDIATE):
        fail(f"gated_projection on 0 tokens: shape {tuple(got.shape)}, expected (0, {INTERMEDIATE}): allocate"
             " the (M, N) output for M = 0 too, and return it as (..., N) (TODO 2)")


# ------------------------------------------------------------------------- the combined weight

@pytest.mark.points(2)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection_combined runs"), alone=True)
def test_combined_weight(target, kernels, gen):
    case = inputs(gen, hidden=WHOLE_K_HIDDEN)
    evidence = project(target, case, "silu", combined=True, bounds=bounds_mode(kernels))
    expect_from_kernel(evidence["out"], case, "silu", kernels, "gated_projection_combined on one (2 * intermediate,"
                       " hidden) weight (TODO 3)", todo="TODO 3", grid=launch_grid(evidence))
    expect_follows_stand_in(target, case, "silu", "gated_projection_combined", "TODO 3: views of weight and bias,"
                            " then gated_projection", gen, combined=True)


COPY_HINT = ("the kernel reads {copied} from a copy, not from the tensor{s} the caller passed: {how}. The kernel"
             " takes every stride, so nothing needs to be contiguous: a copy (.contiguous(), torch.cat, .clone())"
             " reads and writes the whole weight once more before every launch")


def expect_no_copy(evidence: dict, what: str, how: str, todo: str) -> None:
    if evidence["copied"]:
        copied = " and ".join(evidence["copied"])
        fail(f"{what}: " + COPY_HINT.format(copied=copied, s="s" if len(evidence["copied"]) > 1 else "", how=how)
             + f" ({todo})", cause="weights copied", todo=todo)


def expect_projection_takes_strided_weights(target, kernels, case: dict) -> None:
    """gated_projection alone, on the same non-contiguous weights: a mistake there is TODO 2's, not TODO 3's."""
    evidence = project(target, case, "silu", weight_layout="transposed", bounds=bounds_mode(kernels))
    expect_from_kernel(evidence["out"], case, "silu", kernels, "gated_projection on transposed weights (TODO 2: pass"
                       " the weights to _launch_gated_kernel as they are, with their strides)", grid=launch_grid(evidence))
    expect_no_copy(evidence, "gated_projection on transposed weights", "pass gate_weight and value_weight with their"
                   " strides as they are", "TODO 2")


def combined_views_premise(arguments: dict) -> None:
    """The launch works, and the kernel reads transposed weights: each failing premise charged by its own test."""
    what = "gated_projection_combined on a non-contiguous weight"
    expect_launch_works(arguments["target"], arguments["kernels"], what)
    expect_kernel_takes_weight_strides(arguments["kernels"], what)


@pytest.mark.points(1)
@rests_on(combined_views_premise, alone=True)
def test_combined_weight_not_copied(target, kernels, gen):
    """The combined weight a transposed tensor's .T (its bias contiguous: the kernel takes no bias stride): the halves are views
    of them, offsets and strides, and the kernel gets those views, not copies."""
    case = inputs(gen, hidden=WHOLE_K_HIDDEN)
    evidence = project(target, case, "silu", combined=True, weight_layout="transposed", bounds=bounds_mode(kernels))
    failure = None
    try:
        expect_from_kernel(evidence["out"], case, "silu", kernels, "gated_projection_combined on a non-contiguous"
                           " weight (TODO 3)", todo="TODO 3", grid=launch_grid(evidence))
        expect_no_copy(evidence, "gated_projection_combined", "the gate's weight is weight[:intermediate], the"
                       " value's weight[intermediate:] (the same for bias), views passed to gated_projection"
                       " as they are", "TODO 3")
    except pytest.fail.Exception as caught:
        failure = caught
    if failure is not None:  # told outside the except: one message, not two chained
        expect_projection_takes_strided_weights(target, kernels, case)
        raise failure

