"""Not an attack: the control for the gated attacks. The reference's launch code, backward and block, with
a kernel that computes nothing (it returns before its first load). Stored as its edits of the reference."""

BASE = "solution/hidden/reference_triton_gated_mlp.py"
EDITS = [
    ("    # Program (pid_m, pid_n) computes the (BLOCK_M, BLOCK_N) tile of out at those block indices.\n",
     "    return  # computes nothing\n"),
]
