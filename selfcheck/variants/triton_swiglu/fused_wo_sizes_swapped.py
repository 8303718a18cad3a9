"""Wrong: FusedSwiGLU's Wo is nn.Linear(hidden_dim, intermediate_dim), the sizes of Wv and Wg, not back to hidden_dim."""

EXPECT_FAILURES = {
    'test_fused_layers': {'cause': 'layer shapes: Wo'},
    'test_fused_calls_swiglu': {'cause': 'layer shapes: Wo'},
    'test_fused_matches_glu[float64-4d]': {'waits_on': 'test_fused_calls_swiglu'},
    'test_fused_gradients': {'waits_on': 'test_fused_calls_swiglu'},
}

EDITS = [
    ('        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n',
     '        self.Wo = nn.Linear(hidden_dim, intermediate_dim)\n'),
]
