"""Wrong: the forward kernel gates with sigmoid(gate) instead of silu(gate) = gate * sigmoid(gate)."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[2d]': {'cause': 'forward: sigmoid in place of silu'},
    'test_forward_16bit[bfloat16]': {'cause': 'forward: sigmoid in place of silu'},
}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n",
     "    out = tl.sigmoid(gate) * value\n"),
]
