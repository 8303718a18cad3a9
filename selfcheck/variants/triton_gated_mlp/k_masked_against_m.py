"""Wrong: the K offsets of every tile are masked against M (the token count) instead of K, so only the first M products of each sum count."""

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'k_masked_against_m'},
    'test_forward_float64': {'cause': 'k_masked_against_m'},
}

EDITS = [
    ("mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)", "mask=(rows[:, None] < M) & (ks[None, :] < M), other=0.0)"),
    ("mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)", "mask=(ks[:, None] < M) & (cols[None, :] < N), other=0.0)", 2),
]
