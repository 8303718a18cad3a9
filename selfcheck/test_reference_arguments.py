"""The reference rejects bad constructor arguments with a ValueError naming the argument."""

from __future__ import annotations

import functools

import pytest
import torch
from torch import nn

from grader.probes import load_module
from tests.seam import exercise_file

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
