"""Wrong: the forward counts one FLOP per multiply-accumulate and nothing else (fvcore's convention)."""

EDITS = [
    ('    return matmuls + bias_adds + activation\n',
     '    return hidden_dim * intermediate_dim * 2\n', 1),
    ('    return matmuls + bias_adds + activation + gate_product\n',
     '    return hidden_dim * intermediate_dim * 3\n', 1),
]

POLICY_TODOS = "3, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'multiply-accumulates, products only'},
    'test_forward_flops[GLU]': {'cause': 'multiply-accumulates, products only'},
}
