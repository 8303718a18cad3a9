"""Wrong: the gate's sum gets value_bias and the value's sum gate_bias."""

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'biases_swapped'},
    'test_forward_float32[gelu]': {'cause': 'biases_swapped'},
}

EDITS = [
    ("        gate += tl.load(gate_bias_ptr + cols,", "        gate += tl.load(value_bias_ptr + cols,"),
    ("        value += tl.load(value_bias_ptr + cols,", "        value += tl.load(gate_bias_ptr + cols,"),
]
