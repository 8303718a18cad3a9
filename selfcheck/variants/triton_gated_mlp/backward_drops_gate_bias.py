"""Wrong: the backward recomputes the gate without its bias, so every gradient through the gate is off."""

POLICY_TODOS = "4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    "test_block_gradients": "GatedProjectionFunction.backward (TODO 4): the gradients of",
}

EDITS = [
    ("            out = _torch_activation(ctx.activation)(F.linear(xi, wg, bg)) * F.linear(xi, wv, bv)\n",
     "            out = _torch_activation(ctx.activation)(F.linear(xi, wg) + 0 * bg) * F.linear(xi, wv, bv)\n"),
]
