"""Correct: the grid's first axis runs over the output's column tiles and the second over its row tiles."""

EXPECT_FAILURES = {}

EDITS = [
    ("    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n", "    pid_n = tl.program_id(0)\n    pid_m = tl.program_id(1)\n"),
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))\n"),
]
