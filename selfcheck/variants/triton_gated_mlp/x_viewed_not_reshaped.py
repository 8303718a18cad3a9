"""Wrong: gated_projection takes x's rows with .view(-1, K), which raises on a view whose leading dimensions do not merge (a (seq, batch, hidden) tensor's .transpose(0, 1)); .reshape copies there."""

EXPECT_FAILURES = {
    'test_forward_3d_input[sequence_first]': {'cause': 'RuntimeError in gated_projection', 'says': 'Use .reshape(...) instead'},
}

EDITS = [
    ("    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n",
     "    rows = x.view(-1, x.shape[-1])\n"),
]
