"""Wrong: the combined weight is read interleaved, the gate's rows at even indices and the value's at odd."""

EXPECT_FAILURES = {
    'test_combined_weight': {'cause': 'combined weight interleaved, bias right'},
    'test_combined_weight_not_copied': {'cause': 'combined weight interleaved, bias right'},
}

EDITS = [
    ("    return gated_projection(x, weight[:n], weight[n:], gate_bias, value_bias, activation)\n",
     "    return gated_projection(x, weight[0::2], weight[1::2], gate_bias, value_bias, activation)\n"),
]
