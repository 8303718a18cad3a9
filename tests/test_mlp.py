"""Graded tests for exercises/mlp_block.py: the MLP (TODO 1-2) and GLU (TODO 3-4) blocks.

Run all: ``pytest tests/test_mlp.py``; one task: ``pytest tests/test_mlp.py -m glu``.
Each test runs once for MLP and once for GLU; the id in brackets says which.

The block runs (test-picked weights and inputs) are ``grader/judge/block_runs.py``; the shared comparisons
``grader/judge/checks.py``.
"""

from __future__ import annotations

import math

import pytest
import torch

from grader.judge.block_evidence import (extra_cause, forward_fails_past_its_layers, output_explained, parity_diagnosis,
                                        structure_fault)
from grader.judge.block_dropout import dropout_run
from grader.judge.block_runs import CTOR, HIDDEN, INTERMEDIATE, P, forward_where, layout_of, missing_cause, probe, run, where
from grader.judge.checks import Block, expect_close, expect_shape, fail, float32_close, float32_hint, is_close
from grader.judge.mlp_blocks import BLOCKS

BLOCK_PARAMS = [pytest.param(BLOCKS["MLP"], marks=pytest.mark.mlp, id="MLP"),
                pytest.param(BLOCKS["GLU"], marks=pytest.mark.glu, id="GLU")]
pytestmark = pytest.mark.parametrize("block", BLOCK_PARAMS)


def expect_block_output(target, reference, block: Block, weights: dict, x: torch.Tensor, what: str,
                        device: str) -> None:
    """A property test counts only when the block computes like a block.

    The right shape, dtype or untouched input says nothing on its own: a placeholder forward (zeros of
    the right shape) has them too. So the block must compute its output from its own parameters the
    way the architecture says, whatever its activation (``structure_fault`` in grader/judge/block_evidence.py),
    or give the reference's output or a named mistake's (a residual inside the block, which the dropout
    tests judge on what it adds to x). A forward mistake then costs the parity and gradient tests only.
    Every one of these is an exact comparison (to float32 precision), so the verdict is the same for any
    data the seed draws.
    """
    x64 = x.double()
    # Asked whatever the block: the student release answers from the reference's recorded answers, and a
    # question the reference run never asked would have none there (a grade that differs from the course's).
    run(reference, block, None, weights=weights, x=x64)
    fault = structure_fault(target, block)
    if not fault:
        return
    evidence, *_ = run(target, block, None, weights=weights, x=x64, device=device)
    if output_explained(reference, block, weights, x64, evidence["out"]):
        return
    fail(f"{what}, but the block does not compute like one yet: {fault}. This test counts once"
         f" test_parity_with_reference[default-{block.name}] passes",
         waits_on=f"test_parity_with_reference[default-{block.name}]")


def expect_block_works(target, reference, block: Block, gen, device: str, what: str) -> None:
    """expect_block_output for the construction tests: names, shapes and counts are reported by the
    code under test and could be made up; an output that matches the reference cannot. A forward that
    raises after its layers took the input (``forward_fails_past_its_layers``: the error moves with the
    input's width) shows the layers at work and its fault elsewhere, which the forward's own tests tell:
    the construction counts. A placeholder forward (a raise, a non-tensor, zeros) never shows that."""
    if forward_fails_past_its_layers(target, block):
        return
    _, weights, x, _ = run(target, block, gen, device=device)
    expect_block_output(target, reference, block, weights, x, what, device)


# ------------------------------------------------------------------------------ construction

