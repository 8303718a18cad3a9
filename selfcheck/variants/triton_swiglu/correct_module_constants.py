"""Correct: the kernels read module-level constants as Triton's compiler allows (`LOG2E = tl.constexpr(...)`, as FlagGems and Liger-Kernel write theirs): the sigmoid through exp2, and ONE, a constexpr shared by both kernels."""

EXPECT_FAILURES = {}

EDITS = [
    ("import triton.language as tl  # noqa: E402\n",
     "import triton.language as tl  # noqa: E402\n\nLOG2E = tl.constexpr(1.4426950408889634)\nONE: tl.constexpr = tl.constexpr(1.0)\n"),
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n",
     "    out = gate / (ONE + tl.exp2(-gate * LOG2E)) * value\n"),
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n",
     "    grad_gate = grad_out * value * sig * (ONE + gate * (ONE - sig))\n"),
]
