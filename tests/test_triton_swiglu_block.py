"""Graded tests for exercises/triton_swiglu.py, the FusedSwiGLU block (TODO 6-7): its layers, its output
and gradients against the GLU with SiLU, its dtype, its use of the kernels, and its dropout. Its use of the
kernels is judged with the grader's stand-ins in their place, whatever they compute; the others run the real
kernels and count once those compute (``test_triton_swiglu.py``). Run: ``pytest -m swiglu``."""

from __future__ import annotations

import math

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402

from grader.probes import stand_in_backward, stand_in_forward  # noqa: E402
from grader.judge.block_runs import DROPOUT_SHAPE, HIDDEN, INTERMEDIATE, P, run  # noqa: E402
from grader.judge.checks import BLOCKS, expect_close, expect_shape, fail, is_close  # noqa: E402
from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.swiglu_diagnosis import (computes_float64_in_float32, expect_autograd_works,  # noqa: E402
                                           expect_launches_follow_stand_ins, expect_swiglu_works)
from grader.judge.stand_in_log import BACKWARD, FORWARD, input_tolerance, served_on, shown  # noqa: E402
from grader.judge.swiglu_support import EXERCISE, expect_stand_in_followed, FUSED  # noqa: E402

pytestmark = pytest.mark.swiglu




# --------------------------------------------------------------------------- the FusedSwiGLU block

CTOR = {"hidden_dim": HIDDEN, "intermediate_dim": INTERMEDIATE}


def fused_where(target, method: str, todo: str) -> str:
    return f"FusedSwiGLU.{method} ({todo} in {target.where(EXERCISE)})"


@pytest.mark.points(1)
def test_fused_layers(target):
    described = target.probe(EXERCISE, "describe_block", cls_name="FusedSwiGLU", ctor=CTOR)
    want = FUSED.layer_shapes(HIDDEN, INTERMEDIATE)
    if described["param_shapes"] != want:
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: parameters {described['param_shapes']}, expected"
             f" {want}: Wv and Wg map hidden_dim -> intermediate_dim, Wo maps back, all nn.Linear with bias")
    if list(described["state_dict_keys"]) != list(want) and sorted(described["state_dict_keys"]) != sorted(want):
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: state_dict keys {described['state_dict_keys']},"
             f" expected {list(want)}")


FLOAT64_HINT = ("off by about float32 precision: float64 tensors must be computed in float64 (COMPUTE_DTYPE is"
                " tl.float64 for them), not in a hard-coded tl.float32; test_gradcheck_float64 checks swiglu alone")


def float64_hint(kernels, device: str, got: torch.Tensor, want: torch.Tensor, hint: str) -> str:
    """``hint``, unless a float64 result is off by what computing in float32 loses: then that. Where the
    kernels themselves compute float64 in float32, that one cause is test_gradcheck_float64's to tell,
    and this test waits on it instead of charging the block a second time."""
    if got.dtype == torch.float64 and is_close(got, want, 1e-5, 1e-5) and not is_close(got, want, 1e-9, 1e-10):
        if computes_float64_in_float32(kernels, device):
            fail("FusedSwiGLU's float64 result is off by about float32 precision because your kernels compute"
                 " float64 in float32: this counts once test_gradcheck_float64 passes, which says what to change",
                 cause="kernels compute float64 in float32", waits_on="test_gradcheck_float64", todo="TODO 1")
        return FLOAT64_HINT
    return hint


