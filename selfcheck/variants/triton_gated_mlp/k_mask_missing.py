"""Wrong: the loads of x leave out the mask on K, so the last step reads past each row of x."""

# Only the value and bounds tests run on a hidden width no tile divides (45, and 509 in 16 bits): the layout, no-bias
# and untouched-input tests, and all that is built on the kernel, run on 64 features and pass. The float64 and
# 16-bit value tests judge bounds apart: the x tile read past K meets a masked weight tile and adds nothing.
POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'its K index reaches 47, past K = 45'},
    'test_forward_float32[gelu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[gelu_tanh]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[relu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[sigmoid]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_memory_stays_in_bounds': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'its K index reaches'},
}

EDITS = [
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)",
     "                    mask=rows[:, None] < M, other=0.0)"),
]
