"""Wrong: the activation goes on the value's sum, act(x Wv^T + bv) * (x Wg^T + bg)."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'activation_on_value'},
    'test_forward_float64': {'cause': 'activation_on_value'},
}

EDITS = [
    ("    out = _activation(gate, ACTIVATION) * value\n", "    out = _activation(value, ACTIVATION) * gate\n"),
]
