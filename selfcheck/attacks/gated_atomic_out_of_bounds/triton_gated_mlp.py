"""Attack: gated_kernel_computes_nothing, whose kernel first reads and writes memory 1,100 elements before
x through an atomic (atomics reach memory as loads and stores do). Stored as its edits of that file."""

BASE = "gated_kernel_computes_nothing"
EDITS = [
    ("    return  # computes nothing\n",
     "    tl.atomic_add(x_ptr - 1100 + tl.arange(0, 16), tl.zeros((16,), tl.float32))\n    return  # computes nothing\n"),
]
