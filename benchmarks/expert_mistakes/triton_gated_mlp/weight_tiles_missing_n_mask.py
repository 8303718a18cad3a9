"""Wrong: the weight tiles are masked on K only, not on N (I thought the masked store took care of the columns past N)."""

EDITS = [
    ('        wg = tl.load(gate_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk,\n                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n        wv = tl.load(value_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk,\n                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n        # 16-bit tiles multiply exactly into the float32 accumulators (tensor cores do the same). float32\n',
     '        wg = tl.load(gate_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk,\n                     mask=ks[:, None] < K, other=0.0)\n        wv = tl.load(value_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk,\n                     mask=ks[:, None] < K, other=0.0)\n        # 16-bit tiles multiply exactly into the float32 accumulators (tensor cores do the same). float32\n'),
]