@pytest.mark.points(1)
def test_layer_names(target, reference, block, gen, device):
    described = probe(target, block, "describe_block", ctor=CTOR)
    got = described["state_dict_keys"]
    want = list(block.layer_shapes(HIDDEN, INTERMEDIATE))
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    if missing or extra:
        layers = ", ".join(f"self.{name}" for name in block.layers)
        hint, cause = f"create {layers} as nn.Linear layers with bias=True", "layer names"
        layout = layout_of(target, block)
        if layout is not None and layout.renamed:
            hint = (f"the layers are right but named otherwise: rename {layout.renaming_text()} (the"
                    " interface's names; the tests load weights by them)")
        if any(k.endswith(".bias") for k in missing) and not any(k.endswith(".weight") for k in missing):
            hint = "the linear layers need biases: nn.Linear(..., bias=True), which is the default"
            cause = missing_cause(missing)
        fused = [k for k in extra if described["param_shapes"].get(k) == [2 * INTERMEDIATE, HIDDEN]]
        if block.name == "GLU" and "Wv.weight" in missing and "Wg.weight" in missing and fused:
            hint = (f"{fused[0]} fuses the gate and value projections into one nn.Linear(hidden_dim,"
                    " 2 * intermediate_dim); the interface needs them as two layers, self.Wg for the gate"
                    " and self.Wv for the value")
        elif extra and not missing:
            hint = (f"only {layers} may hold parameters; the extra ones belong outside the block"
                    " (the transformer layer owns the LayerNorm and the residual connection)")
            cause = extra_cause(block, layout) if layout is not None and layout.extra else cause
        fail(f"{where(target, block, block.init_todo, '__init__')}: state_dict keys missing {missing},"
             f" unexpected {extra}; {hint}", cause=cause, todo=block.init_todo)
    expect_block_works(target, reference, block, gen, device,
                       f"{where(target, block, block.init_todo, '__init__')}: the layer names are right")


@pytest.mark.points(1)
def test_parameter_shapes(target, reference, block, gen, device):
    got = probe(target, block, "describe_block", ctor=CTOR)["param_shapes"]
    layout = layout_of(target, block)
    if layout is not None:  # layers named otherwise: their shapes are judged here, their names in test_layer_names
        got = layout.interface_shapes(got)
    for name, shape in block.layer_shapes(HIDDEN, INTERMEDIATE).items():
        layer = name.split(".")[0]
        d_in, d_out = block.layers[layer]
        if name not in got:
            if name.endswith(".bias") and f"{layer}.weight" in got:
                continue  # a layer without its bias costs test_layer_names and the parity tests, not this
            fail(f"{where(target, block, block.init_todo, '__init__')}: no parameter {name}", cause=missing_cause([name]),
                 todo=block.init_todo)
        swapped = " (the two sizes are swapped)" if len(shape) == 2 and got[name] == shape[::-1] else ""
        expect_shape(got[name], shape, f"{where(target, block, block.init_todo, '__init__')}: {name} with"
                     f" hidden_dim={HIDDEN}, intermediate_dim={INTERMEDIATE}",
                     f"{layer} maps {d_in}_dim -> {d_out}_dim: nn.Linear({d_in}_dim, {d_out}_dim), whose "
                     f"weight is stored as (out_features, in_features){swapped}")
    expect_block_works(target, reference, block, gen, device,
                       f"{where(target, block, block.init_todo, '__init__')}: the parameter shapes are right")


@pytest.mark.points(1)
def test_parameter_count(target, reference, block, gen, device):
    got = probe(target, block, "describe_block", ctor=CTOR)["param_count"]
    want = block.count(HIDDEN, INTERMEDIATE)
    if got != want:
        layout = layout_of(target, block)
        cause = (missing_cause(layout.missing) if layout is not None and layout.missing
                 else extra_cause(block, layout) if layout is not None and layout.extra
                 else "parameter count")
        fail(f"{where(target, block, block.init_todo, '__init__')}: {block.name}(hidden_dim={HIDDEN},"
             f" intermediate_dim={INTERMEDIATE}) has {got} parameters,"
             f" expected {block.count_formula} = {want}: one weight matrix per layer plus a bias each,"
             " and nothing else with parameters", cause=cause, todo=block.init_todo)
    expect_block_works(target, reference, block, gen, device,
                       f"{where(target, block, block.init_todo, '__init__')}: the parameter count is right")


