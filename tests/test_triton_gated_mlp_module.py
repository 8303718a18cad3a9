"""Graded tests for exercises/triton_gated_mlp.py, the backward (TODO 4) and FusedGatedMLP (TODO 5): GLU's
layers, the output and gradients against the GLU formula, the projection taken from gated_projection, and
dropout. They judge the block's own code with gated_projection replaced by the grader's (a stand-in served by
the grader's process, for whether the block uses gated_projection at all; the exact projection in PyTorch,
for the rest), so a kernel's or a launch's mistake (TODO 1-3) is charged by their own tests alone, and a
block that computes its projection in PyTorch earns nothing.
Run: ``pytest tests/test_triton_gated_mlp*.py`` (``-m gated``)."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused gated-MLP exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from grader.judge.kernel_target import drawn, rests_on, session_verdict  # noqa: E402
from grader.judge.checks import describe_mismatch, fail  # noqa: E402
from grader.judge.gated_diagnosis import APPLY_ORDER  # noqa: E402
from grader.judge.gated_support import EXERCISE, INTERMEDIATE, torch_activation, WHOLE_K_HIDDEN  # noqa: E402
from grader.judge.seam import error_fields, format_error  # noqa: E402
from grader.judge.stand_in_log import GATED, launches_on, served_values  # noqa: E402

pytestmark = pytest.mark.gated


EXACT = {"stand_in_function": "exact"}  # gated_projection computed by the grader, in float64


def check_block_uses_projection(target, gen: torch.Generator, activation: str) -> None:
    """With gated_projection replaced by the grader's served stand-in: the block's output is Wo of what the
    call on its own x and weights was served (the weights in either order: which is the gate is this test's
    exact half to judge)."""
    weights = glu_weights(gen)
    x = torch.randn(3, 5, WHOLE_K_HIDDEN, generator=gen, dtype=torch.float64)
    served = module_evidence(target, weights, x, torch.zeros_like(x), activation, train=False, backward=False,
                             stand_in_function="served")
    flat = x.reshape(-1, x.shape[-1])
    for gate_from, value_from in (("Wg", "Wv"), ("Wv", "Wg")):
        for launch in launches_on(served, GATED, x=flat, gate_weight=weights[f"{gate_from}.weight"],
                                  value_weight=weights[f"{value_from}.weight"]):
            # Wo with its bias or without: a missing bias is test_block_has_glus_layers' to charge.
            for bias in (weights["Wo.bias"], None):
                want = F.linear(served_values(launch)["out"], weights["Wo.weight"], bias).reshape(x.shape)
                if served["out"].shape == want.shape and torch.allclose(served["out"], want, rtol=1e-9,
                                                                        atol=1e-9 * want.abs().max().item()):
                    return
    fail(f"FusedGatedMLP(activation={activation!r}).forward does not get its projection from gated_projection:"
         " with gated_projection replaced by a stand-in of the grader's (a weighted sum of x Wg^T + bg and"
         " x Wv^T + bv), its output was not Wo of what gated_projection returned on its x and weights. The"
         " projection must go through GatedProjectionFunction (which calls gated_projection), not PyTorch (TODO 5)",
         cause="block: projection not from gated_projection", todo="TODO 5")


def block_premise(what: str):
    """The premise of the block's other tests: the block gets its projection from gated_projection (the
    served half of test_block_matches_glu, judged once per session on drawn data). Whatever the kernel and
    the launch compute: those are replaced."""
    def premise(arguments: dict) -> None:
        def judge() -> None:
            check_block_uses_projection(arguments["target"], drawn("gated block uses gated_projection"), "silu")

        verdict = session_verdict((EXERCISE, id(arguments["target"]), "block uses gated_projection"), judge,
                                  "FusedGatedMLP failed")
        if verdict:
            fail(f"{what.format(**arguments)}: this counts once FusedGatedMLP gets its projection from"
                 f" gated_projection (test_block_matches_glu[silu] passes); it does not yet: {verdict}",
                 waits_on="test_block_matches_glu[silu]", todo="TODO 5")
    return premise


def glu_weights(gen: torch.Generator, dtype=torch.float64) -> dict:
    def draw(*shape):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * 0.3).to(dtype)

    return {"Wv.weight": draw(INTERMEDIATE, WHOLE_K_HIDDEN), "Wv.bias": draw(INTERMEDIATE),
            "Wg.weight": draw(INTERMEDIATE, WHOLE_K_HIDDEN), "Wg.bias": draw(INTERMEDIATE),
            "Wo.weight": draw(WHOLE_K_HIDDEN, INTERMEDIATE), "Wo.bias": draw(WHOLE_K_HIDDEN)}


def glu_formula(w: dict, x: torch.Tensor, activation: str, x_value: torch.Tensor | None = None) -> torch.Tensor:
    """GLU's output; ``x_value``: the value's path takes this x instead (a detached one cuts its gradient)."""
    hidden = torch_activation(activation)(F.linear(x, w["Wg.weight"], w["Wg.bias"])) * F.linear(
        x if x_value is None else x_value, w["Wv.weight"], w["Wv.bias"])
    return F.linear(hidden, w["Wo.weight"], w["Wo.bias"])


def swapped(w: dict) -> dict:
    """GLU's weights with the gate's and the value's layers exchanged."""
    return {**w, **{f"Wg.{part}": w[f"Wv.{part}"] for part in ("weight", "bias")},
            **{f"Wv.{part}": w[f"Wg.{part}"] for part in ("weight", "bias")}}


