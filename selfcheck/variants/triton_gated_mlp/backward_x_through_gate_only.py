"""Wrong: the backward gives x the gradient through the gate's projection alone (x.detach() feeds the value's), forgetting that x feeds both."""

EXPECT_FAILURES = {
    'test_block_gradients': {'cause': "x's gradient through one path", 'says': "the value's term is missing"},
}

EDITS = [
    ("            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)\n",
     "            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi.detach(), wv, bv)\n"),
]
