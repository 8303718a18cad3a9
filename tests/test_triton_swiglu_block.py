"""Graded tests for exercises/triton_swiglu.py, the FusedSwiGLU block (TODO 6-7): its layers, its output
and gradients against the GLU with SiLU, its dtype, its use of swiglu, and its dropout. They judge the
block's own code with swiglu replaced by the grader's (``grader/judge/swiglu_block.py``), so they keep their
points whatever the kernels and the autograd wiring compute, and count once the block gets its result from
swiglu (``test_fused_calls_swiglu``). Run: ``pytest -m swiglu``."""

from __future__ import annotations

import math

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402

from grader.judge.block_runs import DROPOUT_SHAPE, HIDDEN, INTERMEDIATE, P, layers_cause, run  # noqa: E402
from grader.judge.checks import expect_close, expect_shape, fail, is_close  # noqa: E402
from grader.judge.mlp_blocks import BLOCKS  # noqa: E402
from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.swiglu_block import (check_block_calls_swiglu, expect_biases,  # noqa: E402
                                       expect_block_calls_swiglu, expect_paths_not_swapped)
from grader.judge.swiglu_support import EXERCISE, FUSED  # noqa: E402

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
        expect_biases(target)
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: parameters {described['param_shapes']}, expected"
             f" {want}: Wv and Wg map hidden_dim -> intermediate_dim, Wo maps back, all nn.Linear with bias",
             cause=layers_cause(described["param_shapes"], want), todo="TODO 6")
    if list(described["state_dict_keys"]) != list(want) and sorted(described["state_dict_keys"]) != sorted(want):
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: state_dict keys {described['state_dict_keys']},"
             f" expected {list(want)}")


# The block's own code is judged with swiglu replaced by SwiGLU computed in PyTorch (exact, in float64).
EXACT = {"stand_in_function": "exact"}


def calls_swiglu(what: str):
    return rests_on(lambda a: expect_block_calls_swiglu(a["target"], a["device"], what.format(**a)))


def glu_reference(reference, gen, weights, x, **kwargs) -> dict:
    """The exercise's GLU with activation_fn=nn.SiLU, from the reference, on the same weights."""
    evidence, *_ = run(reference, BLOCKS["GLU"], gen, weights=weights, x=x, activation="silu", **kwargs)
    return evidence


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype,shape", [(torch.float64, (2, 3, 4, HIDDEN)), (torch.float32, (5, 7, HIDDEN))],
                         ids=["float64-4d", "float32-3d"])
@calls_swiglu("FusedSwiGLU's output in {dtype}")
def test_fused_matches_glu(target, reference, gen, dtype, shape, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=shape, dtype=dtype, device=device, **EXACT)
    want = glu_reference(reference, gen, weights, x.double())
    what = f"{fused_where(target, 'forward', 'TODO 7')} against GLU(activation_fn=nn.SiLU) with the same weights"
    out = got["out"]
    expect_shape(out.shape, shape, what, "the block maps (..., hidden_dim) to (..., hidden_dim)")
    if out.dtype != dtype:
        fail(f"{what}: {dtype} input gave {out.dtype} output")
    # float32: the block's matrix products round too; 1e-5 is far below any wrong wiring.
    rtol, atol = (1e-9, 1e-10) if dtype == torch.float64 else (1e-5, 1e-5)
    if not is_close(out.double(), want["out"], rtol, atol):
        expect_paths_not_swapped(out, weights, x, what, rtol, atol)
        expect_biases(target, "; without them its output is not GLU(activation_fn=nn.SiLU)'s")
    hint = "Wo(swiglu(Wg(x), Wv(x))): gate from Wg, value from Wv"
    expect_close(out.double(), want["out"], what, hint, rtol=rtol, atol=atol)