# ---------------------------------------------------------------------------------- forward

LEADING_DIMS_HINT = ("The block acts on the last dimension only; any number of leading dimensions must "
                     "pass through (nn.Linear broadcasts; don't unpack x.shape into a fixed count, and if "
                     "you flatten, reshape back to x.shape)")
DTYPE_HINT = "don't cast with .float() / .to(torch.float32) or make new tensors with a fixed dtype"


def shape_cause(got, want) -> str:
    """One cause id for a wrong output shape, whichever test sees it: its leading dimensions, or its last."""
    return "leading dimensions" if tuple(got[-1:]) == tuple(want[-1:]) else "output's last dimension"


@pytest.mark.points(1)
@pytest.mark.parametrize("shape", [(5, HIDDEN), (2, 3, HIDDEN), (2, 3, 4, HIDDEN)], ids=["2d", "3d", "4d"])
def test_output_shape(target, reference, block, gen, shape, device):
    evidence, weights, x, _ = run(target, block, gen, shape=shape, device=device)
    what = f"{forward_where(target, block)} on input of shape {shape}"
    expect_shape(evidence["out"].shape, shape, what, LEADING_DIMS_HINT, cause=shape_cause(evidence["out"].shape, shape),
                 todo=block.forward_todo)
    expect_block_output(target, reference, block, weights, x, f"{what}: the output shape is right", device)


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16], ids=["float64", "bfloat16"])
def test_dtype_kept(target, reference, block, gen, dtype, device):
    evidence, weights, x, _ = run(target, block, gen, dtype=dtype, device=device)
    got = evidence["out"].dtype
    if got != dtype:
        fail(f"{forward_where(target, block)} turned {dtype} input (with a {dtype} block) into {got} output:"
             f" {DTYPE_HINT}", cause="output dtype", todo=block.forward_todo)
    expect_block_output(target, reference, block, weights, x,
                        f"{forward_where(target, block)} with {dtype}: the output dtype is right", device)
    # Training mode too: a hand-made dropout mask with a fixed dtype (.float()) promotes the output there only.
    evidence, *_ = run(target, block, gen, dtype=dtype, dropout=P, train=True, device=device)
    got = evidence["out"].dtype
    if got != dtype:
        fail(f"{forward_where(target, block)} in training mode with dropout={P} turned {dtype} input into {got}"
             " output: make the dropout mask in the output's dtype (torch.rand_like(y) or nn.Dropout),"
             " not with .float()", cause="dropout mask dtype", todo=block.forward_todo)


@pytest.mark.points(1)
def test_input_unmodified(target, reference, block, gen, device):
    # Eval mode and training mode with dropout: an in-place dropout on x only bites in training.
    for train, dropout in ((False, None), (True, P)):
        evidence, weights, x, _ = run(target, block, gen, dropout=dropout, train=train, device=device)
        before, after = evidence["x_before"], evidence["x_after"]
        if not torch.equal(after, before):
            mode = f"in training mode with dropout={P}" if train else "in eval mode"
            how = (f"{after.ne(before).sum()} elements differ after the call" if after.shape == before.shape
                   else f"its shape changed from {tuple(before.shape)} to {tuple(after.shape)}")
            fail(f"{forward_where(target, block)} changed its input x in place {mode}: {how}. Avoid x += ...,"
                 " x.mul_(...), x.copy_(...), or an in-place activation or dropout on x", cause="input changed in place",
                 todo=block.forward_todo)
        if not train:
            expect_block_output(target, reference, block, weights, x,
                                f"{forward_where(target, block)}: x is left unmodified", device)


@pytest.mark.points(2)
@pytest.mark.parametrize("activation", [None, "relu", "silu", "gelu_tanh"],
                         ids=["default", "relu", "silu", "gelu_tanh_partial"])
