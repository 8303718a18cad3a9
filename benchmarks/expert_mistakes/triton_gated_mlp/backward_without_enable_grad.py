"""Wrong: the backward recomputes the projections without torch.enable_grad(), so (backward runs with grad off) autograd.grad has no graph to differentiate."""

EDITS = [
    ('        with torch.enable_grad():\n            inputs = [t.detach().requires_grad_(t.requires_grad) if t is not None else None\n                      for t in (x, gate_weight, gate_bias, value_weight, value_bias)]\n            xi, wg, bg, wv, bv = inputs\n            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)\n            wanted = [t for t in inputs if t is not None and t.requires_grad]\n            grads = iter(torch.autograd.grad(out, wanted, grad_out) if wanted else ())\n',
     '        inputs = [t.detach().requires_grad_(t.requires_grad) if t is not None else None\n                  for t in (x, gate_weight, gate_bias, value_weight, value_bias)]\n        xi, wg, bg, wv, bv = inputs\n        out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)\n        wanted = [t for t in inputs if t is not None and t.requires_grad]\n        grads = iter(torch.autograd.grad(out, wanted, grad_out) if wanted else ())\n'),
]