def x_gradient_of_one_path(w: dict, x: torch.Tensor, grad_out: torch.Tensor, activation: str) -> dict:
    """x's gradient when only the gate's path ("gate") or only the value's ("value") carries it back."""
    grads = {}
    for path in ("gate", "value"):
        xs = x.detach().double().clone().requires_grad_(True)  # a leaf of its own: no gradient accumulates
        x_gate, x_value = (xs, xs.detach()) if path == "gate" else (xs.detach(), xs)
        glu_formula(w, x_gate, activation, x_value=x_value).backward(grad_out.double())
        grads[path] = xs.grad
    return grads


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
        error = evidence["error"]
        # gated_projection is the grader's here, right on any right arguments: where it refuses its arguments
        # (grader/probes/stand_ins.py's StandInArguments), what FusedGatedMLP.forward handed on is wrong, most
        # often GatedProjectionFunction.apply called in gated_projection's order (the biases after both weights)
        if error.get("stage") == "FusedGatedMLP.forward" and error.get("type") == "StandInArguments":
            fail(f"FusedGatedMLP.forward (TODO 5) hands gated_projection arguments no right call passes: {APPLY_HINT}"
                 f" [{format_error(error)}]", cause=APPLY_ORDER, todo="TODO 5")
        hint = BACKWARD_HINT if error.get("stage") == "GatedProjectionFunction.backward" else ""
        fail(format_error(error) + hint, **error_fields(error))
    return evidence


APPLY_HINT = ("apply passes them on to forward as they are, in forward's order: x, gate_weight, gate_bias, value_weight,"
              " value_bias, activation (each weight then its bias), not gated_projection's (x, gate_weight,"
              " value_weight, gate_bias, value_bias, activation)")


BACKWARD_HINT = (": GatedProjectionFunction.backward (TODO 4) returns one gradient per input of forward, in forward's"
                 " order (x, gate_weight, gate_bias, value_weight, value_bias, and None for the activation), each"
                 " of its input's shape")


@pytest.mark.points(1)
def test_block_has_glus_layers(target, gen):
    evidence, *_ = module_run(target, gen, run=False)  # the layers alone: the kernel is other tests' to judge
    want = sorted(glu_weights(gen))
    if evidence["names"] != want:
        fail(f"FusedGatedMLP.__init__ (TODO 5): state_dict keys {evidence['names']}, expected {want}: GLU's"
             " layers Wv, Wg and Wo with biases, so that a GLU's weights load into it")


@pytest.mark.points(2)
@pytest.mark.parametrize("activation", ["silu", "gelu"])
def test_block_matches_glu(target, gen, activation):
    evidence, weights, x, _ = module_run(target, gen, activation, backward=False, **EXACT)
    want = glu_formula(weights, x, activation)
    got = evidence["out"]
    if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-10, atol=1e-10):
        if got.shape == want.shape and torch.allclose(got, want - weights["Wo.bias"], rtol=1e-10, atol=1e-10):
            fail(f"FusedGatedMLP(activation={activation!r}).forward (TODO 5) is Wo(gated_projection(x, Wg, Wv)) without"
                 " Wo's bias: build Wo as nn.Linear(intermediate_dim, hidden_dim) with its bias, as GLU's",
                 cause="Wo without bias", todo="TODO 5")
        if got.shape == want.shape and torch.allclose(got, glu_formula(swapped(weights), x, activation), rtol=1e-10,
                                                      atol=1e-10):
            fail(f"FusedGatedMLP(activation={activation!r}).forward (TODO 5) is Wo(gated_projection(x, Wv, Wg)): the"
                 " gate's and the value's layers are swapped; gated_projection takes the gate's weight and bias (Wg,"
                 " which gets the activation) first, then the value's (Wv)", cause="FusedGatedMLP: gate and value swapped",
                 todo="TODO 5")
        detail = describe_mismatch(got, want, 1e-10, 1e-10) if got.shape == want.shape else f"shape {tuple(got.shape)}"
        fail(f"FusedGatedMLP(activation={activation!r}).forward (TODO 5) is not Wo(gated_projection(x, Wg, Wv))"
             f" with GLU's weights (gated_projection replaced by the exact one): the gate's and the value's layers,"
             f" then Wo, then dropout [{detail}]", todo="TODO 5")
    check_block_uses_projection(target, gen, activation)


