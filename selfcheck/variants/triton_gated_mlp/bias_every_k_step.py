"""Wrong: the biases are added inside the K loop, once per K step, instead of once after it."""

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'bias_every_k_step'},
    'test_forward_float32[relu]': {'cause': 'bias_every_k_step'},
}

EDITS = [
    ("""        value = tl.dot(x, wv, value, input_precision="ieee")
    if HAS_BIAS:  # the bias belongs inside the activation: act(x Wg^T + bg)
        gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]
        value += tl.load(value_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]
""", """        value = tl.dot(x, wv, value, input_precision="ieee")
        if HAS_BIAS:
            gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]
            value += tl.load(value_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]
"""),
]
