"""Wrong: the loads of x leave out the mask on K, so the last step reads past each row of x."""

EXPECT_FAILURES = {
    "test_forward_float32[silu]": "_gated_projection_kernel",
    "test_forward_without_bias": "_gated_projection_kernel",
}

EDITS = [
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)",
     "                    mask=rows[:, None] < M, other=0.0)"),
]
