"""Wrong: the gate's weight tile is addressed with the value's strides (stride_vn, stride_vk)."""

EXPECT_FAILURES = {
    'test_forward_weights_each_by_its_strides': {'cause': "a weight read with the other's strides", 'says': "reads the gate's weight"},
}

EDITS = [
    ("        wg = tl.load(gate_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk,",
     "        wg = tl.load(gate_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk,"),
]
