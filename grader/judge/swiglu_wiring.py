"""The autograd wiring of the fused SwiGLU exercise (TODO 3-5), judged with both kernels replaced by the
grader's stand-ins (``grader/probes/stand_ins.py``, served by the trusted process), so it keeps its points
whatever the kernels compute, and earns none where swiglu never launches them; and the premise those
tests rest on: the given launch code returns what the kernels write."""

from __future__ import annotations

import torch

from grader.judge.checks import fail
from grader.judge.kernel_target import drawn, session_verdict
from grader.judge.seam import error_fields, format_error
from grader.judge.stand_in_log import BACKWARD as BACKWARD_KERNEL, FORWARD as FORWARD_KERNEL, served_on, shown
from grader.judge.swiglu_support import (draw, EXERCISE, expect_stand_in_followed, follows, FUNCTION, GATE_SCALE,
                                         run_kernels)
from grader.probes import stand_in_backward, stand_in_forward


def stand_in_launch_verdict(target, op: str, device: str) -> str:
    """Why the student's ``op`` function, with its kernel replaced by the grader's stand-in, does not return
    the served values in the inputs' dtype, on bfloat16 halves of h.chunk(2, -1) (the launch code's part of
    test_kernels_launched[OP-chunk-bfloat16]); "" when it does. Whatever the kernels compute. Once per session."""
    def judge() -> str:
        evidence, gate, value, grad_out = run_kernels(target, drawn(f"swiglu stand-in launch {op}"), op, (3, 5, 31),
                                                      torch.bfloat16, "chunk", device=device, stand_ins=True)
        if op == "forward":
            wants = [(stand_in_forward(gate, value, c),)
                     for c in served_on(evidence, FORWARD_KERNEL, gate=gate, value=value)]
        else:
            wants = [stand_in_backward(grad_out, gate, value, c)
                     for c in served_on(evidence, BACKWARD_KERNEL, grad_out=grad_out, gate=gate, value=value)]
        names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
        if any(evidence[n].dtype != gate.dtype for n in names):
            return f"{FUNCTION[op]} turns bfloat16 inputs into {evidence[names[0]].dtype} results"
        if not any(all(follows(evidence[n], w) for n, w in zip(names, want)) for want in wants):
            return f"{FUNCTION[op]} does not return what its kernel writes"
        return ""

    return session_verdict((EXERCISE, id(target), op, device, "stand-in launch"), judge, f"{FUNCTION[op]} failed")


def expect_launches_follow_stand_ins(target, device: str, what: str) -> None:
    """For the tests judged with the stand-ins (the autograd wiring, the block's use of the kernels): the
    launch code returns what the kernels write, in the inputs' dtype (``stand_in_launch_verdict``); where it
    does not, that is test_kernels_launched's to charge, and these wait rather than blame the wiring."""
    for op in ("forward", "backward"):
        verdict = stand_in_launch_verdict(target, op, device)
        if verdict:
            fail(f"{what}: this counts once {FUNCTION[op]} returns what its kernel writes, in the inputs' dtype"
                 f" (test_kernels_launched[{op}-chunk-bfloat16] passes); it does not yet: {verdict}",
                 waits_on=f"test_kernels_launched[{op}-chunk-bfloat16]", cause="launch")


def autograd_with_stand_ins(target, gate, value, grad_out, device: str) -> dict:
    """swiglu's autograd call (out, then backward with ``grad_out``; None: out.sum()) with both kernels
    replaced by the grader's stand-ins: the evidence, with the log of what each launch was served."""
    evidence = target.evidence(EXERCISE, "swiglu_autograd", gate=gate, value=value, grad_out=grad_out, device=device,
                               stand_ins=True)
    if "error" in evidence:
        error = evidence["error"]  # a stub's pointer stays one plain line; anything else says how it ran
        fail(format_error(error) + ("" if error.get("not_implemented") else
                                    " (with the kernels replaced by the grader's stand-ins)"), **error_fields(error))
    return evidence


