"""The shared block helpers take any block a task declares, not MLP and GLU alone: here a block with a
norm's scale vector (a parameter that is no linear layer's) and linear layers without biases, the shape of
an RMSNorm-then-projection task. Its layers are matched whatever the student names them, its scale by its
name, and what is missing or extra is told by the cause ids the suites use."""

from __future__ import annotations

import torch

from grader.judge.block_runs import HIDDEN, INTERMEDIATE, candidate_layouts, layers_cause, missing_cause
from grader.judge.checks import Block, random_weights

NORMED = Block("NormedProjection", "normed_projection", "TODO 1", "TODO 2", {"Wi": ("hidden", "intermediate")},
               "hidden + hidden*intermediate", lambda h, i: h + h * i, parameters={"weight": ("hidden",)}, biases=False)
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


def test_a_layer_no_shape_matches_has_no_layout():
    """Wi of the wrong shape: no layout stands for the interface's (test_parameter_shapes' to tell)."""
    assert candidate_layouts(NORMED, {"Wi.weight": [HIDDEN, HIDDEN], "weight": [HIDDEN]}) == []
