"""Wrong: a pointer-advancing K loop that never advances the value weight's pointers, so every step reads its first K tile."""

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'value_pointer_not_advanced'},
    'test_forward_float64': {'cause': 'value_pointer_not_advanced'},
}

EDITS = [
    ("""    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        # The last step's ks run past K unless K is a multiple of BLOCK_K: mask them, and load 0 there.
        x = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        # (BLOCK_K, BLOCK_N) tiles of the weights' transposes: element (k, n) is weight[n, k].
        wg = tl.load(gate_weight_ptr + cols[None, :] * stride_gn + ks[:, None] * stride_gk,
                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        wv = tl.load(value_weight_ptr + cols[None, :] * stride_vn + ks[:, None] * stride_vk,
                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
""", """    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rows[:, None] * stride_xm + offs_k[None, :] * stride_xk
    wg_ptrs = gate_weight_ptr + cols[None, :] * stride_gn + offs_k[:, None] * stride_gk
    wv_ptrs = value_weight_ptr + cols[None, :] * stride_vn + offs_k[:, None] * stride_vk
    for step in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - step * BLOCK_K
        x = tl.load(x_ptrs, mask=(rows[:, None] < M) & (offs_k[None, :] < left), other=0.0)
        wg = tl.load(wg_ptrs, mask=(offs_k[:, None] < left) & (cols[None, :] < N), other=0.0)
        wv = tl.load(wv_ptrs, mask=(offs_k[:, None] < left) & (cols[None, :] < N), other=0.0)
        x_ptrs += BLOCK_K * stride_xk
        wg_ptrs += BLOCK_K * stride_gk
"""),
]