def test_parity_with_reference(target, reference, block, gen, activation, device):
    # 4-D input for the default: the parity is position-wise for any number of leading dimensions.
    shape = (2, 3, 4, HIDDEN) if activation is None else (3, 5, HIDDEN)
    got, weights, x, ctor = run(target, block, gen, shape=shape, activation=activation, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, activation=activation)
    what = f"{forward_where(target, block)} with activation_fn={activation or 'default (nn.GELU)'}"
    out, ref = got["out"], want["out"]
    todo, method = block.forward_todo, "forward"
    if out.shape != ref.shape:
        hint = (LEADING_DIMS_HINT if out.shape[-1:] == ref.shape[-1:] else
                "the output's last dimension must be hidden_dim: Wo maps intermediate_dim back to hidden_dim")
        cause = shape_cause(out.shape, ref.shape)
    elif out.dtype != ref.dtype:
        hint, cause = DTYPE_HINT, "output dtype"
    else:
        found = parity_diagnosis(target, reference, block, weights, x, out, ref, activation)
        if found.in_init:
            todo, method = block.init_todo, "__init__"
        if found.certain or not is_close(out, ref, 1e-9, 1e-10):
            cause, hint = found.cause, found.hint
            if not found.certain and float32_close(out, ref):
                cause, hint = "computes in float32", float32_hint(f"{block.name}.forward")
            if found.certain:
                fail(f"{where(target, block, todo, method)} with activation_fn={activation or 'default (nn.GELU)'}"
                     f" differs from the reference: {hint}", cause=cause, todo=todo)
        else:
            cause, hint = "unexplained", ""
    what = f"{where(target, block, todo, method)} with activation_fn={activation or 'default (nn.GELU)'}"
    expect_close(out, ref, what, hint, cause=cause, todo=todo)


@pytest.mark.points(2)
def test_gradients(target, reference, block, gen, device):
    got, weights, x, _ = run(target, block, gen, backward=True, device=device)
    want, *_ = run(reference, block, gen, weights=weights, x=x, backward=True, grad_out=got["grad_out"])
    detached = ("no gradient reached {name}: something in forward cuts the graph (.detach(), .data,"
                " torch.no_grad(), or a tensor rebuilt from values)")
    if got["grad_x"] is None:
        fail(f"{forward_where(target, block)}: " + detached.format(name="the input x"), cause="graph cut",
             todo=block.forward_todo)
    # Every missing gradient before any wrong value: "no gradient reached Wg.weight" says more
    # than "the gradient of x differs".
    absent = [name for name in want["grads"] if name not in got["grads"]]
    if absent:
        fail(f"{where(target, block, block.init_todo, '__init__')}: the block has no {', '.join(absent)}, so"
             " there is no gradient of it to check; build every layer as nn.Linear(..., bias=True), the default",
             cause=missing_cause(absent), todo=block.init_todo)
    cut = [name for name in want["grads"] if got["grads"][name] is None]
    if cut:
        fail(f"{forward_where(target, block)}: " + detached.format(name=", ".join(cut)), cause="graph cut",
             todo=block.forward_todo)
    fw, cause = forward_where(target, block), "unexplained"
    if is_close(got["out"], want["out"], 1e-9, 1e-10):
        hint = "the forward output matches, so look for an op that is not differentiable as written"
    elif float32_close(got["out"], want["out"]) and got["out"].dtype == want["out"].dtype:
        hint, cause = float32_hint(f"{block.name}.forward"), "computes in float32"
    else:
        wrong = [name for name, grad in [("x", want["grad_x"]), *want["grads"].items()]
                 if not is_close(got["grad_x"] if name == "x" else got["grads"][name], grad, 1e-9, 1e-10)]
        if wrong:  # one cause, told by the parity test: this one waits on it instead of guessing a second
            fail(f"{fw}: the gradients of {', '.join(wrong)} differ, and the forward output already differs: this counts"
                 f" once test_parity_with_reference[default-{block.name}] passes (it says how)",
                 waits_on=f"test_parity_with_reference[default-{block.name}]")
        hint = ""
    expect_close(got["grad_x"], want["grad_x"], f"{fw}: gradient with respect to the input x", hint, cause=cause,
                 todo=block.forward_todo)
    for name, grad in want["grads"].items():
        expect_close(got["grads"][name], grad, f"{fw}: gradient of {name}", hint, cause=cause, todo=block.forward_todo)


