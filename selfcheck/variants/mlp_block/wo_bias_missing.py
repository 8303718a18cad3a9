"""Wrong: Wo is built with bias=False; Wi (and Wg, Wv) keep theirs."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'no biases'},
    'test_parameter_count[GLU]': {'cause': 'no biases'},
    'test_parity_with_reference[default-MLP]': {'cause': 'no biases'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'no biases'},
    'test_gradients[GLU]': {'cause': 'no biases'},
}

EDITS = [
    ('nn.Linear(intermediate_dim, hidden_dim)',
     'nn.Linear(intermediate_dim, hidden_dim, bias=False)', 2),
]
