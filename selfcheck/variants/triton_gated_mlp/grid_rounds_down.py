"""Wrong: the given launch code, edited: its grid rounds the row count down (M // BLOCK_M), so the last, partial tile of rows is never written."""

EXPECT_FAILURES = {
    'test_kernel_does_the_work': {'cause': 'never_written', 'says': 'what the kernel wrote, 37 rows x 29 columns'},
    'test_forward_3d_input[contiguous]': {'waits_on': 'test_kernel_does_the_work'},
    'test_forward_3d_input[sequence_first]': {'waits_on': 'test_kernel_does_the_work'},
}

EDITS = [
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (m // BLOCK_M, triton.cdiv(n, BLOCK_N))\n"),
]
