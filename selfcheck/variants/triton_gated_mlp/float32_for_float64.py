"""Wrong: every tile is converted to float32 and summed there, so a float64 projection is float32-accurate."""

EXPECT_FAILURES = {
    "test_forward_float64": "float32 precision only",
}

EDITS = [
    ("            COMPUTE_DTYPE=COMPUTE_DTYPES.get(x.dtype, tl.float32),\n", "            COMPUTE_DTYPE=tl.float32,\n"),
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
     "                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0).to(COMPUTE_DTYPE)\n"),
    ("                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n",
     "                     mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0).to(COMPUTE_DTYPE)\n", 2),
]