# One mistake, whichever dtype or call shows it: swiglu's result is not SwiGLUFunction's (swiglu_forward returned
# as it is, or another autograd.Function), so autograd never reaches the backward kernel.
AUTOGRAD_BYPASSED = "swiglu bypasses SwiGLUFunction"


def check_autograd_wiring(target, got: dict, grad_out, gate, value) -> None:
    """swiglu's autograd wiring (TODO 3-5), judged with the kernels replaced by the grader's stand-ins, so
    whatever the kernels compute: out is what the forward launch was served on (gate, value), and the
    gradients what the backward launch was served on (grad_out, gate, value), returned in forward's order."""
    here = target.where(EXERCISE)
    if not got["requires_grad"]:
        fail(f"swiglu(gate, value) returned a tensor that does not require grad although gate and value do:"
             f" swiglu must return SwiGLUFunction.apply(gate, value) (TODO 5 in {here})", cause=AUTOGRAD_BYPASSED,
             todo="TODO 5")
    if "SwiGLUFunction" not in (got["grad_fn"] or ""):
        fail(f"the output of swiglu was made by {got['grad_fn']}, not by SwiGLUFunction: return"
             f" SwiGLUFunction.apply(gate, value) (TODO 5 in {here}) so autograd runs your backward kernel",
             cause=AUTOGRAD_BYPASSED, todo="TODO 5")
    followed = any(follows(got["out"], stand_in_forward(gate, value, c))
                   for c in served_on(got, FORWARD_KERNEL, gate=gate, value=value))
    expect_stand_in_followed(target, followed, "forward", "swiglu", shown(got, FORWARD_KERNEL),
                             f"SwiGLUFunction.forward calls swiglu_forward: TODO 3 in {here}")
    for name in ("grad_gate", "grad_value"):
        if got[name] is None:
            fail(f"no gradient reached {name.removeprefix('grad_')}: SwiGLUFunction.backward returns one gradient"
                 f" per input of forward, (grad_gate, grad_value) (TODO 4 in {here})", todo="TODO 4")
    found = set()  # (the saved tensors swapped, the gradients returned swapped)
    for saved_swapped, (first, second) in ((False, (gate, value)), (True, (value, gate))):
        for c in served_on(got, BACKWARD_KERNEL, grad_out=grad_out, gate=first, value=second):
            grads = stand_in_backward(grad_out, first, second, c)
            found |= {(saved_swapped, returned_swapped) for returned_swapped, (g, v) in ((False, grads), (True, grads[::-1]))
                      if follows(got["grad_gate"], g) and follows(got["grad_value"], v)}
    if (False, False) in found:
        return
    if (False, True) in found:
        fail(f"swiglu's gradients come back swapped: SwiGLUFunction.backward returns them in the order of forward's"
             f" inputs, (grad_gate, grad_value) (TODO 4 in {here})", cause="gradients returned swapped", todo="TODO 4")
    if found:
        fail("swiglu_backward got gate and value swapped: SwiGLUFunction.backward must unpack ctx.saved_tensors in"
             f" the order forward saved them (TODO 3 and TODO 4 in {here})", cause="saved tensors unpacked swapped",
             todo="TODO 4")
    expect_stand_in_followed(target, False, "backward", "backward through swiglu", shown(got, BACKWARD_KERNEL),
                             f"SwiGLUFunction.backward calls swiglu_backward with grad_out and what forward saved:"
                             f" TODO 4 in {here}")


def autograd_verdict(target, kernels, device: str) -> str:
    """Why swiglu's autograd wiring is not right (test_autograd_gradients' property, judged with the
    stand-ins on drawn float32 inputs); "" when it is. Once per session."""
    def judge() -> None:
        data = drawn("swiglu autograd")
        gate, value, grad_out = draw(data, (3, 37), torch.float32, GATE_SCALE), *(draw(data, (3, 37), torch.float32)
                                                                                  for _ in range(2))
        check_autograd_wiring(target, autograd_with_stand_ins(target, gate, value, grad_out, device), grad_out, gate, value)

    return session_verdict((EXERCISE, id(target), "autograd", device), judge, "swiglu's gradients failed")
