"""Graded tests for exercises/triton_swiglu.py, the autograd wiring (TODO 3-5): gradients through
``swiglu``, gradcheck in float64, and the arguments refused by name. The wiring is judged with the
kernels replaced by the grader's stand-ins, so it keeps its points whatever the kernels compute; gradcheck
runs the real kernels and counts once they compute (``test_forward_float32`` and ``test_backward_float32``
in ``test_triton_swiglu.py``): until then it says which of those to fix first. Run: ``pytest -m swiglu``."""

from __future__ import annotations


import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402

from grader.judge.checks import fail  # noqa: E402
from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.seam import error_fields, format_error  # noqa: E402
from grader.judge.swiglu_diagnosis import bounds_mode, computes_float64_in_float32, expect_swiglu_works, kernel_verdict  # noqa: E402
from grader.judge.swiglu_wiring import (autograd_verdict, autograd_with_stand_ins, check_autograd_wiring,  # noqa: E402
                                        expect_launches_follow_stand_ins)
from grader.judge.swiglu_support import draw, EXERCISE, GATE_SCALE  # noqa: E402

pytestmark = pytest.mark.swiglu

KERNELS = ("forward", "backward")  # both kernels run under swiglu's autograd


# ---------------------------------------------------------------------------- autograd wiring
# Judged with both kernels replaced by the grader's stand-ins (check_autograd_wiring), so it keeps its points
# whatever the kernels compute, and earns none where swiglu never launches them.

@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@rests_on(lambda a: expect_launches_follow_stand_ins(a["target"], a["device"], f"swiglu's gradients in {a['dtype']}"),
          counts_once=False)
def test_autograd_gradients(target, gen, dtype, device):
    shape = (3, 5, 41)
    gate, value, grad_out = draw(gen, shape, dtype, GATE_SCALE), draw(gen, shape, dtype), draw(gen, shape, dtype)
    check_autograd_wiring(target, autograd_with_stand_ins(target, gate, value, grad_out, device), grad_out, gate, value)


@pytest.mark.points(1)
@rests_on(lambda a: expect_launches_follow_stand_ins(a["target"], a["device"], "swiglu's gradients for out.sum()"),
          counts_once=False)
def test_autograd_sum_backward(target, gen, device):
    # out.sum().backward() hands the backward a grad_out of ones with every stride 0.
    shape = (4, 7, 19)
    gate, value = draw(gen, shape, torch.float32, GATE_SCALE), draw(gen, shape, torch.float32)
    check_autograd_wiring(target, autograd_with_stand_ins(target, gate, value, None, device), torch.ones(shape),
                          gate, value)


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "gradcheck of swiglu"))
def test_gradcheck_float64(target, kernels, gen, device):
    gate, value = draw(gen, (3, 7), torch.float64, GATE_SCALE), draw(gen, (3, 7), torch.float64)
    evidence = target.evidence(EXERCISE, "swiglu_gradcheck", gate=gate, value=value, device=device,
                               bounds=bounds_mode(kernels, KERNELS, device))
    if "error" in evidence:
        if evidence["error"].get("type") != "NotImplementedError" and autograd_verdict(target, kernels, device):
            # swiglu cannot run forward and backward at all (save_for_backward given a list, say): the error
            # test_autograd_gradients already names, one cause, not this test's own.
            fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 could not run:"
                 f" {format_error(evidence['error'])}. This counts once test_autograd_gradients[float32] passes",
                 waits_on="test_autograd_gradients[float32]", todo="TODO 3-5")
        fail(format_error(evidence["error"]), **error_fields(evidence["error"]))
    if not evidence["passed"]:
        # "Jacobian mismatch for output 0 with respect to input 0, numerical:tensor(...)": keep the words
        said = evidence["message"].split(", numerical")[0].split(". ")[0][:200]
        said = said.replace("input 0", "input 0 (gate)").replace("input 1", "input 1 (value)")
        if "not reentrant" in evidence["message"]:
            fail("torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: a second backward with the same"
                 " gate, value and grad_out gave other gradients, so the first one changed what the second reads:"
                 " swiglu_backward must leave gate and value as they are and write the gradients into new tensors"
                 " (test_inputs_unmodified says which input changed)", cause="backward: inputs overwritten", todo="TODO 2")
        if computes_float64_in_float32(kernels, device):
            fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}. Your kernels compute"
                 " float64 tensors (or part of them: a gate or a sigmoid in tl.float32) in float32: their float64"
                 " results are off by float32 roundings, and finite differences in float64 need float64 arithmetic:"
                 " convert everything you load with .to(COMPUTE_DTYPE), which is float64 for float64 tensors, never"
                 " to a fixed tl.float32 (TODO 1 and TODO 2)", cause="kernels compute float64 in float32", todo="TODO 1")
        if not kernel_verdict(kernels, "backward", device) and autograd_verdict(target, kernels, device):
            # The same wiring mistake test_autograd_gradients names (gradients returned swapped, say): one cause.
            fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}. This counts once"
                 " test_autograd_gradients[float32] passes, which says what is wrong with the gradients",
                 waits_on="test_autograd_gradients[float32]", todo="TODO 4")
        if not kernel_verdict(kernels, "backward", device):
            fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}. The backward kernel is"
                 " right on its own (test_backward_float32 passes), so look at the wiring: what"
                 " SwiGLUFunction.forward saves, and how backward hands it to swiglu_backward and returns the"
                 f" gradients (TODO 3 and TODO 4 in {target.where(EXERCISE)})")
        fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}."
             " The backward kernel's gradients (TODO 2, returned by SwiGLUFunction.backward, TODO 4) must match"
             " finite differences of the forward; float64 tensors are computed in COMPUTE_DTYPE (float64)")


BAD_CALLS = [
    ("forward: value's shape differs from gate's", "ValueError", ("gate", "value")),
    ("forward: gate is an integer tensor", "TypeError", ("gate",)),
    ("forward: value is an integer tensor", "TypeError", ("value",)),
    ("backward: grad_out's shape differs from gate's", "ValueError", ("grad_out",)),
    ("backward: grad_out is an integer tensor", "TypeError", ("grad_out",)),
]


@pytest.mark.points(1)
def test_bad_arguments_named(target, kernels, device):
    for case, exception, names in BAD_CALLS:
        evidence = target.probe(EXERCISE, "swiglu_bad_arguments", case=case, device=device,
                                bounds=bounds_mode(kernels, KERNELS, device))
        raised, message = evidence["raised"], evidence["message"]
        if raised != exception or not any(name in message for name in names):
            got = f"{raised}: {message}" if raised else "nothing was raised"
            fail(f"{case}: expected a {exception} naming {' or '.join(names)}, got {got}. Keep the argument"
                 " checks (_check_tensor, _check_same) at the top of swiglu_forward and swiglu_backward")
