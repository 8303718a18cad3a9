"""Wrong: the value's half of the combined weight starts one row early, at intermediate - 1."""

EXPECT_FAILURES = {
    "test_combined_weight": "check the views in TODO 3",
}

EDITS = [
    ("    return gated_projection(x, weight[:n], weight[n:], gate_bias, value_bias, activation)\n",
     "    return gated_projection(x, weight[:n], weight[n - 1:-1], gate_bias, value_bias, activation)\n"),
]