# ---------------------------------------------------------------------------------- dropout

@pytest.mark.points(1)
def test_dropout_off_in_eval_mode(target, reference, block, gen, device):
    out, clean, *_ = dropout_run(target, reference, block, gen, device, train=False)
    hint = ("dropout must do nothing in eval mode: apply the nn.Dropout module made in __init__"
            f" ({block.init_todo}), or F.dropout(..., training=self.training); training=True, or an"
            " nn.Dropout built inside forward, keeps dropping after model.eval()")
    expect_close(out, clean, f"{forward_where(target, block)} in eval mode with dropout={P}", hint,
                 cause="dropout in eval mode", todo=block.forward_todo, against="its own output with dropout=0.0")


@pytest.mark.points(1)
def test_dropout_zero_changes_nothing_in_training(target, reference, block, gen, device):
    out, clean, *_ = dropout_run(target, reference, block, gen, device, dropout=0.0)
    hint, cause = "", "unexplained"
    if not is_close(out, clean, 1e-9, 1e-10):
        share = (out == 0).double().mean().item()
        if share > 0.99:
            cause = "dropout rate is the share kept"
            hint = ("every output is zero: the dropout module got 1 - dropout, but its rate is the share"
                    f" dropped, so pass `dropout` itself: nn.Dropout(dropout) in __init__ ({block.init_todo})")
        elif share > 0.01:
            cause = "dropout rate ignored"
            hint = (f"{share:.2f} of the outputs are zero although dropout=0.0: the dropout module does not"
                    " get the `dropout` argument (nn.Dropout() drops 0.5 by default); create it as"
                    f" nn.Dropout(dropout) in __init__ ({block.init_todo})")
        else:
            hint = "with dropout=0.0 the training-mode output equals the eval-mode output"
    expect_close(out, clean, f"{forward_where(target, block)} in training mode with dropout=0.0", hint, cause=cause,
                 todo=block.init_todo if cause.startswith("dropout rate") else block.forward_todo,
                 against="its own output in eval mode")


@pytest.mark.points(2)
def test_dropout_share_of_zeros(target, reference, block, gen, device):
    out, clean, weights, x = dropout_run(target, reference, block, gen, device)
    fw = forward_where(target, block)
    expect_shape(out.shape, clean.shape, f"{fw} in training mode")
    share = (out == 0).double().mean().item()
    bound = 6 * math.sqrt(P * (1 - P) / out.numel())  # six standard deviations of a binomial share
    if abs(share - P) <= bound:
        return
    if share == 0 and is_close(out, clean, 1e-9, 1e-10):
        fail(f"{fw} with dropout={P} in training mode changed nothing: create the dropout module with rate"
             f" `dropout` in __init__ ({block.init_todo}) and apply it last in forward", cause="dropout never applied")
    # x + dropout(y) has no zeros, but out - x has exactly the dropped ones.
    if abs(((out - x) == 0).double().mean().item() - P) <= bound:
        fail(f"{fw} with dropout={P}: out - x has the expected share of zeros, so the block adds its input x"
             " after dropout: the residual connection belongs outside the block; dropout(Wo(...)) is the"
             " whole output", cause="residual inside block")
    if share < P / 10 and not is_close(out, clean, 1e-9, 1e-10):
        fail(f"{fw} with dropout={P}: the output changed but has almost no exact zeros ({share:.3f}):"
             " dropout is applied earlier in the block (to x or to the hidden activations, before Wo);"
             " it belongs after Wo, on the block's output", cause="dropout not last", todo=block.forward_todo)
    if abs(share - (1 - P)) <= bound:
        fail(f"{fw} with dropout={P}: {share:.3f} of the outputs are exactly zero, that is 1 - p: the rate"
             f" is the share dropped, not kept; pass it unchanged, nn.Dropout(dropout) ({block.init_todo})",
             cause="dropout rate is the share kept", todo=block.init_todo)
    if abs(share - 0.5) <= bound:
        fail(f"{fw} with dropout={P}: {share:.3f} of the outputs are exactly zero, as with nn.Dropout()'s"
             f" default rate 0.5: pass the rate, nn.Dropout(dropout), in __init__ ({block.init_todo})",
             cause="dropout rate ignored", todo=block.init_todo)
    fail(f"{fw} with dropout={P}: {share:.3f} of the outputs are exactly zero, expected"
         f" {P} +- {bound:.3f}; is the rate passed through unchanged (p is the share dropped, not kept)?",
         cause="dropout share", todo=block.init_todo)


