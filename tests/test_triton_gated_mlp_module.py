"""Graded tests for exercises/triton_gated_mlp.py, the backward (TODO 4) and FusedGatedMLP (TODO 5): GLU's
layers, the output and gradients against the GLU formula, the kernel doing the projection, and dropout.
The block runs in float64: each test counts once the kernel computes, in float32 and in float64
(``test_triton_gated_mlp.py``), and gated_projection gets its result from it
(``test_triton_gated_mlp_launch.py``), so that a kernel's mistake is charged by the kernel's tests alone.
Run: ``pytest tests/test_triton_gated_mlp*.py`` (``-m gated``)."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused gated-MLP exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.checks import describe_mismatch, fail  # noqa: E402
from grader.judge.gated_launch import expect_launch_uses_kernel, stand_in_words  # noqa: E402
from grader.judge.gated_support import (EXERCISE, kernel_verdict, INTERMEDIATE, KERNEL,  # noqa: E402
                                 torch_activation, WHOLE_K_HIDDEN)
from grader.judge.seam import error_fields, format_error  # noqa: E402
from grader.judge.stand_in_log import GATED, launches_on, served_values, shown  # noqa: E402

pytestmark = pytest.mark.gated



def block_premise(what: str):
    """The block's premise: the kernel computes, and gated_projection gets its result from it (TODO 1-2),
    each charged by its own test. The block itself is judged on what it does with its own gated_projection,
    right or wrong (its wiring), in float64, or in float32 where the kernel does not compute float64 (that
    is test_forward_float64's to charge, not the block's)."""
    def premise(arguments: dict) -> None:
        expect_launch_uses_kernel(arguments["target"], arguments["kernels"], what.format(**arguments))
    return premise


def block_dtype(kernels) -> torch.dtype:
    return torch.float64 if not kernel_verdict(kernels, torch.float64) else torch.float32


def tolerance(dtype: torch.dtype, exact: float) -> float:
    """``exact`` in float64; in float32, what a float32 (or TF32) projection and its layers can be off by."""
    return exact if dtype == torch.float64 else 2e-4


def glu_weights(gen: torch.Generator, dtype=torch.float64) -> dict:
    def draw(*shape):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * 0.3).to(dtype)

    return {"Wv.weight": draw(INTERMEDIATE, WHOLE_K_HIDDEN), "Wv.bias": draw(INTERMEDIATE),
            "Wg.weight": draw(INTERMEDIATE, WHOLE_K_HIDDEN), "Wg.bias": draw(INTERMEDIATE),
            "Wo.weight": draw(WHOLE_K_HIDDEN, INTERMEDIATE), "Wo.bias": draw(WHOLE_K_HIDDEN)}


def glu_formula(w: dict, x: torch.Tensor, activation: str) -> torch.Tensor:
    hidden = torch_activation(activation)(F.linear(x, w["Wg.weight"], w["Wg.bias"])) * F.linear(
        x, w["Wv.weight"], w["Wv.bias"])
    return F.linear(hidden, w["Wo.weight"], w["Wo.bias"])


def module_run(target, gen, activation: str = "gelu", dtype=torch.float64, **options
               ) -> tuple[dict, dict, torch.Tensor, torch.Tensor]:
    weights = glu_weights(gen, dtype)
    x = torch.randn(3, 5, WHOLE_K_HIDDEN, generator=gen, dtype=torch.float64).to(dtype)
    grad_out = torch.randn(3, 5, WHOLE_K_HIDDEN, generator=gen, dtype=torch.float64).to(dtype)
    return module_evidence(target, weights, x, grad_out, activation, **options), weights, x, grad_out


def module_evidence(target, weights: dict, x: torch.Tensor, grad_out: torch.Tensor, activation: str,
                    **options) -> dict:
    evidence = target.evidence(EXERCISE, "gated_module_run", hidden=WHOLE_K_HIDDEN, intermediate=INTERMEDIATE,
                               activation=activation, weights=weights, x=x, grad_out=grad_out, **options)
    if "error" in evidence:
        fail(format_error(evidence["error"]), **error_fields(evidence["error"]))
    return evidence


@pytest.mark.points(1)
def test_block_has_glus_layers(target, gen):
    evidence, *_ = module_run(target, gen, run=False)  # the layers alone: the kernel is other tests' to judge
    want = sorted(glu_weights(gen))
    if evidence["names"] != want:
        fail(f"FusedGatedMLP.__init__ (TODO 5): state_dict keys {evidence['names']}, expected {want}: GLU's"
             " layers Wv, Wg and Wo with biases, so that a GLU's weights load into it")


def own_projection(target, weights: dict, x: torch.Tensor, activation: str, **options) -> torch.Tensor:
    """What the code under test's own gated_projection gives on the block's inputs (``options``: with the
    stand-in kernel): the block is judged on what it does with it (its wiring), so a kernel's or a launch's
    mistake is charged by their own tests alone."""
    evidence = target.evidence(EXERCISE, "gated_projection_run", x=x, gate_weight=weights["Wg.weight"],
                               value_weight=weights["Wv.weight"], gate_bias=weights["Wg.bias"],
                               value_bias=weights["Wv.bias"], activation=activation, **options)
    if "error" in evidence:
        fail("FusedGatedMLP counts once gated_projection runs on its inputs (TODO 1-2): "
             + format_error(evidence["error"]), waits_on="test_kernel_does_the_work", todo="TODO 2")
    return evidence["out"]


@pytest.mark.points(2)
@pytest.mark.parametrize("activation", ["silu", "gelu"])
@rests_on(block_premise("FusedGatedMLP(activation={activation!r}) runs"), alone=True)
def test_block_matches_glu(target, kernels, gen, activation):
    dtype = block_dtype(kernels)
    evidence, weights, x, grad_out = module_run(target, gen, activation, dtype)
    hidden = own_projection(target, weights, x, activation)
    want = F.linear(hidden, weights["Wo.weight"], weights["Wo.bias"])
    got = evidence["out"]
    tol = tolerance(dtype, 1e-10)
    if got.shape != want.shape or not torch.allclose(got, want, rtol=tol, atol=tol):
        detail = describe_mismatch(got, want, tol, tol) if got.shape == want.shape else f"shape {tuple(got.shape)}"
        fail(f"FusedGatedMLP(activation={activation!r}).forward (TODO 5) is not Wo(gated_projection(x, Wg, Wv))"
             f" with GLU's weights: the gate's and the value's layers, then Wo, then dropout [{detail}]")
    # Does the block's projection come from the kernel? The same call with the kernel replaced by a stand-in:
    # the block's output must be Wo of what a launch on its own x and weights was served (the weights in
    # either order: a launch that swaps them is test_kernel_does_the_work's to charge).
    swapped = module_evidence(target, weights, x, grad_out, activation, stand_ins=True, train=False)
    flat = x.reshape(-1, x.shape[-1])
    launches = [launch for gate_from, value_from in (("Wg", "Wv"), ("Wv", "Wg"))
                for launch in launches_on(swapped, GATED, x=flat, gate_weight=weights[f"{gate_from}.weight"],
                                          value_weight=weights[f"{value_from}.weight"])]
    tol = tolerance(dtype, 1e-9)
    for launch in launches:
        want = F.linear(served_values(launch)["out"].to(dtype), weights["Wo.weight"],
                        weights["Wo.bias"]).reshape(x.shape)
        if swapped["out"].shape == want.shape and torch.allclose(swapped["out"], want, rtol=tol,
                                                                 atol=tol * want.abs().max().item()):
            return
    fail(f"FusedGatedMLP(activation={activation!r}).forward does not get its projection from {KERNEL}:"
         f" {stand_in_words(shown(swapped, GATED))}, its output was not Wo of what a"
         f" launch on its x and weights was served. The projection must go through GatedProjectionFunction, one"
         f" launch of {KERNEL} (TODO 5)")


@pytest.mark.points(2)
@rests_on(block_premise("FusedGatedMLP's backward runs"), alone=True)
def test_block_gradients(target, kernels, gen):
    dtype = block_dtype(kernels)
    evidence, weights, x, grad_out = module_run(target, gen, "gelu", dtype)
    leaves = {k: v.double().requires_grad_(True) for k, v in weights.items()}
    xs = x.double().requires_grad_(True)
    glu_formula(leaves, xs, "gelu").backward(grad_out.double())
    want = {name: p.grad for name, p in leaves.items()}
    # Wo's gradient is grad_out^T times what the forward computed: the code under test's own projection,
    # so that a forward mistake is the forward tests' to charge. The rest is the backward's (TODO 4).
    hidden = own_projection(target, weights, x, "gelu")
    want["Wo.weight"] = grad_out.double().reshape(-1, WHOLE_K_HIDDEN).T @ hidden.double().reshape(-1, INTERMEDIATE)
    tol = tolerance(dtype, 1e-8)

    def close(got, expected) -> bool:
        return got is not None and got.shape == expected.shape and torch.allclose(
            got.double(), expected, rtol=tol, atol=tol * expected.abs().nan_to_num().max().item())

    wrong = [name for name in want if not close(evidence["grads"].get(name), want[name])]
    if not close(evidence["grad_x"], xs.grad):
        wrong.insert(0, "x")
    if wrong:
        fail(f"GatedProjectionFunction.backward (TODO 4): the gradients of {', '.join(wrong)} are wrong: with"
             " g = x Wg^T + bg and v = x Wv^T + bv, d/dv = grad * act(g), d/dg = grad * v * act'(g), then"
             " through the two linear maps (the biases' gradients sum over the tokens)")


@pytest.mark.points(1)
@rests_on(block_premise("FusedGatedMLP runs in training"), alone=True)
def test_block_dropout(target, kernels, gen):
    evidence, *_ = module_run(target, gen, "silu", block_dtype(kernels), dropout=0.5, train=True)
    zeros = (evidence["out"] == 0).double().mean().item()
    # 960 outputs (3 x 5 x 64), share 0.5: 0.2 either side is over twelve standard deviations.
    if not 0.3 <= zeros <= 0.7:
        fail(f"FusedGatedMLP in training with dropout=0.5: {zeros:.0%} of the outputs are zero, expected about"
             " half: the dropout goes after Wo, and only in training (TODO 5)")
