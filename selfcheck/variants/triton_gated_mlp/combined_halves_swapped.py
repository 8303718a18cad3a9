"""Wrong: the combined weight's value rows are taken as the gate's, and the gate's as the value's."""

POLICY_TODOS = "3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_combined_weight': {'cause': 'combined weight swapped, bias swapped'},
    'test_combined_weight_not_copied': {'cause': 'combined weight swapped, bias swapped'},
}

EDITS = [
    ("    gate_bias, value_bias = (None, None) if bias is None else (bias[:n], bias[n:])\n"
     "    return gated_projection(x, weight[:n], weight[n:], gate_bias, value_bias, activation)\n",
     "    gate_bias, value_bias = (None, None) if bias is None else (bias[n:], bias[:n])\n"
     "    return gated_projection(x, weight[n:], weight[:n], gate_bias, value_bias, activation)\n"),
]