def glu_reference(reference, gen, weights, x, **kwargs) -> dict:
    """The exercise's GLU with activation_fn=nn.SiLU, from the reference, on the same weights."""
    evidence, *_ = run(reference, BLOCKS["GLU"], gen, weights=weights, x=x, activation="silu", **kwargs)
    return evidence


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype,shape", [(torch.float64, (2, 3, 4, HIDDEN)), (torch.float32, (5, 7, HIDDEN))],
                         ids=["float64-4d", "float32-3d"])
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], f"FusedSwiGLU's output in {a['dtype']}"))
def test_fused_matches_glu(target, kernels, reference, gen, dtype, shape, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=shape, dtype=dtype, device=device)
    want = glu_reference(reference, gen, weights, x.double())
    what = f"{fused_where(target, 'forward', 'TODO 7')} against GLU(activation_fn=nn.SiLU) with the same weights"
    out = got["out"]
    expect_shape(out.shape, shape, what, "the block maps (..., hidden_dim) to (..., hidden_dim)")
    if out.dtype != dtype:
        fail(f"{what}: {dtype} input gave {out.dtype} output")
    # float32: the block's matrix products round too; 1e-5 is far below any wrong wiring.
    rtol, atol = (1e-9, 1e-10) if dtype == torch.float64 else (1e-5, 1e-5)
    hint = float64_hint(kernels, device, out, want["out"], "Wo(swiglu(Wg(x), Wv(x))): gate from Wg, value from Wv")
    expect_close(out.double(), want["out"], what, hint, rtol=rtol, atol=atol)


@pytest.mark.points(2)
@rests_on(lambda a: expect_autograd_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's gradients"),
          counts_once=False)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's gradients"))
def test_fused_gradients(target, kernels, reference, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device)
    want = glu_reference(reference, gen, weights, x, backward=True, grad_out=got["grad_out"])
    where = fused_where(target, "forward", "TODO 7")
    if got["grad_x"] is None:
        fail(f"{where}: no gradient reached the input x: swiglu must be differentiable (SwiGLUFunction, TODO 3-5)")
    expect_close(got["grad_x"], want["grad_x"], f"{where}: gradient with respect to the input x",
                 float64_hint(kernels, device, got["grad_x"], want["grad_x"], "test_autograd_gradients checks swiglu's gradients"
                              " on their own"))
    for name, grad in want["grads"].items():
        if got["grads"].get(name) is None:
            fail(f"{where}: no gradient reached {name}")
        expect_close(got["grads"][name], grad, f"{where}: gradient of {name}",
                     float64_hint(kernels, device, got["grads"][name], grad, ""))


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's output dtype"))
def test_fused_dtype_kept(target, kernels, gen, device):
    got, *_ = run(target, FUSED, gen, dtype=torch.bfloat16, device=device)
    if got["out"].dtype != torch.bfloat16:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} turned bfloat16 input (with a bfloat16 block) into"
             f" {got['out'].dtype} output")


@pytest.mark.points(1)
@rests_on(lambda a: expect_autograd_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's use of the kernels"),
          counts_once=False)
@rests_on(lambda a: expect_launches_follow_stand_ins(a["target"], a["device"], "FusedSwiGLU's use of the kernels"),
          counts_once=False)
def test_fused_uses_kernels(target, kernels, gen, device):
    """Judged with both kernels replaced by the grader's stand-ins, whatever the kernels compute: the output
    is Wo of what the forward launch was served on (Wg(x), Wv(x)), and x's gradient what the backward launch
    was served on the gradient reaching swiglu. Which of Wg and Wv is the gate, and the order of the saved
    tensors and of the gradients, are test_fused_matches_glu's and test_autograd_gradients' to judge."""
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device, stand_ins=True)
    where = fused_where(target, "forward", "TODO 7")
    tolerance = input_tolerance(x.dtype)
    w = {k: v.double() for k, v in weights.items()}
    matched = None
    for gate_from, value_from in (("Wg", "Wv"), ("Wv", "Wg")):
        gate, value = (x.double() @ w[f"{name}.weight"].T + w[f"{name}.bias"] for name in (gate_from, value_from))
        for c in served_on(got, FORWARD, tolerance, gate=gate, value=value):
            if is_close(got["out"], stand_in_forward(gate, value, c) @ w["Wo.weight"].T + w["Wo.bias"], 1e-9, 1e-10):
                matched = (gate_from, value_from, gate, value)
    expect_stand_in_followed(target, matched is not None, "forward", where, shown(got, FORWARD),
                             f"call swiglu(Wg(x), Wv(x)): TODO 7 in {target.where(EXERCISE)}")
    if got["grad_x"] is None:  # no gradient at all: test_fused_gradients says so
        return
    gate_from, value_from, gate, value = matched
    grad_hidden = got["grad_out"].double() @ w["Wo.weight"]
    grads_x = [first @ w[f"{gate_from}.weight"] + second @ w[f"{value_from}.weight"]
               for saved in ((gate, value), (value, gate))
               for c in served_on(got, BACKWARD, tolerance, grad_out=grad_hidden, gate=saved[0], value=saved[1])
               for grads in [stand_in_backward(grad_hidden, *saved, c)]
               for first, second in (grads, grads[::-1])]
    expect_stand_in_followed(target, any(is_close(got["grad_x"], g, 1e-9, 1e-10) for g in grads_x), "backward",
                             "FusedSwiGLU's backward pass", shown(got, BACKWARD), "through swiglu and SwiGLUFunction")


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's output without dropout"))
def test_fused_dropout_off_unless_training(target, kernels, reference, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=False, device=device)
    clean = own_clean_output(target, reference, gen, weights, x, device)
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in eval mode with dropout={P}, against"
                 " its own output with dropout=0.0", "dropout does nothing in eval mode: apply the nn.Dropout made in"
                 " __init__ (TODO 6)")
    got, *_ = run(target, FUSED, gen, dropout=0.0, train=True, weights=weights, x=x, device=device)
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in training mode with dropout=0.0,"
                 " against its own output in eval mode", "create the dropout module with the rate `dropout`:"
                 " nn.Dropout(dropout) (TODO 6)")


