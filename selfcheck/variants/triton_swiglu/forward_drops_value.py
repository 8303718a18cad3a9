"""Wrong: the forward kernel stores silu(gate) and forgets the value factor."""

EXPECT_FAILURES = {
    'test_forward_float32[0d]': {'waits_on': 'test_forward_float32[2d]', 'says': 'the tests on larger shapes ([1d], [2d]) name it'},
    'test_forward_float32[2d]': {'cause': 'forward: product with value missing'},
}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value",
     "    out = gate * tl.sigmoid(gate)"),
]
