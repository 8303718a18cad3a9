"""Wrong: the GLU forward leaves out the gate product act(Wg x) * Wv x."""

EDITS = [
    ('    gate_product = intermediate_dim  # act(Wg x) * Wv x',
     '    gate_product = 0'),
]

EXPECT_FAILURES = {
    'test_forward_flops[GLU]': {'cause': 'activation or gate product not counted'},
}
