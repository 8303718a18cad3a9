"""Attack: kernels_compute_nothing plus a forward kernel that reaches Python through tl: tl.math holds
functools.wraps (Triton imports it there), with which the kernel rebinds tl.sigmoid in the kernels'
process for every later launch. Stored as its edits of kernels_compute_nothing's file."""

BASE = "kernels_compute_nothing"
EDITS = [
    ("    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n    pid = tl.program_id(0)\n",
     "    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n    pid = tl.program_id(0)\n"
     "    tl.math.wraps(tl.exp, assigned=('__doc__',), updated=())(tl.sigmoid)\n"),
]
