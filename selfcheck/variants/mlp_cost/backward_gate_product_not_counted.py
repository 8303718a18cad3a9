"""Wrong: the GLU backward leaves out the gate product's gradients."""

EDITS = [
    ('    gate_product = 2 * intermediate_dim  # grad to the gate',
     '    gate_product = 0  # grad to the gate'),
]

EXPECT_FAILURES = {
    'test_backward_flops[GLU]': {'cause': 'activation or gate product not counted'},
}
