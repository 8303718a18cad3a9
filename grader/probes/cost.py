"""The cost probes (exercises/mlp_cost.py): the student's counts, and the FLOPs their blocks really run."""

from __future__ import annotations

from types import ModuleType

import torch
from grader.probes.core import CodeUnderTestError, missing, run_stage, probe
from grader.probes.blocks import build_block


# ---------------------------------------------------------------------------- the cost probes

def _exact_param_count(weights_per_unit: int, biases_per_unit: int):
    """A parameter count as the exercise defines it (the formulas its docstring and the suites state)."""
    def count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
        return weights_per_unit * hidden_dim * intermediate_dim + (
            biases_per_unit * intermediate_dim + hidden_dim if bias else 0)
    return count


EXACT_COUNTS = {"mlp_param_count": _exact_param_count(2, 1), "glu_param_count": _exact_param_count(3, 2)}


@probe
def cost_function(module: ModuleType, function: str, kwargs: dict, exact_counts: bool = False) -> dict:
    """Call one function of the cost exercise (``mlp_param_count(hidden_dim=8, ...)``): what it returned.

    ``exact_counts``: with the module's own parameter counts replaced by right ones for the call, so a
    function that calls them (the matched width) is judged on its own arithmetic.
    """
    fn = getattr(module, function, None)
    if not callable(fn):
        raise CodeUnderTestError(function, missing(module, "function", function))
    saved = {name: module.__dict__[name] for name in EXACT_COUNTS if name in module.__dict__}
    if exact_counts:
        module.__dict__.update(EXACT_COUNTS)
    try:
        value = run_stage(function, fn, **kwargs)
    finally:
        module.__dict__.update(saved)
    return {"value": value if type(value) in (int, float) else None, "type": type(value).__name__,
            "repr": repr(value)[:80]}


@probe
def block_cost(module: ModuleType, cls_name: str, ctor: dict, x_shape: list[int]) -> dict:
    """A block built on the meta device (no memory, any size): its parameters, and the FLOPs that
    torch.utils.flop_counter.FlopCounterMode counts (matrix products only) in one forward pass on an
    input of ``x_shape`` and in the backward pass to that input and every parameter."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        block = build_block(module, cls_name, ctor)
        x = torch.empty(x_shape, requires_grad=True)
    with FlopCounterMode(display=False) as forward:
        out = run_stage(f"{cls_name}.forward", block, x)
    with FlopCounterMode(display=False) as backward:
        run_stage(f"{cls_name}.forward (backward pass)", out.backward, torch.ones_like(out))
    return {
        "params": sum(p.numel() for p in block.parameters()),
        "weights": sum(p.numel() for name, p in block.named_parameters() if name.endswith("weight")),
        "forward_flops": forward.get_total_flops(),
        "backward_flops": backward.get_total_flops(),
        "tokens": x.numel() // x_shape[-1],
    }


