"""Wrong: the backward kernel counts blocks_per_row = n_cols // BLOCK_SIZE, so a row's last, partial block never runs."""

# Written before grading: the launch code's grid is right (n_rows * cdiv), but the kernel maps program pid to
# row pid // (n_cols // BLOCK_SIZE): whole blocks are computed, each row's partial block is not, and the programs
# meant for them take blocks of rows past the end (out of bounds). Rows shorter than a block divide by zero
# (all programs on row 0 under the interpreter). The backward kernel's value tests (float32 on 3 of 5 shapes, 16
# bits, float64), its layouts and its bounds test fail, one cause: the grid arithmetic; nothing built on the
# kernel (the launch, inputs untouched, autograd, the block) loses points.
EXPERT_VERDICT = "Loses the backward kernel's value, layout and bounds tests, about 33 of 117 (84 kept), one cause."

EXPECT_FAILURES = {
    'test_backward_float32[1d]': {'cause': 'backward: blocks per row rounded down', 'says': 'tl.cdiv(n_cols, BLOCK_SIZE)'},
    'test_backward_float64': {'cause': 'backward: blocks per row rounded down'},
    'test_backward_noncontiguous[chunk]': {'cause': 'backward: blocks per row rounded down'},
    'test_backward_noncontiguous[grad_out_broadcast_row]': {'cause': 'backward: blocks per row rounded down'},
    'test_memory_stays_in_bounds[backward]': {'cause': 'backward: blocks per row rounded down'},
}

EDITS = [
    ("    pid = tl.program_id(0)\n    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)\n    row = (pid // blocks_per_row)"
     ".to(tl.int64)\n    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    in_row = cols < n_cols\n\n"
     "    grad_out",
     "    pid = tl.program_id(0)\n    blocks_per_row = n_cols // BLOCK_SIZE\n    row = (pid // blocks_per_row)"
     ".to(tl.int64)\n    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    in_row = cols < n_cols\n\n"
     "    grad_out"),
]
