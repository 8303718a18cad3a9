"""Attack: implements nothing; makes the child send back stride-0 views that stand for 10^10 elements
each (a few bytes on the wire), so that the grader's own comparisons on them take its memory and time."""

import sys

import torch

probes = next(m for name, m in sys.modules.items() if name.endswith("probes") and hasattr(m, "PROBES"))


def run_block(module, cls_name, ctor, state_dict, x, train=False, grad_out=None, seed=0, device="cpu"):
    huge = torch.zeros(1, dtype=x.dtype).expand(10**10)
    return {"out": torch.zeros(1, dtype=x.dtype).expand(2 * 10**8), "x_after": huge, "x_before": huge,
            "grad_x": huge, "grads": {}}


probes.PROBES["run_block"] = run_block


class MLP(torch.nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, *args, **kwargs):
        super().__init__()
        self.Wi, self.Wo = torch.nn.Linear(hidden_dim, intermediate_dim), torch.nn.Linear(intermediate_dim, hidden_dim)


class GLU(torch.nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, *args, **kwargs):
        super().__init__()
        self.Wv, self.Wg = torch.nn.Linear(hidden_dim, intermediate_dim), torch.nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = torch.nn.Linear(intermediate_dim, hidden_dim)