@pytest.mark.points(2)
@calls_swiglu("FusedSwiGLU's gradients")
def test_fused_gradients(target, reference, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device, **EXACT)
    want = glu_reference(reference, gen, weights, x, backward=True, grad_out=got["grad_out"])
    where = fused_where(target, "forward", "TODO 7")
    if not is_close(got["out"], want["out"], 1e-9, 1e-10):
        expect_paths_not_swapped(got["out"], weights, x, where, 1e-9, 1e-10)
        expect_biases(target, "; without them its output and gradients are not GLU(activation_fn=nn.SiLU)'s")
    if got["grad_x"] is None:
        fail(f"{where}: no gradient reached the input x (with swiglu replaced by SwiGLU in PyTorch): the block"
             " must not cut the graph (.detach(), torch.no_grad())", todo="TODO 7")
    expect_close(got["grad_x"], want["grad_x"], f"{where}: gradient with respect to the input x",
                 "the gradient flows through Wo, swiglu and both of Wg and Wv")
    for name, grad in want["grads"].items():
        if got["grads"].get(name) is None:
            fail(f"{where}: no gradient reached {name}")
        expect_close(got["grads"][name], grad, f"{where}: gradient of {name}",
                     "the gradient flows through Wo, swiglu and both of Wg and Wv")


@pytest.mark.points(1)
@calls_swiglu("FusedSwiGLU's output dtype")
def test_fused_dtype_kept(target, gen, device):
    got, *_ = run(target, FUSED, gen, dtype=torch.bfloat16, device=device, **EXACT)
    if got["out"].dtype != torch.bfloat16:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} turned bfloat16 input (with a bfloat16 block) into"
             f" {got['out'].dtype} output")


@pytest.mark.points(1)
def test_fused_calls_swiglu(target, gen, device):
    """The block gets its result from swiglu (TODO 7), which launches the kernels (judged by their own tests):
    with swiglu replaced by a stand-in of the grader's, the output follows it (check_block_calls_swiglu)."""
    check_block_calls_swiglu(target, gen, device)


@pytest.mark.points(1)
@calls_swiglu("FusedSwiGLU's output without dropout")
def test_fused_dropout_off_unless_training(target, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=False, device=device, **EXACT)
    clean = own_clean_output(target, gen, weights, x, device)
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in eval mode with dropout={P}",
                 "dropout does nothing in eval mode: apply the nn.Dropout made in __init__ (TODO 6)",
                 against="its own output with dropout=0.0")
    got, *_ = run(target, FUSED, gen, dropout=0.0, train=True, weights=weights, x=x, device=device, **EXACT)
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in training mode with dropout=0.0",
                 "create the dropout module with the rate `dropout`: nn.Dropout(dropout) (TODO 6)",
                 against="its own output in eval mode")


def own_clean_output(target, gen, weights, x, device) -> torch.Tensor:
    """FusedSwiGLU's own output with dropout=0.0 in eval mode: what its dropout is judged against, whatever
    else is wrong with the block (its formula is test_fused_matches_glu's). A placeholder earns nothing
    here: these tests count once the block gets its result from swiglu (calls_swiglu)."""
    got, *_ = run(target, FUSED, gen, dropout=0.0, train=False, weights=weights, x=x, device=device, **EXACT)
    return got["out"]


def fused_dropout(target, gen, device) -> tuple[torch.Tensor, torch.Tensor]:
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=True, device=device, **EXACT)
    return got["out"], own_clean_output(target, gen, weights, x, device)


@pytest.mark.points(1)
@calls_swiglu("FusedSwiGLU's dropout")
def test_fused_dropout_share_of_zeros(target, gen, device):
    out, clean = fused_dropout(target, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    share = (out == 0).double().mean().item()
    bound = 6 * math.sqrt(P * (1 - P) / out.numel())  # six standard deviations, as in test_mlp
    if abs(share - P) > bound:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} in training mode: {share:.3f} of the"
             f" outputs are exactly zero, expected {P} +- {bound:.3f}: dropout(Wo(...)) is the last step, with"
             " rate `dropout` passed unchanged to nn.Dropout (TODO 6)")


@pytest.mark.points(1)
@calls_swiglu("FusedSwiGLU's dropout scaling")
def test_fused_dropout_kept_scaled(target, gen, device):
    out, clean = fused_dropout(target, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    kept = out != 0
    if bool(kept.all()):
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} dropped no outputs in training mode, so"
             " which outputs it kept cannot be told: this counts once test_fused_dropout_share_of_zeros passes, which"
             " says why", waits_on="test_fused_dropout_share_of_zeros", todo="TODO 7")
    expect_close(out[kept], clean[kept] / (1 - P),
                 f"{fused_where(target, 'forward', 'TODO 7')}: kept outputs in training mode with dropout={P}",
                 "each kept output equals the eval-mode output divided by (1 - p): is dropout the last step?",
                 against="its own output with dropout=0.0, divided by (1 - p)")
