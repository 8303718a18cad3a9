"""The shared block helpers take any block a task declares, not MLP and GLU alone: here a block with a
norm's scale vector (a parameter that is no linear layer's) and linear layers without biases, the shape of
an RMSNorm-then-projection task. Its layers are matched whatever the student names them, its scale by its
name, and what is missing or extra is told by the cause ids the suites use."""

from __future__ import annotations

import torch

from grader.judge.block_runs import HIDDEN, INTERMEDIATE, candidate_layouts, layers_cause, missing_cause
from grader.judge.checks import Block, random_weights

NORMED = Block("NormedProjection", "normed_projection", "TODO 1", "TODO 2", {"Wi": ("hidden", "intermediate")},
               "hidden + hidden*intermediate", lambda h, i: h + h * i, output_layer="Wi", parameters={"weight": ("hidden",)},
               biases=False)
WANT = {"Wi.weight": [INTERMEDIATE, HIDDEN], "weight": [HIDDEN]}


def test_its_parameters_are_its_layers_and_its_scale():
    assert NORMED.layer_shapes(HIDDEN, INTERMEDIATE) == WANT
    assert sum(torch.Size(shape).numel() for shape in WANT.values()) == NORMED.count(HIDDEN, INTERMEDIATE)
    weights = random_weights(NORMED, HIDDEN, INTERMEDIATE, torch.Generator().manual_seed(0))
    assert set(weights) == set(WANT)
    scale = weights["weight"]
    assert 0.5 < float(scale.mean()) < 1.5 and float(scale.std()) > 0.1, "the scale is drawn about one, not about zero"


def test_a_layer_named_otherwise_is_matched_and_the_scale_by_name():
    [layout] = candidate_layouts(NORMED, {"proj.weight": [INTERMEDIATE, HIDDEN], "weight": [HIDDEN]})
    assert layout.names == {"proj.weight": "Wi.weight", "weight": "weight"}
    assert layout.missing == [] and layout.extra == []
    assert layers_cause({"Wi.weight": [INTERMEDIATE, HIDDEN], "weight": [HIDDEN]}, WANT) == ""


def test_a_missing_scale_and_an_extra_bias_are_told():
    [layout] = candidate_layouts(NORMED, {"Wi.weight": [INTERMEDIATE, HIDDEN], "Wi.bias": [INTERMEDIATE]})
    assert layout.missing == ["weight"] and layout.extra == ["Wi.bias"]
    assert missing_cause(layout.missing) == "missing layers"
    assert layers_cause({"Wi.weight": [INTERMEDIATE, HIDDEN]}, WANT) == "missing layers"
    assert layers_cause({**WANT, "Wi.bias": [INTERMEDIATE]}, WANT) == "extra parameters"
    assert layers_cause({"Wi.weight": [HIDDEN, INTERMEDIATE], "weight": [HIDDEN]}, WANT) == "layer shapes: Wi"


def test_a_layer_or_a_scale_no_shape_matches_has_no_layout():
    """Wi, or the scale, of the wrong shape: no layout stands for the interface's (test_parameter_shapes' to tell,
    by the layer's name: the scale is neither missing nor extra)."""
    assert candidate_layouts(NORMED, {"Wi.weight": [HIDDEN, HIDDEN], "weight": [HIDDEN]}) == []
    assert candidate_layouts(NORMED, {"Wi.weight": [INTERMEDIATE, HIDDEN], "weight": [INTERMEDIATE]}) == []
    assert layers_cause({"Wi.weight": [INTERMEDIATE, HIDDEN], "weight": [INTERMEDIATE]}, WANT) == "layer shapes: weight"


class NormedTarget:
    """Code under test for NORMED, in this process: the block (RMS-normalised x, scaled, then Wi), or a forward
    that returns zeros of the right shape. ``evidence`` answers the two probes the helpers ask."""

    def __init__(self, placeholder: bool) -> None:
        self.placeholder = placeholder

    def evidence(self, exercise, probe, cls_name, ctor, state_dict=None, x=None, strict=True):
        if probe == "describe_block":
            return {"param_shapes": dict(WANT), "state_dict_keys": list(WANT)}
        normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * state_dict["weight"]
        out = normed @ state_dict["Wi.weight"].T
        return {"out": torch.zeros_like(out) if self.placeholder else out}


def test_the_output_layer_tells_a_block_from_a_placeholder():
    from grader.judge.block_evidence import structure_fault

    right, placeholder = NormedTarget(placeholder=False), NormedTarget(placeholder=True)  # alive: verdicts are per target
    assert structure_fault(right, NORMED) == ""
    assert "the same for every input position, so Wi does not get" in structure_fault(placeholder, NORMED)


def test_a_module_class_stored_uncalled_is_named_whatever_the_class():
    """The hint for ``self.act = activation_fn`` reads the block itself, not a list of activation classes."""
    import functools

    from torch import nn

    from grader.judge.checks import ACTIVATION_NOT_BUILT, error_diagnosis
    from grader.probes.blocks import uncalled_modules

    block = nn.Module()
    block.act, block.gate, block.proj = functools.partial(nn.GELU, approximate="tanh"), nn.Sigmoid, nn.Linear(2, 2)
    assert uncalled_modules(block) == ["act", "gate"]
    hint, cause = error_diagnosis(NORMED, {"type": "TypeError", "message": "anything", "uncalled_modules": "act, gate"})
    assert cause == ACTIVATION_NOT_BUILT and "self.act, self.gate hold a module's class" in hint
    kept = nn.Module()  # the class kept beside the module built from it: nothing uncalled
    kept.activation_fn, kept.act = nn.SiLU, nn.SiLU()
    assert uncalled_modules(kept) == []
    assert error_diagnosis(NORMED, {"type": "TypeError", "message": "must be Tensor, not Sigmoid"}) == ("", "")
