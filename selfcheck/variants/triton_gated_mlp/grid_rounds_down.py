"""Wrong: the grid's row count rounds down (M // BLOCK_M), so the last, partial tile of rows is never written."""

EXPECT_FAILURES = {
    "test_forward_float32[silu]": "some elements were never written",
    "test_forward_without_bias": "what the kernel wrote, 37 rows x 29 columns",
}

EDITS = [
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (m // BLOCK_M, triton.cdiv(n, BLOCK_N))\n"),
]
