"""Wrong: the launch asks for float32 sums whatever x's dtype, so a float64 projection is float32-accurate."""

# The kernel converts every tile to COMPUTE_DTYPE, which is right: under the stub's launch code it sums
# float64 in float64. The mistake is the launch's (TODO 2), charged there; what waits on it says so.
EXPECT_FAILURES = {
    "test_kernel_does_the_work": "float32 sums on float64 x",
    "test_block_matches_glu[silu]": "counts once gated_projection gets the projection from _gated_projection_kernel in float64",
    "test_block_matches_glu[gelu]": "counts once gated_projection gets the projection from _gated_projection_kernel in float64",
}

EDITS = [
    ("            COMPUTE_DTYPE=COMPUTE_DTYPES.get(x.dtype, tl.float32),\n", "            COMPUTE_DTYPE=tl.float32,\n"),
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
     "                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0).to(COMPUTE_DTYPE)\n"),
    ("                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n",
     "                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0).to(COMPUTE_DTYPE)\n", 2),
]