def own_clean_output(target, reference, gen, weights, x, device) -> torch.Tensor:
    """FusedSwiGLU's own output with dropout=0.0 in eval mode: what its dropout is judged against, so that a
    precision the kernels lose (float32 arithmetic on float64 tensors) costs the tests of precision, not
    these. It must still be GLU's output to float32 precision: a block that computes something else (or
    nothing) waits on test_fused_matches_glu."""
    got, *_ = run(target, FUSED, gen, dropout=0.0, train=False, weights=weights, x=x, device=device)
    want = glu_reference(reference, gen, weights, x)["out"]
    if got["out"].shape != want.shape or not is_close(got["out"].double(), want, 1e-5, 1e-5):
        fail(f"{fused_where(target, 'forward', 'TODO 7')}: dropout is judged against the block's own output with"
             " dropout=0.0, and that is not GLU's output yet: this counts once test_fused_matches_glu passes",
             waits_on="test_fused_matches_glu[float64-4d]", todo="TODO 7")
    return got["out"]


def fused_dropout(target, reference, gen, device) -> tuple[torch.Tensor, torch.Tensor]:
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=True, device=device)
    return got["out"], own_clean_output(target, reference, gen, weights, x, device)


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's dropout"))
def test_fused_dropout_share_of_zeros(target, kernels, reference, gen, device):
    out, clean = fused_dropout(target, reference, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    share = (out == 0).double().mean().item()
    bound = 6 * math.sqrt(P * (1 - P) / out.numel())  # six standard deviations, as in test_mlp
    if abs(share - P) > bound:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} in training mode: {share:.3f} of the"
             f" outputs are exactly zero, expected {P} +- {bound:.3f}: dropout(Wo(...)) is the last step, with"
             " rate `dropout` passed unchanged to nn.Dropout (TODO 6)")


@pytest.mark.points(1)
@rests_on(lambda a: expect_swiglu_works(a['target'], a['kernels'], a['device'], "FusedSwiGLU's dropout scaling"))
def test_fused_dropout_kept_scaled(target, kernels, reference, gen, device):
    out, clean = fused_dropout(target, reference, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    kept = out != 0
    if bool(kept.all()):
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} dropped no outputs in training mode, so"
             " which outputs it kept cannot be told: this counts once test_fused_dropout_share_of_zeros passes, which"
             " says why", waits_on="test_fused_dropout_share_of_zeros", todo="TODO 7")
    expect_close(out[kept], clean[kept] / (1 - P),
                 f"{fused_where(target, 'forward', 'TODO 7')}: kept outputs in training mode with dropout={P}, against"
                 " its own output with dropout=0.0", "each kept output equals the eval-mode output divided by (1 - p):"
                 " is dropout the last step?")
