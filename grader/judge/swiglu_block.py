"""The FusedSwiGLU block's tests judge the block's own code (TODO 6-7), whatever the student's kernels and
autograd wiring (TODO 1-5) do: the block runs with ``swiglu`` replaced by a function of the grader's
(``grader/probes/stand_ins.py``). Whether the block calls swiglu at all is judged with the served one,
whose values come from the trusted process with coefficients fresh for each call (``check_block_calls_swiglu``);
what it does with swiglu's result (the layers, Wo, dropout, dtype) with the exact one, SwiGLU in PyTorch,
and counts once the block calls swiglu: a block computed in PyTorch alone earns nothing."""

from __future__ import annotations

from typing import Sequence

import torch

from grader.judge.block_runs import missing_cause
from grader.judge.block_runs import layout_of, run
from grader.judge.checks import fail, is_close
from grader.judge.kernel_target import drawn, session_verdict
from grader.judge.stand_in_log import BACKWARD, FORWARD, input_tolerance, served_on
from grader.judge.swiglu_support import EXERCISE, FUSED, forward_formula
from grader.probes import stand_in_backward, stand_in_forward


def _projection(w: dict, x: torch.Tensor, layer: str, missing: Sequence[str] = ()) -> torch.Tensor:
    """``layer``(x) in float64, from the block's weights ``w`` (float64); without its bias where the block has none
    (``missing``: the interface's parameters the block lacks), as the block computes it."""
    bias = 0.0 if f"{layer}.bias" in missing else w[f"{layer}.bias"]
    return x.double() @ w[f"{layer}.weight"].T + bias


def missing_biases(target) -> list[str]:
    """The biases of the interface's layers that the block's own layers lack (built with bias=False)."""
    layout = layout_of(target, FUSED)
    return [name for name in (layout.missing if layout is not None else []) if name.endswith(".bias")]


def expect_biases(target, consequence: str = "") -> None:
    """A block without some of its biases computes another function than the GLU's: told as that, in __init__
    (TODO 6), one cause in test_fused_layers and in the value tests, never as a forward that ignores swiglu."""
    missing = missing_biases(target)
    if missing:
        fail(f"FusedSwiGLU.__init__ (TODO 6 in {target.where(EXERCISE)}): the block has no {', '.join(missing)}:"
             f" build Wv, Wg and Wo as nn.Linear(..., bias=True), the default{consequence}",
             cause=missing_cause(missing), todo="TODO 6")


def check_block_calls_swiglu(target, gen: torch.Generator, device: str) -> None:
    """With swiglu served by the trusted process: the output is Wo of what a call on (Wg(x), Wv(x)) was served
    (gate and value in either order: which is which is test_fused_matches_glu's), and x's gradient what the
    backward on the gradient reaching swiglu was served (in either order: test_autograd_gradients' business)."""
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device, stand_in_function="served")
    where = f"FusedSwiGLU.forward (TODO 7 in {target.where(EXERCISE)})"
    tolerance = input_tolerance(x.dtype)
    w = {k: v.double() for k, v in weights.items()}
    # The projections as the block's own layers make them: a layer built without its bias gives swiglu its
    # product alone. A missing bias is test_fused_layers' and the value tests' to charge, not this test's.
    missing = missing_biases(target)
    matched = None
    for gate_from, value_from in (("Wg", "Wv"), ("Wv", "Wg")):
        gate, value = (_projection(w, x, name, missing) for name in (gate_from, value_from))
        for c in served_on(got, FORWARD, tolerance, gate=gate, value=value):
            # Wo with its bias or without: a missing bias is test_fused_layers' to charge.
            if any(is_close(got["out"], stand_in_forward(gate, value, c) @ w["Wo.weight"].T + bias, 1e-9, 1e-10)
                   for bias in (w["Wo.bias"], 0.0)):
                matched = (gate_from, value_from, gate, value)
    if matched is None:
        fail(f"{where} does not get its result from swiglu: with swiglu replaced by a stand-in of the grader's"
             " (a weighted sum of gate and value), its output was not Wo of what swiglu returned on Wg(x) and"
             " Wv(x). Compute dropout(Wo(swiglu(Wg(x), Wv(x)))), with the swiglu of this file, not with PyTorch's"
             " activation functions", cause="block: result not from swiglu", todo="TODO 7")
    if got["grad_x"] is None:  # no gradient at all: test_fused_gradients says so
        return
    gate_from, value_from, gate, value = matched
    grad_hidden = got["grad_out"].double() @ w["Wo.weight"]
    grads_x = [gg @ w[f"{gate_from}.weight"] + gv @ w[f"{value_from}.weight"]
               for c in served_on(got, BACKWARD, tolerance, grad_out=grad_hidden, gate=gate, value=value)
               for gg, gv in [stand_in_backward(grad_hidden, gate, value, c)]]
    if not any(is_close(got["grad_x"], g, 1e-9, 1e-10) for g in grads_x):
        fail(f"{where}: x's gradient does not come from swiglu's backward: with swiglu replaced by a stand-in of the"
             " grader's, it was not what the stand-in's backward gave through Wg and Wv. Let autograd carry the"
             " gradient through swiglu (no .detach(), no torch.no_grad())", cause="block: gradient not through swiglu",
             todo="TODO 7")


def expect_block_calls_swiglu(target, device: str, what: str) -> None:
    """The premise of the block's other tests: the block gets its result from swiglu (test_fused_calls_swiglu'
    property, judged once per session on drawn data); a block computed in PyTorch alone earns nothing."""
    def judge() -> None:
        check_block_calls_swiglu(target, drawn("swiglu block calls swiglu"), device)

    verdict = session_verdict((EXERCISE, id(target), device, "block calls swiglu"), judge, "FusedSwiGLU failed")
    if verdict:
        fail(f"{what}: this counts once FusedSwiGLU gets its result from swiglu (test_fused_calls_swiglu passes);"
             f" it does not yet: {verdict}", waits_on="test_fused_calls_swiglu", todo="TODO 7")


SWAPPED = "FusedSwiGLU: gate and value swapped"  # the cause id both of the block's value tests give it


def expect_paths_not_swapped(out: torch.Tensor, weights: dict, x: torch.Tensor, where: str, rtol: float,
                             atol: float) -> None:
    """A block whose output is Wo(swiglu(Wv(x), Wg(x))) is told so, the same cause in the output's test
    and the gradients' (the gradients of that function are wrong for that reason alone)."""
    w = {k: v.double() for k, v in weights.items()}
    gate, value = (_projection(w, x, name) for name in ("Wv", "Wg"))
    swapped = forward_formula(gate, value) @ w["Wo.weight"].T + w["Wo.bias"]
    if is_close(out.double(), swapped, rtol, atol):
        fail(f"{where}: the output is Wo(swiglu(Wv(x), Wg(x))): gate and value are swapped. swiglu(gate, value)"
             " puts SiLU on its first argument, the gate, Wg(x); the value Wv(x) goes second", cause=SWAPPED,
             todo="TODO 7")