@pytest.mark.points(2)
@rests_on(block_premise("FusedGatedMLP's backward"), alone=True)
def test_block_gradients(target, gen):
    evidence, weights, x, grad_out = module_run(target, gen, "gelu", **EXACT)
    leaves = {k: v.double().requires_grad_(True) for k, v in weights.items()}
    xs = x.double().requires_grad_(True)
    glu_formula(leaves, xs, "gelu").backward(grad_out.double())
    want = {name: p.grad for name, p in leaves.items()}
    tol = 1e-8

    def close(got, expected) -> bool:
        return got is not None and got.shape == expected.shape and torch.allclose(
            got.double(), expected, rtol=tol, atol=tol * expected.abs().nan_to_num().max().item())

    if not torch.allclose(evidence["out"], glu_formula(weights, x, "gelu"), rtol=1e-10, atol=1e-10):
        fail("FusedGatedMLP(activation='gelu'): its gradients are judged once its output is GLU's (test_block_matches_glu"
             "[gelu] passes, which says what differs)", waits_on="test_block_matches_glu[gelu]", todo="TODO 5")
    if evidence["grad_x"] is None and all(evidence["grads"].get(name) is None for name in ("Wg.weight", "Wv.weight")):
        fail("FusedGatedMLP.forward (TODO 5): no gradient reached x, Wg or Wv: the projection must go through"
             " GatedProjectionFunction.apply, whose backward (TODO 4) gives them; the kernel's output has none",
             todo="TODO 5")
    wrong = [name for name in want if not close(evidence["grads"].get(name), want[name])]
    if not close(evidence["grad_x"], xs.grad):
        wrong.insert(0, "x")
    got = evidence["grads"]
    if all(close(got.get(f"{mine}.{part}"), want[f"{theirs}.{part}"]) for mine, theirs in (("Wg", "Wv"), ("Wv", "Wg"))
           for part in ("weight", "bias")):
        fail("GatedProjectionFunction.backward (TODO 4): the gate's and the value's gradients come back swapped:"
             " return one gradient per input of forward, in forward's order (x, gate_weight, gate_bias,"
             " value_weight, value_bias, and None for the activation)", cause="gradients returned swapped",
             todo="TODO 4")
    if wrong == ["x"]:
        for path, other in (("gate", "value"), ("value", "gate")):
            if close(evidence["grad_x"], x_gradient_of_one_path(weights, x, grad_out, "gelu")[path]):
                fail(f"GatedProjectionFunction.backward (TODO 4): x's gradient comes through the {path}'s path alone:"
                     f" x feeds both projections, so its gradient is the sum, d/dg @ Wg + d/dv @ Wv; the {other}'s"
                     " term is missing", cause="x's gradient through one path", todo="TODO 4")
    if wrong:
        fail(f"GatedProjectionFunction.backward (TODO 4): the gradients of {', '.join(wrong)} are wrong: with"
             " g = x Wg^T + bg and v = x Wv^T + bv, d/dv = grad * act(g), d/dg = grad * v * act'(g), then"
             " through the two linear maps (the biases' gradients sum over the tokens)")


@pytest.mark.points(1)
@rests_on(block_premise("FusedGatedMLP's dropout"), alone=True)
def test_block_dropout(target, gen):
    evidence, weights, x, grad_out = module_run(target, gen, "silu", dropout=0.5, train=True, **EXACT)
    zeros = (evidence["out"] == 0).double().mean().item()
    # 960 outputs (3 x 5 x 64), share 0.5: 0.2 either side is over twelve standard deviations.
    if not 0.3 <= zeros <= 0.7:
        fail(f"FusedGatedMLP in training with dropout=0.5: {zeros:.0%} of the outputs are zero, expected about"
             " half: the dropout goes after Wo, and only in training (TODO 5)")
    # In eval mode the rate changes nothing: F.dropout(y, p) drops in eval too (its training= defaults to True).
    evaluated, clean = (module_evidence(target, weights, x, grad_out, "silu", dropout=p, train=False, **EXACT)["out"]
                        for p in (0.5, 0.0))
    if not torch.equal(evaluated, clean):
        dropped = (evaluated == 0).double().mean().item()
        fail(f"FusedGatedMLP in eval mode with dropout=0.5 differs from its own output with dropout=0.0 ({dropped:.0%}"
             " of the outputs zero): dropout runs only in training: apply nn.Dropout(dropout), which follows the"
             " module's train()/eval(), or pass training=self.training to F.dropout (TODO 5)")
