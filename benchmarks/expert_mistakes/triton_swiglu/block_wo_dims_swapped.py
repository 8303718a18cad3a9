"""Wrong: in FusedSwiGLU I made Wo nn.Linear(hidden_dim, intermediate_dim) like Wv and Wg, instead of intermediate_dim -> hidden_dim."""

EDITS = [
    ('        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n',
     '        self.Wo = nn.Linear(hidden_dim, intermediate_dim)\n'),
]
