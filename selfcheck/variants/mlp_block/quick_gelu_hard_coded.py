"""Wrong: both blocks hard-code CLIP's QuickGELU, x * sigmoid(1.702 * x), and ignore activation_fn."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'activation_fn ignored'},
    'test_parity_with_reference[relu-MLP]': {'cause': 'activation_fn ignored'},
    'test_parity_with_reference[silu-GLU]': {'cause': 'activation_fn ignored'},
    'test_parity_with_reference[gelu_tanh_partial-GLU]': {'cause': 'activation_fn ignored'},
    'test_gradients[MLP]': {'waits_on': 'test_parity_with_reference[default-MLP]'},
}

EDITS = [
    ('class MLP(nn.Module):',
     'class QuickGELU(nn.Module):\n'
     '    def forward(self, x):\n'
     '        return x * torch.sigmoid(1.702 * x)\n'
     '\n\n'
     'class MLP(nn.Module):'),
    ('        self.act = activation_fn()\n',
     '        self.act = QuickGELU()\n', 2),
]
