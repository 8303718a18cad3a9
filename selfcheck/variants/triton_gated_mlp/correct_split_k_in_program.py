"""Correct: a split-K loop inside each program, even and odd K tiles in separate sums, added before the epilogue."""

EXPECT_FAILURES = {}

EDITS = [
    ("    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n"
     "    for k0 in range(0, K, BLOCK_K):\n",
     "    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n"
     "    gate_odd = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n"
     "    value_odd = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n"
     "    for k0 in range(0, K, BLOCK_K):\n"),
    ("        gate = tl.dot(x, wg, gate, input_precision=\"ieee\")\n        value = tl.dot(x, wv, value, input_precision=\"ieee\")\n",
     "        if (k0 // BLOCK_K) % 2 == 0:\n"
     "            gate = tl.dot(x, wg, gate, input_precision=\"ieee\")\n"
     "            value = tl.dot(x, wv, value, input_precision=\"ieee\")\n"
     "        else:\n"
     "            gate_odd = tl.dot(x, wg, gate_odd, input_precision=\"ieee\")\n"
     "            value_odd = tl.dot(x, wv, value_odd, input_precision=\"ieee\")\n"
     "    gate += gate_odd\n"
     "    value += value_odd\n"),
]
