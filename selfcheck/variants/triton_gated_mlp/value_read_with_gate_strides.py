"""Wrong: the value's weight tile is addressed with the gate's strides (stride_gn, stride_gk), a copy-paste slip that is right whenever both weights share a layout."""

EXPECT_FAILURES = {
    'test_forward_weights_each_by_its_strides': {'cause': "a weight read with the other's strides", 'says': "reads the value's weight"},
}

EDITS = [
    ("        wv = tl.load(value_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk,",
     "        wv = tl.load(value_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk,"),
]
