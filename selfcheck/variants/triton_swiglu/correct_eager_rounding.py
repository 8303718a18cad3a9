"""Correct: rounds where PyTorch eager does, silu stored in 16 bits, then the product (Liger-Kernel's forward since its PR #778, Unsloth's)."""

EXPECT_FAILURES = {}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n",
     "    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row)\n"
     "    out = (gate * tl.sigmoid(gate)).to(value.dtype) * value\n"),
]
