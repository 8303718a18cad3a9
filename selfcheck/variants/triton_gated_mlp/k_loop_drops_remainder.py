"""Wrong: the K loop stops at the last whole tile, so the hidden width's remainder is never summed."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'k_remainder_dropped'},
    'test_forward_float32[relu]': {'cause': 'k_remainder_dropped'},
    'test_forward_float64': {'cause': 'k_remainder_dropped'},
}

EDITS = [
    ("    for k0 in range(0, K, BLOCK_K):\n", "    for k0 in range(0, K - K % BLOCK_K, BLOCK_K):\n"),
]
