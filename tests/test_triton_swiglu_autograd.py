"""Graded tests for exercises/triton_swiglu.py, the autograd wiring (TODO 3-5): gradients through
``swiglu``, gradcheck in float64, and the arguments refused by name. Each counts once the kernels
compute (``test_forward_float32`` and ``test_backward_float32`` in ``test_triton_swiglu.py``): until
then it says which of those to fix first. Run: ``pytest -m swiglu``."""

from __future__ import annotations


import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402

from grader.probes import stand_in_backward, stand_in_forward  # noqa: E402
from grader.judge.checks import expect_rounded, expect_shape, fail, rounding_errors  # noqa: E402
from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.seam import error_fields, format_error  # noqa: E402
from grader.kernels import maps as kernel_map  # noqa: E402
from grader.judge.swiglu_diagnosis import (KERNEL_INPUTS, bounds_mode, computes_float64_in_float32,  # noqa: E402
                                    autograd_verdict, expect_swiglu_works, kernel_verdict)
from grader.judge.swiglu_support import (backward_budgets, backward_formula, draw, EXERCISE,  # noqa: E402
                                  expect_stand_in_followed,
                                  follows, GATE_SCALE, roughly, stand_in_coefficients, unwritten_hint)

pytestmark = pytest.mark.swiglu

KERNELS = ("forward", "backward")  # both kernels run under swiglu's autograd




# ---------------------------------------------------------------------------- autograd wiring

def check_autograd(target, evidence: dict, grad_out, gate, value, swapped: tuple[dict, dict], kernels=None,
                   device: str = "cpu") -> None:
    """``swapped``: (coefficients, evidence) of the same call with the kernels replaced by stand-ins;
    ``kernels``: the kernel tests' target, to tell a wrong kernel from wrong wiring."""
    here = target.where(EXERCISE)
    if not evidence["requires_grad"]:
        fail(f"swiglu(gate, value) returned a tensor that does not require grad although gate and value do:"
             f" swiglu must return SwiGLUFunction.apply(gate, value) (TODO 5 in {here})")
    if "SwiGLUFunction" not in (evidence["grad_fn"] or ""):
        fail(f"the output of swiglu was made by {evidence['grad_fn']}, not by SwiGLUFunction: return"
             f" SwiGLUFunction.apply(gate, value) (TODO 5 in {here}) so autograd runs your backward kernel")
    coefficients, got = swapped
    expect_stand_in_followed(target, follows(got["out"], stand_in_forward(gate, value, coefficients["forward"])),
                             "forward", "swiglu", coefficients,
                             f"SwiGLUFunction.forward calls swiglu_forward: TODO 3 in {here}")
    # Gate and value in, gradients out, each in either order: the order is judged on the real gradients below.
    ok = any(follows(got["grad_gate"], first) and follows(got["grad_value"], second)
             for inputs in ((gate, value), (value, gate))
             for grads in [stand_in_backward(grad_out, *inputs, coefficients["backward"])]
             for first, second in (grads, grads[::-1]))
    expect_stand_in_followed(target, ok, "backward", "backward through swiglu", coefficients,
                             f"SwiGLUFunction.backward calls swiglu_backward: TODO 4 in {here}")
    for name in ("grad_gate", "grad_value"):
        if evidence[name] is None:
            fail(f"no gradient reached {name.removeprefix('grad_')}: SwiGLUFunction.backward returns one gradient"
                 f" per input of forward, (grad_gate, grad_value) (TODO 4 in {here})")
    want_gate, want_value = backward_formula(grad_out, gate, value)
    for name, want, _, tol in backward_budgets(grad_out, gate, value):
        got = evidence[name]
        expect_shape(got.shape, gate.shape, f"the gradient {name} from swiglu(...).backward()")
        hint, cause = "", "unexplained"
        if bool(rounding_errors(got, want, **tol).any()):
            if roughly(evidence["grad_gate"], want_value) and roughly(evidence["grad_value"], want_gate):
                hint = ("the gradients come back swapped: SwiGLUFunction.backward returns them in the order of"
                        f" forward's inputs, (grad_gate, grad_value) (TODO 4 in {here})")
                cause = "gradients returned swapped"
            elif (roughly(evidence["grad_gate"], backward_formula(grad_out, value, gate)[0])
                  and roughly(evidence["grad_value"], backward_formula(grad_out, value, gate)[1])):
                hint = ("swiglu_backward got gate and value swapped: SwiGLUFunction.backward must unpack"
                        " ctx.saved_tensors in the order forward saved them (TODO 3 and TODO 4 in"
                        f" {here})")
                cause = "saved tensors unpacked swapped"
            elif kernels is not None and gate.dtype == torch.float32 and not kernel_verdict(kernels, "backward", device):
                hint = unwritten_hint(got, want) or (
                    "the backward kernel is right on its own (test_backward_float32 passes), so look at the wiring:"
                    " what SwiGLUFunction.forward saves and how backward passes it and grad_out to swiglu_backward"
                    f" (TODO 3 and TODO 4 in {here})")
            else:
                hint = unwritten_hint(got, want) or ("test_backward_float32 and test_backward_16bit check the kernel"
                                                     " alone; fix those first")
        hint += kernel_map.explain(evidence.get("backward_maps"), f"{name}_ptr", KERNEL_INPUTS["backward"], elementwise=True)
        expect_rounded(got, want, f"swiglu: {name} by autograd in {gate.dtype}", hint, cause=cause, **tol)


