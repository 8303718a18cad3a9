"""Wrong: the linear layers are built with bias=False (as in LLaMA), but the blocks need biases."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'no biases'},
    'test_layer_names[GLU]': {'cause': 'no biases'},
    'test_parameter_count[MLP]': {'cause': 'no biases'},
}

EDITS = [
    ('nn.Linear(hidden_dim, intermediate_dim)',
     'nn.Linear(hidden_dim, intermediate_dim, bias=False)', 3),
    ('nn.Linear(intermediate_dim, hidden_dim)',
     'nn.Linear(intermediate_dim, hidden_dim, bias=False)', 2),
]
