"""Wrong: the given launch code, edited: its grid rounds the row count down (M // BLOCK_M), so the last, partial tile of rows is never written."""

EXPECT_FAILURES = {
    "test_kernel_does_the_work": "what the kernel wrote, 37 rows x 29 columns",
    "test_forward_3d_input": "counts once gated_projection gets the projection",
}

EDITS = [
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (m // BLOCK_M, triton.cdiv(n, BLOCK_N))\n"),
]
