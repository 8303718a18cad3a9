"""Wrong: the result is converted to tl.float16 before tl.store, as in Triton's matmul tutorial, whatever out's dtype."""
EXPERT_VERDICT = ("Wrong in float32 and float64 (TODO 1): the sums, bias and epilogue are right, but every element"
                  " is rounded to float16 (about 5e-4 relative) before the store converts it to out's dtype. The"
                  " float32 and float64 value tests fail (5 x 2 + 2 = 12 of 38); float16 is right, bfloat16 near"
                  " enough (a float16 rounding before the bfloat16 one); the layouts, launch, combined weight and"
                  " block, judged against the kernel's own output, keep their points. One message: the 16-bit"
                  " store.")
SOURCE = "triton-lang/triton python/tutorials/03-matrix-multiplication.py (c = accumulator.to(tl.float16))"

# Graded by the suites; the expert's verdict above was written before.
EXPECT_FAILURES = {
    'test_forward_float32[gelu]': {'cause': '16-bit store', 'says': 'rounded to float16 at every element'},
    'test_forward_float64': {'cause': '16-bit store'},
}

EDITS = [
    ("    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, out.to(out_ptr.dtype.element_ty),\n",
     "    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, out.to(tl.float16),\n"),
]
