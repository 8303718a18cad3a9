"""Correct: the forward kernel calls an activation helper whose constexpr picks SiLU; its tanh-GELU branch (tl.math.tanh, which Triton's builtins may not all offer) is never compiled for this launch."""

EXPECT_FAILURES = {}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n",
     "    out = _activation(gate, \"silu\") * value\n"),
    ("@triton.jit\ndef _swiglu_forward_kernel(",
     "@triton.jit\n"
     "def _activation(x, KIND: tl.constexpr):\n"
     "    if KIND == \"silu\":\n"
     "        return x * tl.sigmoid(x)\n"
     "    else:  # tanh GELU, for another exercise: never compiled when KIND is \"silu\"\n"
     "        return 0.5 * x * (1.0 + tl.math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))\n"
     "\n\n"
     "@triton.jit\ndef _swiglu_forward_kernel("),
]
