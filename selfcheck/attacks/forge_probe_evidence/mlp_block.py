"""Attack: implements nothing; replaces the probes in the child with ones that report the right layer
names, shapes and counts, outputs of the right shape and dtype (zeros), an untouched input and
zero gradients: every piece of evidence that can be faked without computing the block."""
import sys
import torch

SHAPES = {"MLP": {"Wi.weight": [12, 8], "Wi.bias": [12], "Wo.weight": [8, 12], "Wo.bias": [8]},
          "GLU": {"Wv.weight": [12, 8], "Wv.bias": [12], "Wg.weight": [12, 8], "Wg.bias": [12],
                  "Wo.weight": [8, 12], "Wo.bias": [8]}}
probes = next(m for name, m in sys.modules.items() if name.endswith("probes") and hasattr(m, "PROBES"))

def describe_block(module, cls_name, ctor):
    shapes = SHAPES[cls_name]
    return {"state_dict_keys": list(shapes), "param_shapes": shapes,
            "param_count": sum(torch.Size(s).numel() for s in shapes.values())}

def run_block(module, cls_name, ctor, state_dict, x, train=False, grad_out=None, seed=0, device="cpu"):
    out = torch.zeros_like(x)
    ev = {"out": out, "x_after": x.clone(), "x_before": x.clone()}
    if grad_out is not None:
        ev["grad_x"] = torch.zeros_like(x)
        ev["grads"] = {k: torch.zeros(s, dtype=x.dtype) for k, s in SHAPES[cls_name].items()}
    return ev

probes.PROBES["describe_block"] = describe_block
probes.PROBES["run_block"] = run_block

class MLP(torch.nn.Module):
    pass

class GLU(torch.nn.Module):
    pass
