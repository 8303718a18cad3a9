"""Wrong: the backward differentiates out.sum() instead of passing grad_out, so the upstream gradient is taken as all ones."""

EDITS = [
    ('            grads = iter(torch.autograd.grad(out, wanted, grad_out) if wanted else ())\n',
     '            grads = iter(torch.autograd.grad(out.sum(), wanted) if wanted else ())\n'),
]
