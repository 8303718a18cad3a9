"""Wrong: the kernel reads each weight as contiguous rows K elements long, ignoring the weights' strides."""

EXPECT_FAILURES = {
    'test_forward_noncontiguous_weights[transposed]': {'cause': 'weights read as contiguous'},
    'test_forward_noncontiguous_weights[strided]': {'cause': 'weights read as contiguous'},
}

EDITS = [
    ("gate_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk", "gate_weight_ptr + cols[None, :] * K + ks[:, None]"),
    ("value_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk", "value_weight_ptr + cols[None, :] * K + ks[:, None]"),
]
