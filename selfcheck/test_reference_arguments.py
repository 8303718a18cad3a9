"""The reference rejects bad constructor arguments with a ValueError naming the argument."""

from __future__ import annotations

import functools

import pytest
import torch
from torch import nn

from grader.probes import load_module
from grader.judge.seam import exercise_file

pytestmark = [pytest.mark.mlp, pytest.mark.glu, pytest.mark.cost]  # python -m selfcheck --task: the tasks this checks

reference = load_module(str(exercise_file("reference", "mlp_block")), "_selfcheck_reference_mlp_block")

BAD = [
    ({"hidden_dim": 0}, "hidden_dim"),
    ({"hidden_dim": -4}, "hidden_dim"),
    ({"hidden_dim": 4.0}, "hidden_dim"),
    ({"hidden_dim": True}, "hidden_dim"),
    ({"intermediate_dim": 0}, "intermediate_dim"),
    ({"intermediate_dim": "16"}, "intermediate_dim"),
    ({"dropout": 1.0}, "dropout"),
    ({"dropout": -0.1}, "dropout"),
    ({"dropout": "0.1"}, "dropout"),
    ({"activation_fn": nn.GELU()(torch.zeros(1))}, "activation_fn"),
    ({"activation_fn": "gelu"}, "activation_fn"),
]


@pytest.mark.parametrize("cls", ["MLP", "GLU"])
@pytest.mark.parametrize("override,argument", BAD, ids=[f"{a}={o[a]!r}" for o, a in BAD])
def test_bad_argument_names_itself(cls, override, argument):
    kwargs = {"hidden_dim": 4, "intermediate_dim": 8, "activation_fn": nn.GELU, "dropout": 0.0, **override}
    with pytest.raises(ValueError, match=argument):
        getattr(reference, cls)(**kwargs)


@pytest.mark.parametrize("cls", ["MLP", "GLU"])
@pytest.mark.parametrize("activation_fn", [nn.GELU, nn.ReLU, nn.SiLU, functools.partial(nn.GELU, approximate="tanh")])
def test_good_arguments_accepted(cls, activation_fn):
    block = getattr(reference, cls)(4, 8, activation_fn=activation_fn, dropout=0.5)
    assert block(torch.zeros(2, 4)).shape == (2, 4)


# ------------------------------------------------------------------------ the cost exercise

cost = load_module(str(exercise_file("reference", "mlp_cost")), "_selfcheck_reference_mlp_cost")

COST_FUNCTIONS = ["mlp_param_count", "glu_param_count", "mlp_forward_flops", "glu_forward_flops",
                  "mlp_backward_flops", "glu_backward_flops"]
BAD_SIZES = [({"hidden_dim": 0}, "hidden_dim"), ({"hidden_dim": 8.0}, "hidden_dim"),
             ({"intermediate_dim": -1}, "intermediate_dim"), ({"intermediate_dim": True}, "intermediate_dim"),
             ({"bias": 1}, "bias"), ({"bias": "no"}, "bias")]
BAD_SIZING = [({"hidden_dim": 0}, "hidden_dim"), ({"expansion": 0}, "expansion"), ({"expansion": "4"}, "expansion"),
              ({"expansion": 4.15}, "expansion"), ({"multiple_of": 0}, "multiple_of"),
              ({"multiple_of": 2.0}, "multiple_of"), ({"bias": None}, "bias")]


@pytest.mark.parametrize("function", COST_FUNCTIONS)
@pytest.mark.parametrize("override,argument", BAD_SIZES, ids=[f"{a}={o[a]!r}" for o, a in BAD_SIZES])
def test_cost_bad_argument_names_itself(function, override, argument):
    with pytest.raises(ValueError, match=argument):
        getattr(cost, function)(**{"hidden_dim": 8, "intermediate_dim": 12, "bias": True, **override})


@pytest.mark.parametrize("override,argument", BAD_SIZING, ids=[f"{a}={o[a]!r}" for o, a in BAD_SIZING])
def test_sizing_bad_argument_names_itself(override, argument):
    with pytest.raises(ValueError, match=argument):
        cost.glu_intermediate_dim(**{"hidden_dim": 10, "expansion": 4, "multiple_of": 8, "bias": True, **override})


def test_sizing_takes_expansion_as_written():
    assert cost.glu_intermediate_dim(10, 4.1, bias=False) == 28  # the MLP is 41 wide: 2/3 of 41 is 27.3
