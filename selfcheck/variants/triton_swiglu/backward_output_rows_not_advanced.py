"""Wrong: the backward kernel stores at grad_gate_ptr + cols and grad_value_ptr + cols, never moving to its row."""

# As in Triton-distributed's SwiGLU backward before its PR #185, which advanced the input pointers by the row
# stride but not the outputs'. Written before grading: contiguous tensors are one row, so every value test
# passes; where the kernel sees rows (halves of h.chunk, a transposed copy, a strided view, an expanded or
# broadcast grad_out) every program stores into row 0 and the other rows are never written. The backward's
# layout tests fail (5 x 1 point), one cause: rows never written; the launch and everything built on the kernel
# keep their points.
EXPERT_VERDICT = "Loses the backward's five layout tests, about 5 of 117 (112 kept), one cause: rows never written."

EXPECT_FAILURES = {
    'test_backward_noncontiguous[chunk]': {'cause': 'backward: rows never written', 'says': 'never written'},
    'test_backward_noncontiguous[strided]': {'cause': 'backward: rows never written'},
    'test_backward_noncontiguous[grad_out_broadcast_row]': {'cause': 'backward: rows never written'},
    'test_backward_noncontiguous[grad_out_expanded]': {'cause': 'backward: rows never written'},
}

EDITS = [
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,", "    tl.store(grad_gate_ptr + cols,"),
    ("    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,", "    tl.store(grad_value_ptr + cols,"),
]
