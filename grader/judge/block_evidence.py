"""What a block's own behaviour says about it, whatever else is wrong with it: the MLP suite's evidence
that needs no list of mistakes.

* ``structure_fault``: whether the output is computed from the block's parameters the way the
  architecture says, whatever the activation: with Wo's weight zero the output is Wo's bias (nothing
  else reaches the output), the output is linear in Wo's weight (no op after Wo), and what Wo gets
  varies with the input. A placeholder (zeros, the input itself, a constant) fails it; a block with
  any activation, any float precision or a wrong inner formula passes, so its shapes, dtype and
  dropout count, and its parity and gradient tests alone carry the forward mistake.
* ``forward_fails_past_its_layers``: the forward raises, but only after its layers took the input (a linear
  layer's forward began, and the error changes with the input's width), so a right construction keeps the
  construction tests' points.
* ``ignores_activation_fn``: the block gives the same output whatever ``activation_fn`` it is given.
* ``parity_diagnosis``: why an output differs from the reference's. A known mistake whose output
  lies within float32 of the reference's (tanh GELU with sqrt(2/pi) cut to 8 digits) is told by which
  of the two the output is nearer to, by orders of magnitude, never by a tolerance that sits next to
  the deviation, so the verdict cannot move with the data.

Each verdict about the code is computed once per session, on data drawn from the session's seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from grader.judge.block_runs import HIDDEN, INTERMEDIATE, forward, layout_of, missing_cause, run
from grader.judge.checks import Block, diagnosis, diagnosis_input, float32_close, is_close, named_mistake, random_weights
from grader.judge.kernel_target import drawn
from grader.probes.errors import ENTERED

NEARER = 1e3  # a known mistake is the output's cause where the output is this many times nearer to it
_VERDICTS: dict[tuple, object] = {}


def once(key: tuple, compute):
    if key not in _VERDICTS:
        _VERDICTS[key] = compute()
    return _VERDICTS[key]


def close_to(got: torch.Tensor, want: torch.Tensor, scale: torch.Tensor) -> bool:
    """``got`` equals ``want`` to float32 precision of the values involved (``scale``'s largest). Nothing that is
    not finite is close: one inf in ``scale`` would make the tolerance infinite, a NaN would make it no number."""
    if got.shape != want.shape or not all(bool(torch.isfinite(t).all()) for t in (got, want, scale)):
        return False
    return is_close(got, want, 1e-5, 1e-5 * float(scale.abs().max()) + 1e-300)


def structure_fault(target, block: Block) -> str:
    """"" when the block computes like a block (see the module's docstring); else what its output shows."""
    return once((id(target), block.name, "structure"), lambda: _structure_fault(target, block))


def _structure_fault(target, block: Block) -> str:
    layout = layout_of(target, block)
    if layout is None:
        return "its parameters cannot be matched to the interface's layers (test_layer_names says how)"
    if block.output_layer is None:
        return ""  # no layer gives the output: nothing here to judge it by
    wo = block.output_layer
    gen = drawn(f"block structure {block.name}")
    weights = random_weights(block, HIDDEN, INTERMEDIATE, gen)
    x = torch.randn(16, HIDDEN, generator=gen, dtype=torch.float64) * 1.5
    width = weights[f"{wo}.weight"].shape[0]  # the block's output width: its output layer's
    bias = weights[f"{wo}.bias"] if f"{wo}.bias" in layout.names.values() else torch.zeros(width, dtype=torch.float64)
    other = torch.randn(weights[f"{wo}.weight"].shape, generator=gen, dtype=torch.float64)

    def out(weight: torch.Tensor) -> torch.Tensor | None:
        evidence = forward(target, block, layout, {**weights, f"{wo}.weight": weight}, x)
        shape = (*x.shape[:-1], width)
        return None if "error" in evidence or tuple(evidence["out"].shape) != shape else evidence["out"].double()

    base, zero = out(weights[f"{wo}.weight"]), out(torch.zeros_like(other))
    if base is None or zero is None:
        return ("it does not give an output of the input's shape" if width == x.shape[-1]
                else f"it does not give an output of {wo}'s width at every position of the input")
    if not all(bool(torch.isfinite(t).all()) for t in (base, zero)):  # finite weights and input: a block's is finite
        return "its output holds inf or NaN for finite weights and inputs, so it is not its layers' output"
    scale = torch.cat([base.reshape(-1), bias])
    if not close_to(zero, bias.expand_as(zero), scale):
        return (f"with {wo}'s weight set to zero its output is not {wo}'s bias, so something other than {wo}(...)"
                f" reaches the output (the input x, a residual connection, an operation after {wo})")
    moved, both = out(other), out(weights[f"{wo}.weight"] + other)
    if moved is None or both is None or not close_to(both - bias, (base - bias) + (moved - bias), scale):
        return f"its output is not linear in {wo}'s weight, so an operation comes after {wo}"
    hidden = base - bias
    if close_to(hidden, (hidden[:1]).expand_as(hidden), scale):
        return f"its output is the same for every input position, so {wo} does not get the input's projection"
    return ""


def forward_fails_past_its_layers(target, block: Block) -> bool:
    """Whether the block's forward raises only after its layers took the input: given an input one column wider
    than hidden_dim it raises another error, or at another place, than given the input it was built for. The
    construction tests then count, the forward's fault being elsewhere (its own tests tell it). A placeholder
    earns nothing by it: a forward that raises whatever its input (``raise``, ``return None``) raises the same
    on both, a stub's NotImplementedError is no fault of the forward, and one that computes nothing from its
    layers has no structure (``structure_fault``) and raises nothing."""
    def compute() -> bool:
        layout = layout_of(target, block)
        if layout is None or not structure_fault(target, block):
            return False
        gen = drawn(f"block forward past its layers {block.name}")
        weights = random_weights(block, HIDDEN, INTERMEDIATE, gen)
        errors = [forward(target, block, layout, weights, torch.randn(4, width, generator=gen, dtype=torch.float64)
                          ).get("error") for width in (HIDDEN, HIDDEN + 1)]
        stage = f"{block.name}.forward"
        if any(error is None or error.get("stage") != stage or error.get("not_implemented") for error in errors):
            return False
        # A layer took the input it was built for before the forward raised: its error is no choice made on the
        # input's width before any layer ran (a placeholder raising one error or another as x.shape[-1] says).
        return bool(errors[0].get(ENTERED)) and len({(error.get("type"), error.get("where")) for error in errors}) == 2

    return once((id(target), block.name, "forward past its layers"), compute)


def output_explained(reference, block: Block, weights: dict, x: torch.Tensor, out: torch.Tensor) -> bool:
    """Whether ``out`` (for float64 ``x``) is the reference's output to float32 precision, or a named mistake's."""
    want, *_ = run(reference, block, None, weights=weights, x=x)
    return float32_close(out, want["out"]) or named_mistake(reference, block, weights, x, out, None) is not None


def ignores_activation_fn(target, block: Block) -> bool:
    """Whether the block's output is the same with activation_fn=ReLU and with activation_fn=SiLU."""
    def compute() -> bool:
        layout = layout_of(target, block)
        if layout is None:
            return False
        gen = drawn(f"activation_fn {block.name}")
        weights = random_weights(block, HIDDEN, INTERMEDIATE, gen)
        x = torch.randn(16, HIDDEN, generator=gen, dtype=torch.float64) * 1.5
        outs = [forward(target, block, layout, weights, x, activation=name) for name in ("relu", "silu")]
        return all("error" not in o for o in outs) and torch.equal(outs[0]["out"], outs[1]["out"])
    return once((id(target), block.name, "activation_fn"), compute)


@dataclass(frozen=True)
class Diagnosis:
    cause: str
    hint: str
    in_init: bool = False  # the cause lives in __init__ (the activation built there, the layers' biases)
    certain: bool = False  # the output is this mistake's however close to the reference it comes


def extra_cause(block: Block, layout) -> str:
    """The cause id of parameters the interface does not have: the same in every test they fail, in
    either block (a cause id names the mistake, never the block or a value: pytest's summary and the
    feedback group by it)."""
    return "extra parameters"


def parity_diagnosis(target, reference, block: Block, weights: dict, x: torch.Tensor, out: torch.Tensor,
                     ref: torch.Tensor, activation: str | None) -> Diagnosis:
    """Why ``out`` (float64 ``x``) is not the reference's ``ref``, as the student would fix it."""
    near = nearest_mistake(reference, block, weights, x, out, ref, activation)
    if near is not None:
        return Diagnosis(*near, certain=True)
    layout = layout_of(target, block)
    if layout is not None and layout.missing:
        names = ", ".join(layout.missing)
        return Diagnosis(missing_cause(layout.missing), f"the block has no {names}: build every layer as"
                         " nn.Linear(..., bias=True), the default", in_init=True)
    cause, hint, in_init = diagnosis(reference, block, weights, x, out, activation)
    if cause == "unexplained" and layout is not None and layout.extra:
        return Diagnosis(extra_cause(block, layout), f"the block has parameters of its own ({', '.join(layout.extra)}),"
                         " and what they compute is not in the block's formula: the transformer layer owns the"
                         " LayerNorm and the residual; keep only the block's linear layers", in_init=True)
    if cause == "unexplained" and ignores_activation_fn(target, block):
        return Diagnosis("activation_fn ignored", "the block gives the same output whatever"
                         f" activation_fn it is given: build the activation by calling activation_fn() in"
                         f" __init__ ({block.init_todo}), don't hard-code one", in_init=True)
    return Diagnosis(cause, hint, in_init)


def nearest_mistake(reference, block: Block, weights: dict, x: torch.Tensor, out: torch.Tensor, ref: torch.Tensor,
                    activation: str | None) -> tuple[str, str, bool] | None:
    """(cause, hint, in_init) of a known mistake the output is far nearer to than to the reference's output,
    among those within float32 of the reference (the others are told by ``diagnosis``)."""
    if out.shape != ref.shape or out.dtype != torch.float64:
        return None
    rows, got = diagnosis_input(x), out.reshape(-1, out.shape[-1])[:len(diagnosis_input(x))]
    want = ref.reshape(-1, ref.shape[-1])[:len(rows)]
    from_ref = float((got - want).abs().max())
    for cause, hint, candidate, in_init in reference.mistakes(block.name, weights, rows, activation):
        if float32_close(candidate, want) and float((got - candidate).abs().max()) * NEARER < from_ref:
            return cause, hint, in_init
    return None
