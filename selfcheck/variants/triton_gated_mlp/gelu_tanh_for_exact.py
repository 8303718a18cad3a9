"""Wrong: the kernel's "gelu" is the tanh approximation, where exact (erf) GELU is asked."""

EXPECT_FAILURES = {
    'test_forward_float32[gelu]': {'cause': 'wrong_gelu'},
}

EDITS = [
    ("        return 0.5 * g * (1.0 + tl.math.erf(g * 0.7071067811865476))\n",
     "        inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)\n"
     "        return 0.5 * g * (2.0 * tl.sigmoid(2.0 * inner))\n"),
]
