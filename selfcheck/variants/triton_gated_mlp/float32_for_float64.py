"""Wrong: the given launch code, edited, asks for float32 sums whatever x's dtype, so a float64 projection is float32-accurate."""

# The kernel converts every tile to COMPUTE_DTYPE, which is right: under the given launch code it sums
# float64 in float64. The mistake is the launch's, charged there; the block, judged on what it does with
# its own gated_projection, keeps its points.
POLICY_TODOS = "2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_kernel_does_the_work': {'cause': 'float32 sums for float64'},
}

EDITS = [
    ("            COMPUTE_DTYPE=COMPUTE_DTYPES.get(rows.dtype, tl.float32),\n", "            COMPUTE_DTYPE=tl.float32,\n"),
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
     "                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0).to(COMPUTE_DTYPE)\n"),
    ("                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n",
     "                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0).to(COMPUTE_DTYPE)\n", 2),
]
