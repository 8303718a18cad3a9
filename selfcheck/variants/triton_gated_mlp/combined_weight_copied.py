"""Wrong: gated_projection_combined hands the kernel contiguous copies of the weight's halves instead of views."""

EXPECT_FAILURES = {
    'test_combined_weight_not_copied': {'cause': 'weights copied'},
}

EDITS = [
    ("    return gated_projection(x, weight[:n], weight[n:], gate_bias, value_bias, activation)\n",
     "    return gated_projection(x, weight[:n].contiguous(), weight[n:].contiguous(), gate_bias, value_bias, activation)\n"),
]
