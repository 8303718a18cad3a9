"""The MLP/GLU probes (exercises/mlp_block.py): build a block, load weights, run it forward and back."""

from __future__ import annotations

import functools

from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.probes.activations import ACTIVATIONS
from grader.probes.core import CodeUnderTestError, missing, to_cpu, run_stage, probe
from grader.probes.errors import ENTERED, UNCALLED

# --------------------------------------------------------------------------- the MLP/GLU probes

def seed_block_run(seed: int, device: str) -> None:
    """``torch.manual_seed(seed)`` for the generators a block on ``device`` draws from (its constructor's
    and its dropout's): the CPU's, and every CUDA device's where it runs there. The same state as
    ``torch.manual_seed``, without its visit to the backends the block does not run on (CUDA's on the CPU,
    XPU's, MTIA's), which, where that backend has not started, formats the caller's whole stack to keep
    with a deferred call: in the self-checks' graded runs, 12 of the trusted sessions' 154 CPU seconds (a
    profile of ``python -m selfcheck --step checks``)."""
    torch.random.default_generator.manual_seed(seed)
    if torch.device(device).type == "cuda":
        torch.cuda.manual_seed_all(seed)


def build_block(module: ModuleType, cls_name: str, ctor: dict) -> nn.Module:
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise CodeUnderTestError(
            cls_name, missing(module, "class", cls_name)
        )
    kwargs = dict(ctor)
    activation = kwargs.pop("activation", None)
    if activation is not None:
        kwargs["activation_fn"] = ACTIVATIONS[activation]
    if kwargs.get("dropout") is None:
        kwargs.pop("dropout", None)
    block = run_stage(f"{cls_name}.__init__", cls, **kwargs)
    if not isinstance(block, nn.Module):
        raise CodeUnderTestError(
            f"{cls_name}.__init__", TypeError(f"{cls_name} is not an nn.Module subclass")
        )
    return block


def uncalled_modules(block: nn.Module) -> list[str]:
    """The attributes of ``block`` that hold a module's class (or a partial of one) of which the block has no
    module: ``self.act = activation_fn``, never called (a class kept beside the module built from it,
    ``self.activation_fn = activation_fn; self.act = activation_fn()``, is not). What the grader's hint for
    the error that follows reads."""
    built = {type(module) for module in block.modules()}

    def uncalled(value) -> bool:
        value = value.func if isinstance(value, functools.partial) else value
        return isinstance(value, type) and issubclass(value, nn.Module) and value not in built

    return [name for name, value in vars(block).items() if uncalled(value)]


def entered_layers(block: nn.Module) -> tuple[list[str], list]:
    """(the names of the block's linear layers whose forward has begun, filled in as they begin; the hooks that
    fill it, to remove after the run). A forward that raises after a layer took the input shows its layers at
    work (``forward_fails_past_its_layers``); one that raises before any does not."""
    entered: list[str] = []
    hooks = []
    for name, module in block.named_modules():
        if isinstance(module, nn.Linear):
            try:
                hooks.append(module.register_forward_pre_hook(lambda _module, _args, name=name: entered.append(name)))
            except (RuntimeError, AttributeError):  # a scripted layer takes no hook: no evidence from it
                pass
    return entered, hooks


@probe
def describe_block(module: ModuleType, cls_name: str, ctor: dict) -> dict:
    """Names, shapes and count of the parameters the constructor made."""
    block = build_block(module, cls_name, ctor)
    return {
        "state_dict_keys": list(block.state_dict().keys()),
        "param_shapes": {name: list(p.shape) for name, p in block.named_parameters()},
        "param_count": sum(p.numel() for p in block.parameters()),
    }


@probe
def run_block(
    module: ModuleType,
    cls_name: str,
    ctor: dict,
    state_dict: dict,
    x: torch.Tensor,
    train: bool = False,
    grad_out: torch.Tensor | None = None,
    seed: int = 0,
    device: str = "cpu",
    strict: bool = True,
) -> dict:
    """Build, load the given weights, run forward (and backward when grad_out is given).

    ``strict=False``: the block has parameters the weights do not name (an extra layer); they keep the
    values its constructor gave them, from a seeded generator, so the run is the same every time."""
    seed_block_run(seed, device)
    block = build_block(module, cls_name, ctor)
    # Cast first, then load: loading float64 weights into float32 parameters would round them.
    run_stage(f"{cls_name}.to", block.to, device=device, dtype=x.dtype)
    run_stage(f"{cls_name}.load_state_dict", block.load_state_dict,
           {k: v.to(device=device, dtype=x.dtype) for k, v in state_dict.items()}, strict=strict)
    block.train(train)
    x = x.to(device)
    x_before = x.clone()
    if grad_out is not None:
        x.requires_grad_(True)
    seed_block_run(seed, device)
    entered, hooks = entered_layers(block)
    try:
        out = run_stage(f"{cls_name}.forward", block, x)
    except CodeUnderTestError as error:
        uncalled = uncalled_modules(block)
        if uncalled:
            error.evidence[UNCALLED] = ", ".join(uncalled[:8])
        if entered:
            error.evidence[ENTERED] = ", ".join(entered[:8])
        raise
    finally:
        for hook in hooks:
            hook.remove()
    if not isinstance(out, torch.Tensor):
        raise CodeUnderTestError(
            f"{cls_name}.forward", TypeError(f"returned {type(out).__name__}, not a Tensor")
        )
    evidence: dict[str, Any] = {
        "out": to_cpu(out),
        "x_after": to_cpu(x),
        "x_before": to_cpu(x_before),
    }
    if grad_out is not None:
        if not out.requires_grad:
            evidence["grads"] = {}
            evidence["grad_x"] = None
        else:
            run_stage(f"{cls_name}.forward (backward pass)", out.backward, grad_out.to(out))
            evidence["grad_x"] = to_cpu(x.grad)
            evidence["grads"] = {
                name: to_cpu(p.grad)
                for name, p in block.named_parameters()
            }
    return evidence