def autograd_with_stand_ins(target, gen, gate, value, grad_out, device, bounds: str) -> tuple[dict, dict]:
    """The same autograd call with the kernels replaced by stand-ins: (coefficients, evidence)."""
    coefficients = stand_in_coefficients(gen)
    evidence = target.evidence(EXERCISE, "swiglu_autograd", gate=gate, value=value, grad_out=grad_out, device=device,
                               stand_ins=coefficients, bounds=bounds)
    if "error" in evidence:
        fail(f"{format_error(evidence['error'])} (with the kernels replaced by the grader's stand-ins)",
             **error_fields(evidence["error"]))
    return coefficients, evidence




@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'],
                                        f"swiglu's gradients by autograd in {a['dtype']}"))
def test_autograd_gradients(target, kernels, gen, dtype, device):
    shape = (3, 5, 41)
    gate, value, grad_out = draw(gen, shape, dtype, GATE_SCALE), draw(gen, shape, dtype), draw(gen, shape, dtype)
    bounds = bounds_mode(kernels, KERNELS, device)
    evidence = target.probe(EXERCISE, "swiglu_autograd", gate=gate, value=value, grad_out=grad_out, device=device,
                            bounds=bounds)
    check_autograd(target, evidence, grad_out, gate, value,
                   autograd_with_stand_ins(target, gen, gate, value, grad_out, device, bounds), kernels, device)


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "swiglu's gradients for out.sum().backward()"))
def test_autograd_sum_backward(target, kernels, gen, device):
    # out.sum().backward() hands the backward a grad_out of ones with every stride 0.
    shape = (4, 7, 19)
    gate, value = draw(gen, shape, torch.float32, GATE_SCALE), draw(gen, shape, torch.float32)
    bounds = bounds_mode(kernels, KERNELS, device)
    evidence = target.probe(EXERCISE, "swiglu_autograd", gate=gate, value=value, device=device, bounds=bounds)
    check_autograd(target, evidence, torch.ones(shape), gate, value,
                   autograd_with_stand_ins(target, gen, gate, value, None, device, bounds), kernels, device)


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "gradcheck of swiglu"))
def test_gradcheck_float64(target, kernels, gen, device):
    gate, value = draw(gen, (3, 7), torch.float64, GATE_SCALE), draw(gen, (3, 7), torch.float64)
    evidence = target.probe(EXERCISE, "swiglu_gradcheck", gate=gate, value=value, device=device,
                            bounds=bounds_mode(kernels, KERNELS, device))
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