@pytest.mark.points(2)
def test_dropout_kept_outputs_scaled(target, reference, block, gen, device):
    out, clean, weights, x = dropout_run(target, reference, block, gen, device)
    fw = forward_where(target, block)
    expect_shape(out.shape, clean.shape, f"{fw} in training mode")
    kept = out != 0
    if kept.all():
        fail(f"{fw} with dropout={P} dropped no outputs, so which it kept cannot be told: this counts once"
             f" test_dropout_share_of_zeros passes, which says why", waits_on=f"test_dropout_share_of_zeros[{block.name}]")
    scaled = clean[kept] / (1 - P)
    # Judged at the precision the block computes in: a float64 block that computes or returns float32
    # (its every output a float32 number, or a float32 tensor) rounds the scaling there too; that cast
    # costs the dtype and parity tests, not this.
    in_float32 = clean.dtype == torch.float32 or torch.equal(clean.float().to(clean.dtype), clean)
    rtol = 1e-6 if in_float32 else 1e-9
    if is_close(out[kept], clean[kept], rtol, 1e-10):
        fail(f"{fw} with dropout={P}: kept outputs equal the eval output, but training-mode"
             f" dropout scales them by 1/(1-p) = {1 / (1 - P):.4f} so the expected value is unchanged",
             cause="dropout not scaled", todo=block.forward_todo)
    hint, cause = "each kept output must equal the eval-mode output divided by (1 - p); is dropout the last step?", "unexplained"
    if out.dtype != clean.dtype:
        hint, cause = f"{DTYPE_HINT} (test_dtype_kept)", "output dtype"
    elif not is_close(out[kept], scaled, rtol, 1e-10):
        ratio = (out[kept] / clean[kept]).median().item()
        if ratio > 1 and is_close(out[kept], clean[kept] * ratio, rtol, 1e-10):
            # kept outputs all scaled by one wrong factor 1/(1-q): the mask used rate q, not p
            rate = 1 - 1 / ratio
            cause = ("dropout rate is the share kept" if abs(rate - (1 - P)) < 0.01 else
                     "dropout rate ignored" if abs(rate - 0.5) < 0.01 else "dropout rate")
            hint = (f"they are scaled by {ratio:.4f} = 1/(1 - {1 - 1 / ratio:.2f}) instead of 1/(1 - p) ="
                    f" {1 / (1 - P):.4f}: the dropout module uses another rate than `dropout`; create it as"
                    f" nn.Dropout(dropout) in __init__ ({block.init_todo})")
    expect_close(out[kept], scaled, f"{fw}: kept outputs in training mode with dropout={P}", hint, rtol=rtol,
                 cause=cause, todo=block.init_todo if cause.startswith("dropout rate") else block.forward_todo,
                 against="its own output with dropout=0.0, divided by (1 - p)")
