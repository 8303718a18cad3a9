"""Correct: the backward's chain rule written out by hand instead of taken from autograd."""

EXPECT_FAILURES = {}

EDITS = [
    ("""        with torch.enable_grad():
            inputs = [t.detach().requires_grad_(t.requires_grad) if t is not None else None
                      for t in (x, gate_weight, gate_bias, value_weight, value_bias)]
            xi, wg, bg, wv, bv = inputs
            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)
            wanted = [t for t in inputs if t is not None and t.requires_grad]
            grads = iter(torch.autograd.grad(out, wanted, grad_out) if wanted else ())
        return (*(next(grads) if t is not None and t.requires_grad else None for t in inputs), None)
""", """        g = F.linear(x, gate_weight, gate_bias).detach().requires_grad_(True)
        with torch.enable_grad():
            a = _torch_activation(ctx.activation)(g)
        v = F.linear(x, value_weight, value_bias)
        grad_v = grad_out * a.detach()
        (grad_g,) = torch.autograd.grad(a, g, grad_out * v)  # act'(g) times the incoming gradient
        rows = lambda t: t.reshape(-1, t.shape[-1])
        grad_x = grad_g @ gate_weight + grad_v @ value_weight
        grad_wg = rows(grad_g).T @ rows(x)
        grad_wv = rows(grad_v).T @ rows(x)
        grad_bg = None if gate_bias is None else rows(grad_g).sum(0)
        grad_bv = None if value_bias is None else rows(grad_v).sum(0)
        return grad_x, grad_wg, grad_bg, grad_wv, grad_bv, None
"""),
]
