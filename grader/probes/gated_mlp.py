"""The fused gated-MLP probes (exercises/triton_gated_mlp.py): the projection kernel and the block, watched."""

from __future__ import annotations

from types import ModuleType

import torch

from grader.probes.core import CodeUnderTestError, kernel_device, missing, to_cpu, run_stage, probe
from grader.probes.swiglu import describe_result, NaNForFreshMemory, place_in_layout
from grader.probes.triton_watch import (LaunchGrid, TritonWatch, check_triton_ready, exercise_function,
                                        watched_stage)


# The kernel's tensors by argument, their dimensions named as a GEMM's: an out-of-bounds access is told
# as the one of M (tokens), N (intermediate) and K (hidden) that its tile ran past.
GEMM_DIMS = {"x_ptr": ("M", "K"), "gate_weight_ptr": ("N", "K"), "value_weight_ptr": ("N", "K"),
             "gate_bias_ptr": ("N",), "value_bias_ptr": ("N",), "out_ptr": ("M", "N")}
WEIGHT_ARGS = ("gate_weight_ptr", "value_weight_ptr", "gate_bias_ptr", "value_bias_ptr")


@probe
def gated_projection_run(module: ModuleType, x: torch.Tensor, gate_weight: torch.Tensor, value_weight: torch.Tensor,
                         gate_bias: torch.Tensor | None = None, value_bias: torch.Tensor | None = None,
                         activation: str = "silu", layout: str = "contiguous", weight_layout: str = "contiguous",
                         combined: bool = False, kernel_alone: bool = False, grid: tuple | None = None,
                         device: str | None = None, bounds: str = "judged") -> dict:
    """gated_projection(x, ...) on ``x`` built here in ``layout`` and the weights in ``weight_layout``
    ("GATE/VALUE" for two layouts; the biases contiguous: the kernel takes no stride for them); with ``combined``,
    gated_projection_combined(x, cat(weights), cat(biases)) instead, the combined weight in
    ``weight_layout``; with ``kernel_alone``, the kernel through the given _launch_gated_kernel on x (2-d)
    and an output allocated here: what the kernel's tests judge, whatever gated_projection does.
    ``copied``: the weight and bias arguments of the last launch whose tensor is not in the memory of the
    tensor the call was given (a copy the kernel reads instead of the caller's). ``grid``: the kernel is
    launched on this grid, whatever the launch code picks; ``grid`` in the evidence: the last launch's.
    ``device``: where the tensors are placed; by default where Triton runs kernels here. ``bounds`` as
    ``watched_stage``'s: "apart" for a test of another property than the kernel's own values and bounds, where the
    kernel goes out of bounds on its own (the access in ``out_of_bounds``)."""
    device = device or kernel_device()
    name = "gated_projection_combined" if combined else "_launch_gated_kernel" if kernel_alone else "gated_projection"
    check_triton_ready(name)
    fn = exercise_function(module, name)
    if kernel_alone:
        fn = _kernel_alone(fn)
    xv, _ = place_in_layout(x, layout, device)
    wg, wv, bg, bv = gate_weight, value_weight, gate_bias, value_bias
    if combined:
        weight = place_in_layout(torch.cat([wg, wv]), weight_layout, device)[0]
        bias = None if bg is None else place_in_layout(torch.cat([bg, bv]), "contiguous", device)[0]
        args = (xv, weight, bias)
        given = {"gate_weight_ptr": weight, "value_weight_ptr": weight, "gate_bias_ptr": bias, "value_bias_ptr": bias}
    else:
        gate_layout, _, value_layout = weight_layout.partition("/")  # "transposed/contiguous": each its own
        args = tuple([place_in_layout(w, layout, device)[0] for w, layout in ((wg, gate_layout),
                                                                               (wv, value_layout or gate_layout))]
                     + [None if b is None else place_in_layout(b, "contiguous", device)[0] for b in (bg, bv)])
        args = (xv, *args)
        given = dict(zip(WEIGHT_ARGS, args[1:]))
    before = xv.clone()
    with TritonWatch(module) as watch, NaNForFreshMemory(), LaunchGrid("_gated_projection_kernel", grid or ()):
        watch.dim_names = GEMM_DIMS
        result = watched_stage(watch, name, fn, *args, activation=activation, bounds=bounds)
        launched = watch.tensors_given("_gated_projection_kernel")
    if not isinstance(result, torch.Tensor):
        raise CodeUnderTestError(name, TypeError(f"returned {describe_result(result)}, not a Tensor"))
    copied = [arg for arg, t in given.items() if t is not None and arg in launched
              and launched[arg].untyped_storage().data_ptr() != t.untyped_storage().data_ptr()]
    return {"out": to_cpu(result), "kernels": watch.ours(), "foreign_kernels": watch.foreign(),
            "input_changed": not torch.equal(xv, before), "copied": copied,
            "grid": watch.grid_of("_gated_projection_kernel"), "out_of_bounds": watch.violation or "",
            "maps": watch.memory.evidence("_gated_projection_kernel", [xv, *args[1:], result])}


