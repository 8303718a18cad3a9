"""Running a block (MLP, GLU, FusedSwiGLU) on weights and inputs the test picks: the sizes the suites
share, ``run``, which the MLP suite and the fused block's tests both call, and how the test's weights
reach a block whose layers are named otherwise.

The test's weights carry the interface's names (``Wi.weight``, ...). A block that names its layers
otherwise (``fc1``/``fc2``, LLaMA's ``w1``/``w2``/``w3``), packs the gate and value projections into
one layer (timm's ``GluMlp``: ``fc1`` of ``2 * intermediate`` outputs, split with ``chunk``), lacks a bias or
holds an extra parameter still has its maths judged: its parameters are matched to the interface's by
shape and role (``layout_of``), the weights are loaded under its own names (a packed layer gets the two
halves stacked), and its gradients are told under the interface's. Only the tests of the names
themselves are charged for the names.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import torch

from grader.judge.checks import Block, error_diagnosis, fail, float32_close, random_weights
from grader.judge.seam import LAYER_TESTS, Reference, error_fields, format_error

HIDDEN, INTERMEDIATE = 8, 12  # different, so a transposed layer cannot go unnoticed
CTOR = {"hidden_dim": HIDDEN, "intermediate_dim": INTERMEDIATE}
DROPOUT_SHAPE = (64, 32, HIDDEN)  # 16k outputs: the share of zeros is known to within a few 0.01
P = 0.3  # the dropout rate of the training-mode tests


@dataclass
class Layout:
    """How a block's own parameters stand for the interface's: ``names`` maps the block's name of each
    matched parameter to the interface's; ``missing`` are the interface's parameters it lacks (biases),
    ``extra`` its parameters the interface has none of (kept at the block's own initial values);
    ``packed`` the block's parameters that hold two of the interface's, stacked along the outputs in
    this order."""
    names: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    packed: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def renamed(self) -> dict[str, str]:
        return {own: name for own, name in self.names.items() if own != name}

    def own_weights(self, weights: dict) -> dict:
        own = {mine: weights[name] for mine, name in self.names.items()}
        own.update({mine: torch.cat([weights[first], weights[second]]) for mine, (first, second) in self.packed.items()})
        return own

    def interface_grads(self, grads: dict) -> dict:
        told = {self.names[own]: grad for own, grad in grads.items() if own in self.names}
        for own, pair in self.packed.items():
            if grads.get(own) is not None:
                told.update(zip(pair, grads[own].chunk(2)))
        return told

    def interface_shapes(self, shapes: dict[str, list[int]]) -> dict[str, list[int]]:
        """The block's parameter shapes under the interface's names (a packed layer's halves each)."""
        told = {self.names.get(name, name): shape for name, shape in shapes.items() if name not in self.packed}
        for own, pair in self.packed.items():
            told.update(dict.fromkeys(pair, [shapes[own][0] // 2, *shapes[own][1:]]))
        return told

    def renaming_text(self) -> str:
        return ", ".join(f"self.{own.split('.')[0]} -> self.{name.split('.')[0]}"
                         for own, name in sorted(self.renamed.items()) if own.endswith(".weight"))


PLAIN = Layout()
_LAYOUTS: dict[tuple[int, str], Layout | None] = {}


def layers_of(shapes: dict[str, list[int]]) -> dict[str, dict[str, list[int]]]:
    """{layer: {"weight": shape, "bias": shape}} of the parameters named ``<layer>.weight`` / ``.bias``."""
    layers: dict[str, dict[str, list[int]]] = {}
    for name, shape in shapes.items():
        layer, _, kind = name.rpartition(".")
        if kind in ("weight", "bias") and layer:
            layers.setdefault(layer, {})[kind] = shape
    return layers


def candidate_layouts(block: Block, shapes: dict[str, list[int]]) -> list[Layout]:
    """Every way to match the block's linear layers to the interface's by their weights' shapes, each with
    what is missing and extra; empty where some layer of the interface has no match. The interface's other
    parameters (``Block.parameters``) are matched by name alone. As for a linear layer of the interface's name,
    such a parameter of the wrong shape leaves no layout (test_parameter_shapes names it): it is neither
    missing nor extra."""
    others = block.parameter_shapes(HIDDEN, INTERMEDIATE)
    if any(name in shapes and shapes[name] != shape for name, shape in others.items()):
        return []
    linear = {name: shape for name, shape in shapes.items() if name not in others}
    want, own = layers_of(block.linear_shapes(HIDDEN, INTERMEDIATE)), layers_of(linear)
    layouts = candidate_layouts_of(want, own, linear) or packed_layouts(want, own, linear)
    for layout in layouts:
        for name in others:
            if name in shapes:
                layout.names[name] = name
            else:
                layout.missing.append(name)
        layout.extra = [name for name in shapes if name not in layout.names and name not in layout.packed]
    return layouts


def candidate_layouts_of(want: dict, own: dict, shapes: dict[str, list[int]]) -> list[Layout]:
    """``candidate_layouts`` for the interface's layers ``want`` and the block's ``own`` (``layers_of``)."""
    choices = []
    for layer, kinds in want.items():
        # A layer of the interface's name is that layer, whatever its shape (a wrong shape is
        # test_parameter_shapes' to report); only layers named otherwise are matched by shape.
        named = [layer] if layer in own else [name for name in own if name not in want]
        choices.append([name for name in named if own[name].get("weight") == kinds["weight"]])
    layouts = []
    for picked in itertools.product(*choices):
        if len(set(picked)) != len(picked):
            continue
        layout = Layout()
        for layer, mine in zip(want, picked):
            layout.names[f"{mine}.weight"] = f"{layer}.weight"
            if "bias" not in want[layer]:
                pass  # a layer without a bias: a bias of the block's own is extra
            elif own[mine].get("bias") == want[layer]["bias"]:
                layout.names[f"{mine}.bias"] = f"{layer}.bias"
            else:
                layout.missing.append(f"{layer}.bias")
        layout.extra = [name for name in shapes if name not in layout.names]
        layouts.append(layout)
    return layouts


def packed_layouts(want: dict, own: dict, shapes: dict[str, list[int]]) -> list[Layout]:
    """GLU's gate and value projections packed in one layer of twice their outputs, in either order
    (``layout_of`` tells which half carries the activation); the other layers matched as usual."""
    pair = [layer for layer in ("Wg", "Wv") if layer in want]
    if len(pair) != 2:
        return []
    half = want["Wg"]
    packed = [name for name, kinds in own.items() if name not in want
              and kinds.get("weight") == [2 * half["weight"][0], *half["weight"][1:]]]
    rest = {layer: kinds for layer, kinds in want.items() if layer not in pair}
    layouts = []
    for mine in packed:
        others = candidate_layouts_of(rest, {name: kinds for name, kinds in own.items() if name != mine}, shapes)
        for first, second in (("Wg", "Wv"), ("Wv", "Wg")):
            for layout in others:
                layout = Layout(dict(layout.names), list(layout.missing), [], {})
                layout.packed[f"{mine}.weight"] = (f"{first}.weight", f"{second}.weight")
                if "bias" not in half:
                    pass
                elif own[mine].get("bias") == [2 * half["bias"][0]]:
                    layout.packed[f"{mine}.bias"] = (f"{first}.bias", f"{second}.bias")
                else:
                    layout.missing += [f"{first}.bias", f"{second}.bias"]
                layout.extra = [name for name in shapes if name not in layout.names and name not in layout.packed]
                layouts.append(layout)
    return layouts


def layout_of(target, block: Block) -> Layout | None:
    """The block's layout (None where its parameters cannot stand for the interface's), found once per
    session. Where two layers could each be GLU's gate or value, the one that carries the activation is
    the gate: the output is linear in the value projection's parameters, and in the gate's it is not."""
    key = (id(target), block.name)
    if key not in _LAYOUTS:
        described = target.evidence(block.exercise, "describe_block", cls_name=block.name, ctor=CTOR)
        if "error" in described:
            return None  # not cached: the construction error is the test's to report
        shapes = described["param_shapes"]
        if all(shapes.get(name) == shape for name, shape in block.layer_shapes(HIDDEN, INTERMEDIATE).items()):
            layout = Layout(names={n: n for n in block.layer_shapes(HIDDEN, INTERMEDIATE)},
                            extra=[n for n in shapes if n not in block.layer_shapes(HIDDEN, INTERMEDIATE)])
        else:
            layouts = candidate_layouts(block, shapes)
            if len(layouts) > 1 and "Wv" in block.layers:
                layouts.sort(key=lambda layout: not linear_in(target, block, layout, "Wv"))
            layout = layouts[0] if layouts else None
        _LAYOUTS[key] = layout
    return _LAYOUTS[key]


def linear_in(target, block: Block, layout: Layout, layer: str) -> bool:
    """Whether the block's output, less Wo's bias, is linear in ``layer``'s weight and bias together."""
    gen = torch.Generator().manual_seed(0)  # a property of the code, so any data shows it
    weights = random_weights(block, HIDDEN, INTERMEDIATE, gen)
    other = {k: torch.randn(v.shape, generator=gen, dtype=v.dtype) for k, v in weights.items() if k.startswith(f"{layer}.")}
    x = torch.randn(4, HIDDEN, generator=gen, dtype=torch.float64)
    offset = weights["Wo.bias"] if "Wo.bias" in layout.names.values() else 0.0

    def out(replaced: dict) -> torch.Tensor | None:
        evidence = forward(target, block, layout, {**weights, **replaced}, x)
        return None if "error" in evidence else evidence["out"] - offset

    a, b = out({}), out(other)
    both = out({k: weights[k] + other[k] for k in other})
    return a is not None and b is not None and both is not None and float32_close(both, a + b)


def forward(target, block: Block, layout: Layout, weights: dict, x: torch.Tensor, **ctor) -> dict:
    """The block's eval-mode output (raw evidence), the test's weights loaded under the block's own names."""
    return target.evidence(block.exercise, "run_block", cls_name=block.name, ctor=dict(CTOR, **ctor),
                           state_dict=layout.own_weights(weights), x=x.clone(), strict=not layout.extra)


def probe(target, block: Block, probe_name: str, **kwargs) -> dict:
    """Target.probe, with a hint added when the code under test raises a known kind of error."""
    evidence = target.evidence(block.exercise, probe_name, cls_name=block.name, **kwargs)
    if "error" in evidence:
        fail_on_error(target, block, evidence["error"])
    return evidence


def missing_cause(missing: list[str]) -> str:
    """The cause id of the interface's parameters a block lacks: its biases, or its layers."""
    return "no biases" if all(name.endswith(".bias") for name in missing) else "missing layers"


def layers_cause(shapes: dict, want: dict) -> str:
    """The cause id of layers that are not the interface's, from the block's own parameter shapes (its
    ``describe_block``): the one id of the layer test and of every test whose weights could not be loaded
    into them, so that one mistake of __init__ is one line; "" where the layers are the interface's."""
    missing = [name for name in want if name not in shapes]
    if missing:
        return missing_cause(missing)
    wrong = [name.split(".")[0] for name in want if list(shapes[name]) != list(want[name])]
    if wrong:
        return "layer shapes: " + ", ".join(dict.fromkeys(wrong))
    return "extra parameters" if set(shapes) - set(want) else ""


def fail_on_error(target, block: Block, error: dict) -> None:
    """Fail with the error the code under test raised, and the hint for it where one fits. A hint that names
    a mistake of __init__ comes first, with its cause (the same in every test it fails): it is what the
    student acts on, and the error the forward raised only shows it. So does a fused block's load of the
    test's weights refused by layers that are not the interface's: the layer test's cause."""
    if block.name in LAYER_TESTS and error.get("stage") == f"{block.name}.load_state_dict" and not error.get("not_implemented"):
        described = target.evidence(block.exercise, "describe_block", cls_name=block.name, ctor=CTOR)
        shapes = described.get("param_shapes") if "error" not in described else None
        if shapes is not None and (cause := layers_cause(shapes, block.layer_shapes(HIDDEN, INTERMEDIATE))):
            fail(f"{where(target, block, block.init_todo, '__init__')}: the layers are not the interface's, so the"
                 f" test's weights cannot be loaded [{format_error(error)}]", cause=cause, todo=block.init_todo)
    hint, cause = error_diagnosis(block, error)
    if cause:
        fail(f"{where(target, block, block.init_todo, '__init__')}: {hint} [{format_error(error)}]", cause=cause,
             todo=block.init_todo)
    fail(format_error(error) + (f"; {hint}" if hint else ""), **error_fields(error))


def run(target, block: Block, gen, shape=(2, 3, HIDDEN), activation=None, dropout=None, train=False,
        dtype=torch.float64, backward=False, device="cpu", weights=None, x=None, grad_out=None, **extra):
    """Run ``block`` with test-picked weights and input; returns (evidence, weights, x, ctor). The
    evidence's gradients are named as the interface names the parameters."""
    ctor = dict(CTOR, activation=activation, dropout=dropout)
    weights = weights if weights is not None else random_weights(block, HIDDEN, INTERMEDIATE, gen)
    x = x if x is not None else (torch.randn(shape, generator=gen, dtype=torch.float64) * 1.5).to(dtype)
    if backward and grad_out is None:
        grad_out = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(dtype)
    # The reference has the interface's names; a student's block may not (see the module's docstring).
    layout = PLAIN if isinstance(target, Reference) else layout_of(target, block)
    call = dict(cls_name=block.name, ctor=ctor, x=x.clone(), train=train, device=device,
                grad_out=None if grad_out is None else grad_out.clone(), **extra)
    # The code under test gets its own copies: in-process, an in-place x += ... would otherwise
    # change the input the reference is then run on, and the comparison would show garbage.
    if layout is None or layout is PLAIN:
        evidence = target.evidence(block.exercise, "run_block", state_dict=weights, **call)
    else:
        evidence = target.evidence(block.exercise, "run_block", state_dict=layout.own_weights(weights),
                                   strict=not layout.extra, **call)
        if evidence.get("grads"):
            evidence["grads"] = layout.interface_grads(evidence["grads"])
    if "error" in evidence:
        fail_on_error(target, block, evidence["error"])
    evidence["grad_out"] = grad_out
    return evidence, weights, x, ctor


def where(target, block: Block, todo: str, method: str) -> str:
    return f"{block.name}.{method} ({todo} in {target.where(block.exercise)})"


def forward_where(target, block: Block) -> str:
    return where(target, block, block.forward_todo, "forward")
