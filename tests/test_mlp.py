"""Graded tests for exercises/mlp_block.py: the MLP (TODO 1-2) and GLU (TODO 3-4) blocks.

Run all: ``pytest tests/test_mlp.py``; one task: ``pytest tests/test_mlp.py -m glu``.
Each test runs once for MLP and once for GLU; the id in brackets says which.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from grader.probes import ACTIVATIONS
from tests.checks import BLOCKS, Block, diagnose, expect_close, expect_shape, fail, is_close, random_weights

HIDDEN, INTERMEDIATE = 8, 12  # different, so a transposed layer cannot go unnoticed
CTOR = {"hidden_dim": HIDDEN, "intermediate_dim": INTERMEDIATE}

BLOCK_PARAMS = [pytest.param(BLOCKS["MLP"], marks=pytest.mark.mlp, id="MLP"),
                pytest.param(BLOCKS["GLU"], marks=pytest.mark.glu, id="GLU")]
pytestmark = pytest.mark.parametrize("block", BLOCK_PARAMS)


def run(target, block: Block, gen, shape=(2, 3, HIDDEN), activation=None, dropout=None, train=False,
        dtype=torch.float64, backward=False, device="cpu", weights=None, x=None, grad_out=None):
    """Run ``block`` with test-picked weights and input; returns (evidence, weights, x, ctor)."""
    ctor = dict(CTOR, activation=activation, dropout=dropout)
    weights = weights if weights is not None else random_weights(block, HIDDEN, INTERMEDIATE, gen)
    x = x if x is not None else (torch.randn(shape, generator=gen, dtype=torch.float64) * 1.5).to(dtype)
    if backward and grad_out is None:
        grad_out = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(dtype)
    evidence = target.probe(block.exercise, "run_block", cls_name=block.name, ctor=ctor,
                            state_dict=weights, x=x, train=train, grad_out=grad_out, device=device)
    evidence["grad_out"] = grad_out
    return evidence, weights, x, ctor


def where(target, block: Block, todo: str, method: str) -> str:
    return f"{block.name}.{method} ({todo} in {target.where(block.exercise)})"


# ------------------------------------------------------------------------------ construction

@pytest.mark.points(1)
def test_layer_names(target, block):
    got = target.probe(block.exercise, "describe_block", cls_name=block.name, ctor=CTOR)["state_dict_keys"]
    want = list(block.layer_shapes(HIDDEN, INTERMEDIATE))
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    if missing or extra:
        layers = ", ".join(f"self.{name}" for name in block.layers)
        hint = f"create {layers} as nn.Linear layers with bias=True"
        if any(k.endswith(".bias") for k in missing) and not any(k.endswith(".weight") for k in missing):
            hint = "the linear layers need biases: nn.Linear(..., bias=True), which is the default"
        fail(f"{where(target, block, block.init_todo, '__init__')}: state_dict keys missing {missing},"
             f" unexpected {extra}; {hint}")


@pytest.mark.points(1)
def test_parameter_shapes(target, block):
    got = target.probe(block.exercise, "describe_block", cls_name=block.name, ctor=CTOR)["param_shapes"]
    for name, shape in block.layer_shapes(HIDDEN, INTERMEDIATE).items():
        layer = name.split(".")[0]
        d_in, d_out = block.layers[layer]
        if name not in got:
            fail(f"{where(target, block, block.init_todo, '__init__')}: no parameter {name}")
        expect_shape(got[name], shape, f"{block.name}.{name} with hidden_dim={HIDDEN}, "
                     f"intermediate_dim={INTERMEDIATE}",
                     f"{layer} maps {d_in}_dim -> {d_out}_dim: nn.Linear({d_in}_dim, {d_out}_dim), whose "
                     "weight is stored as (out_features, in_features)")


@pytest.mark.points(1)
def test_parameter_count(target, block):
    got = target.probe(block.exercise, "describe_block", cls_name=block.name, ctor=CTOR)["param_count"]
    want = block.count(HIDDEN, INTERMEDIATE)
    if got != want:
        fail(f"{block.name}(hidden_dim={HIDDEN}, intermediate_dim={INTERMEDIATE}) has {got} parameters,"
             f" expected {block.count_formula} = {want}: one weight matrix per layer plus a bias each,"
             " and nothing else with parameters")


# ---------------------------------------------------------------------------------- forward

@pytest.mark.points(1)
@pytest.mark.parametrize("shape", [(5, HIDDEN), (2, 3, HIDDEN), (2, 3, 4, HIDDEN)], ids=["2d", "3d", "4d"])
def test_output_shape(target, block, gen, shape, device):
    evidence, *_ = run(target, block, gen, shape=shape, device=device)
    expect_shape(evidence["out"].shape, shape, f"{block.name}.forward on input of shape {shape}",
                 "The block acts on the last dimension only; any number of leading dimensions must "
                 "pass through (nn.Linear broadcasts; don't unpack x.shape into a fixed count)")


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16], ids=["float64", "bfloat16"])
def test_dtype_kept(target, block, gen, dtype, device):
    evidence, *_ = run(target, block, gen, dtype=dtype, device=device)
    got = evidence["out"].dtype
    if got != dtype:
        fail(f"{block.name}.forward turned {dtype} input (with a {dtype} block) into {got} output: don't"
             " cast with .float() / .to(torch.float32) or make new tensors with a fixed dtype")


@pytest.mark.points(1)
def test_input_unmodified(target, block, gen, device):
    evidence, *_ = run(target, block, gen, device=device)
    if not torch.equal(evidence["x_after"], evidence["x_before"]):
        fail(f"{block.name}.forward changed its input x in place: {evidence['x_after'].ne(evidence['x_before']).sum()}"
             " elements differ after the call. Avoid x += ..., x.mul_(...), or an in-place activation on x")


@pytest.mark.points(2)
@pytest.mark.parametrize("activation", [None, "relu", "silu", "gelu_tanh"],
                         ids=["default", "relu", "silu", "gelu_tanh_partial"])
def test_parity_with_reference(target, reference, block, gen, activation, device):
    # 4-D input for the default: the parity is position-wise for any number of leading dimensions.
    shape = (2, 3, 4, HIDDEN) if activation is None else (3, 5, HIDDEN)
    got, weights, x, ctor = run(target, block, gen, shape=shape, activation=activation, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, activation=activation)
    act = ACTIVATIONS[activation]() if activation else nn.GELU()
    what = f"{block.name}.forward with activation_fn={activation or 'default (nn.GELU)'}"
    if got["out"].shape == want["out"].shape and not is_close(got["out"], want["out"], 1e-9, 1e-10):
        expect_close(got["out"], want["out"], what, diagnose(block, weights, x, got["out"], act, activation))
    expect_close(got["out"], want["out"], what)


@pytest.mark.points(2)
def test_gradients(target, reference, block, gen, device):
    got, weights, x, _ = run(target, block, gen, backward=True, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, backward=True, grad_out=got["grad_out"])
    detached = ("no gradient reached {name}: something in forward cuts the graph (.detach(), .data,"
                " torch.no_grad(), or a tensor rebuilt from values)")
    if got["grad_x"] is None:
        fail(f"{block.name}.forward: " + detached.format(name="the input x"))
    expect_close(got["grad_x"], want["grad_x"], f"{block.name}: gradient with respect to the input x",
                 "if the forward output matches, look for an op that is not differentiable as written")
    for name, grad in want["grads"].items():
        if got["grads"].get(name) is None:
            fail(f"{block.name}.forward: " + detached.format(name=name))
        expect_close(got["grads"][name], grad, f"{block.name}: gradient of {name}")


# ---------------------------------------------------------------------------------- dropout

DROPOUT_SHAPE = (64, 32, HIDDEN)  # 16k outputs: the share of zeros is known to within a few 0.01
P = 0.3


@pytest.mark.points(1)
def test_dropout_off_in_eval_mode(target, reference, block, gen, device):
    got, weights, x, _ = run(target, block, gen, shape=DROPOUT_SHAPE, dropout=P, train=False, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, dropout=P, train=False)
    expect_close(got["out"], want["out"], f"{block.name}.forward in eval mode with dropout={P}",
                 "dropout must do nothing in eval mode: use nn.Dropout, or F.dropout(..., training=self.training)")


@pytest.mark.points(1)
def test_dropout_zero_changes_nothing_in_training(target, reference, block, gen, device):
    got, weights, x, _ = run(target, block, gen, shape=DROPOUT_SHAPE, dropout=0.0, train=True, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, dropout=0.0, train=False)
    expect_close(got["out"], want["out"], f"{block.name}.forward in training mode with dropout=0.0",
                 "with dropout=0.0 the training-mode output equals the eval-mode output")


def dropout_run(target, reference, block, gen, device):
    got, weights, x, _ = run(target, block, gen, shape=DROPOUT_SHAPE, dropout=P, train=True, device=device)
    clean, *_ = run(reference, block, gen, weights=weights, x=x, dropout=P, train=False)
    return got["out"], clean["out"]


@pytest.mark.points(2)
def test_dropout_share_of_zeros(target, reference, block, gen, device):
    out, clean = dropout_run(target, reference, block, gen, device)
    expect_shape(out.shape, clean.shape, f"{block.name}.forward in training mode")
    n = out.numel()
    share = (out == 0).double().mean().item()
    bound = 6 * math.sqrt(P * (1 - P) / n)  # six standard deviations of a binomial share
    if abs(share - P) <= bound:
        return
    if share == 0 and is_close(out, clean, 1e-9, 1e-10):
        fail(f"{block.name}.forward with dropout={P} in training mode changed nothing: create the dropout"
             f" module with rate `dropout` in __init__ ({block.init_todo}) and apply it last in forward")
    if share < P / 10 and not is_close(out, clean, 1e-9, 1e-10):
        fail(f"{block.name}.forward with dropout={P}: the output changed but has almost no exact zeros"
             f" ({share:.3f}): dropout is applied before Wo; it belongs after Wo, on the block's output")
    fail(f"{block.name}.forward with dropout={P}: {share:.3f} of the outputs are exactly zero, expected"
         f" {P} +- {bound:.3f}; is the rate passed through unchanged (p is the share dropped, not kept)?")


@pytest.mark.points(2)
def test_dropout_kept_outputs_scaled(target, reference, block, gen, device):
    out, clean = dropout_run(target, reference, block, gen, device)
    expect_shape(out.shape, clean.shape, f"{block.name}.forward in training mode")
    kept = out != 0
    if kept.all():
        fail(f"{block.name}.forward with dropout={P} dropped no outputs; test_dropout_share_of_zeros says why")
    scaled = clean[kept] / (1 - P)
    if is_close(out[kept], clean[kept], 1e-9, 1e-10):
        fail(f"{block.name}.forward with dropout={P}: kept outputs equal the eval output, but training-mode"
             f" dropout scales them by 1/(1-p) = {1 / (1 - P):.4f} so the expected value is unchanged")
    expect_close(out[kept], scaled, f"{block.name}.forward: kept outputs in training mode with dropout={P}",
                 "each kept output must equal the eval-mode output divided by (1 - p); is dropout the last step?")
