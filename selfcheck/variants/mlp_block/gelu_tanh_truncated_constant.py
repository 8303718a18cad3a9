"""Wrong: the default is tanh GELU with sqrt(2/pi) cut to 0.79788456 (Megatron-LM, BLOOM)."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'hard-coded tanh-approximate GELU'},
    'test_parity_with_reference[default-GLU]': {'cause': 'hard-coded tanh-approximate GELU'},
}

EDITS = [
    ('class MLP(nn.Module):',
     'class TruncatedTanhGELU(nn.Module):\n'
     '    def forward(self, x):\n'
     '        return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))\n'
     '\n\n'
     'class MLP(nn.Module):'),
    ('        activation_fn: ActivationFactory = nn.GELU,\n',
     '        activation_fn: ActivationFactory = TruncatedTanhGELU,\n', 2),
]