def _kernel_alone(launch):
    """gated_projection's signature over the given launch code, for x of shape (M, K)."""
    def run(x, gate_weight, value_weight, gate_bias, value_bias, activation):
        out = torch.empty((x.shape[0], gate_weight.shape[0]), dtype=x.dtype, device=x.device)
        launch(x, gate_weight, value_weight, gate_bias, value_bias, out, activation)
        return out
    return run


@probe
def gated_module_run(module: ModuleType, hidden: int, intermediate: int, activation: str, weights: dict,
                     x: torch.Tensor, grad_out: torch.Tensor, dropout: float = 0.0, train: bool = False,
                     run: bool = True, device: str | None = None, backward: bool = True, bounds: str = "judged") -> dict:
    """FusedGatedMLP built, given ``weights`` (GLU's names) and run forward (and backward with
    ``grad_out``): its layer names, output, and the gradients of x and of every parameter. Without
    ``run``: built only, its layer names; without ``backward``: the forward alone (a test of the output does
    not fail on the backward's mistakes). ``device``: as for gated_projection_run."""
    device = device or kernel_device()
    cls = getattr(module, "FusedGatedMLP", None)
    if cls is None:
        raise CodeUnderTestError("FusedGatedMLP", missing(module, "class", "FusedGatedMLP"))
    check_triton_ready("FusedGatedMLP.forward")
    block = run_stage("FusedGatedMLP.__init__", cls, hidden, intermediate, activation=activation, dropout=dropout)
    names = sorted(block.state_dict())
    if not run:
        return {"names": names}
    block = block.to(device=device, dtype=x.dtype)
    # A bias the block does not have is left out (its absence is the layers test's to charge, and the output's
    # tests see it); any other key is loaded strictly, so a missing or misnamed layer still fails here.
    own = set(block.state_dict())
    run_stage("FusedGatedMLP.load_state_dict", block.load_state_dict,
              {k: v.to(device) for k, v in weights.items() if k in own or not k.endswith(".bias")})
    block.train(train)
    xi = x.to(device).clone().requires_grad_(True)
    with TritonWatch(module) as watch, NaNForFreshMemory():
        out = watched_stage(watch, "FusedGatedMLP.forward", block, xi, bounds=bounds)
    if not isinstance(out, torch.Tensor):
        raise CodeUnderTestError("FusedGatedMLP.forward", TypeError(f"returned {describe_result(out)}, not a Tensor"))
    evidence = {"names": names, "out": to_cpu(out), "kernels": watch.ours()}
    if not train and backward:
        run_stage("GatedProjectionFunction.backward", out.backward, grad_out.to(device=device, dtype=out.dtype))
        evidence["grad_x"] = to_cpu(xi.grad)
        evidence["grads"] = {n: to_cpu(p.grad) for n, p in block.named_parameters()}
    return evidence
