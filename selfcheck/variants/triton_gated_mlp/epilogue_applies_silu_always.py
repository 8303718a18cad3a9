"""Wrong: the epilogue always applies SiLU, whatever ACTIVATION the launch passes."""

EXPECT_FAILURES = {
    'test_forward_float32[gelu]': {'cause': 'another activation applied'},
    'test_forward_float32[gelu_tanh]': {'cause': 'another activation applied'},
    'test_forward_float32[relu]': {'cause': 'another activation applied'},
    'test_forward_float32[sigmoid]': {'cause': 'another activation applied'},
    'test_forward_float64': {'cause': 'another activation applied'},
}

EDITS = [
    ('    out = _activation(gate, ACTIVATION) * value\n',
     '    out = gate * tl.sigmoid(gate) * value\n'),
]
