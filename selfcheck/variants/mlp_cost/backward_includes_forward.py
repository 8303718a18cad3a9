"""Wrong: the GLU backward returns forward plus backward."""

EDITS = [
    ('    return matmuls + bias_grads + activation + gate_product',
     '    return matmuls + bias_grads + activation + gate_product + glu_forward_flops(hidden_dim, intermediate_dim, bias)'),
]

EXPECT_FAILURES = {
    'test_backward_flops[GLU]': {'cause': 'forward and backward together'},
}
